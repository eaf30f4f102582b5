import Foundation

/// A validated IANA time-zone identifier such as `Europe/London`, or `UTC` (MODEL-8).
///
/// Offsets come from the system's time-zone database (tzdata); only this type touches it, so
/// the rest of the model never sees Foundation's `TimeZone`. The value holds just the identifier,
/// so check-ins that carry one copy cheaply; the rules are looked up through a shared cache.
public struct TimeZoneID: Hashable, Sendable, CustomStringConvertible {
    /// The identifier exactly as given, such as `America/New_York`.
    public let identifier: String

    /// Coordinated Universal Time.
    public static let utc = try! TimeZoneID("UTC")

    /// Validates an IANA `Area/Location` identifier, or `UTC`/`GMT`.
    ///
    /// Fixed-offset spellings such as `GMT+5` or `+05:00` are refused: a person lives in a
    /// place, and only a place's rules know its daylight-saving changes.
    /// - Throws: ``ModelError/Code/invalidTimeZone`` when the system's tzdata does not know the zone.
    public init(_ identifier: String) throws(ModelError) {
        guard ZoneCache.shared.zone(identifier) != nil else {
            throw ModelError(
                .invalidTimeZone, "\"\(identifier)\" is not an IANA time zone (Area/Location, or UTC)",
                rule: "MODEL-8")
        }
        self.identifier = identifier
    }

    /// The identifier.
    public var description: String { identifier }

    /// The offset from UTC, in seconds, in force at `secondsSince1970`.
    public func offsetSeconds(at secondsSince1970: Int64) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(secondsSince1970)))
    }

    /// The zone's rules.
    var zone: TimeZone { ZoneCache.shared.zone(identifier)! }
}

/// The zones validated so far, so that validating and looking up a zone costs one dictionary
/// lookup after the first time.
private final class ZoneCache: @unchecked Sendable {
    static let shared = ZoneCache()

    private let lock = NSLock()
    private var zones: [String: TimeZone] = [:]
    private var refused: Set<String> = []

    func zone(_ identifier: String) -> TimeZone? {
        lock.lock()
        defer { lock.unlock() }
        if let zone = zones[identifier] { return zone }
        if refused.contains(identifier) { return nil }
        let zone = Self.resolve(identifier)
        if let zone { zones[identifier] = zone } else if refused.count < 10_000 { refused.insert(identifier) }
        return zone
    }

    private static func resolve(_ identifier: String) -> TimeZone? {
        if identifier == "UTC" || identifier == "GMT" { return TimeZone(secondsFromGMT: 0) }
        let allowed = identifier.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "_"),
                UInt8(ascii: "-"), UInt8(ascii: "+"):
                true
            default: false
            }
        }
        guard allowed, identifier.contains("/"), !identifier.hasPrefix("/"), !identifier.hasSuffix("/") else {
            return nil
        }
        return TimeZone(identifier: identifier)
    }
}

extension TimeZoneID: Codable {
    /// Decodes an identifier string.
    public init(from decoder: any Decoder) throws {
        self = try decodeText(from: decoder) { (text: String) throws(ModelError) in try TimeZoneID(text) }
    }

    /// Encodes the identifier string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }
}
