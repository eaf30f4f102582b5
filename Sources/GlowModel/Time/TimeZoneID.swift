import Foundation

/// The name of an IANA time zone such as `Europe/London`, or `UTC` (MODEL-8).
///
/// A name is checked for its form only, so a check-in recorded on a device with newer tzdata (a
/// zone added in 2022, say) still reads and round-trips on an older one: a check-in's zone is for
/// display and audit. Only turning instants into Days needs the zone's rules; where the system's
/// tz database does not know the name, ``isKnown`` is false and a ``DayBoundary`` computes in UTC
/// and says so (MODEL-8). Offsets come from the system's tzdata; only this type touches it, so the
/// rest of the model never sees Foundation's `TimeZone`.
public struct TimeZoneID: Hashable, Sendable, CustomStringConvertible {
    /// The identifier exactly as given, such as `America/New_York`.
    public let identifier: String

    /// Coordinated Universal Time.
    public static let utc = TimeZoneID(checked: "UTC")

    /// The longest name accepted, in bytes; real names are at most about 30.
    public static let maxLength = 64

    /// Checks the form of an IANA name (MODEL-8): `UTC` or `GMT`, or two or more components
    /// separated by `/`, each 1...32 characters of ASCII letters, digits, `_`, `-`, `+` and `.`,
    /// not starting with `-` and not `.` or `..`; at most 64 bytes in all.
    ///
    /// Fixed-offset spellings such as `GMT+5` or `+05:00` are refused: a person lives in a place,
    /// and only a place's rules know its daylight-saving changes. The IANA names of fixed offsets,
    /// `Etc/GMT+5` (five hours *behind* UTC, in POSIX's inverted sign), have the form of a name and
    /// are accepted like any other.
    /// - Throws: ``ModelError/Code/invalidTimeZone`` naming what is wrong with the form. A name of
    ///   the right form that this system's tzdata does not know is accepted (see ``isKnown``).
    public init(_ identifier: String) throws(ModelError) {
        if let problem = TimeZoneID.formProblem(identifier) {
            let shown = identifier.utf8.count > 80 ? String(identifier.prefix(40)) + "…" : identifier
            throw ModelError(
                .invalidTimeZone, "\"\(shown)\" is not an IANA time-zone name: \(problem)", rule: "MODEL-8")
        }
        self.identifier = identifier
    }

    private init(checked identifier: String) {
        self.identifier = identifier
    }

    /// Whether this system's tz database knows the zone, so that its rules can decide Days.
    public var isKnown: Bool { ZoneCache.shared.zone(identifier) != nil }

    /// The identifier.
    public var description: String { identifier }

    /// The offset from UTC, in seconds, in force at `secondsSince1970`; 0 for a zone this system
    /// does not know (``isKnown``).
    public func offsetSeconds(at secondsSince1970: Int64) -> Int {
        guard let zone = ZoneCache.shared.zone(identifier) else { return 0 }
        return zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(secondsSince1970)))
    }

    /// What is wrong with the form of `name`, or nil when it is a well-formed name.
    private static func formProblem(_ name: String) -> String? {
        if name == "UTC" || name == "GMT" { return nil }
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty else { return "it is empty" }
        guard bytes.count <= maxLength else { return "it is longer than \(maxLength) bytes" }
        let components = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard components.count >= 2 else { return "it has no Area/Location form" }
        for component in components {
            guard !component.isEmpty else { return "a component is empty" }
            guard component.count <= 32 else { return "a component is longer than 32 characters" }
            guard component.first != UInt8(ascii: "-") else { return "a component starts with \"-\"" }
            guard component.elementsEqual(".".utf8) == false, component.elementsEqual("..".utf8) == false else {
                return "a component is \".\" or \"..\""
            }
            for byte in component {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "+"),
                    UInt8(ascii: "."):
                    continue
                default:
                    return "it holds a character other than letters, digits, \"/\", \"_\", \"-\", \"+\" and \".\""
                }
            }
        }
        return nil
    }
}

/// The zones looked up so far, so that finding a zone's rules costs one dictionary lookup after
/// the first time. The names tried are bounded, so hostile input cannot grow the cache.
private final class ZoneCache: @unchecked Sendable {
    static let shared = ZoneCache()

    private let lock = NSLock()
    private var zones: [String: TimeZone] = [:]
    private var unknown: Set<String> = []

    func zone(_ identifier: String) -> TimeZone? {
        lock.lock()
        defer { lock.unlock() }
        if let zone = zones[identifier] { return zone }
        if unknown.contains(identifier) { return nil }
        let zone =
            identifier == "UTC" || identifier == "GMT" ? TimeZone(secondsFromGMT: 0) : TimeZone(identifier: identifier)
        if let zone {
            if zones.count < 2_000 { zones[identifier] = zone }
        } else if unknown.count < 2_000 {
            unknown.insert(identifier)
        }
        return zone
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
