/// A day of the week, Monday first as in ISO 8601 (MODEL-4).
public enum Weekday: String, CaseIterable, Hashable, Comparable, Sendable, Codable {
    /// Monday, ISO number 1.
    case monday
    /// Tuesday, ISO number 2.
    case tuesday
    /// Wednesday, ISO number 3.
    case wednesday
    /// Thursday, ISO number 4.
    case thursday
    /// Friday, ISO number 5.
    case friday
    /// Saturday, ISO number 6.
    case saturday
    /// Sunday, ISO number 7.
    case sunday

    /// The ISO 8601 number: Monday 1 ... Sunday 7.
    public var isoNumber: Int { Weekday.allCases.firstIndex(of: self)! + 1 }

    /// The weekday with this ISO number, or nil outside 1...7.
    public init?(isoNumber: Int) {
        guard (1...7).contains(isoNumber) else { return nil }
        self = Weekday.allCases[isoNumber - 1]
    }

    /// Orders weekdays Monday first.
    public static func < (lhs: Weekday, rhs: Weekday) -> Bool {
        lhs.isoNumber < rhs.isoNumber
    }

    /// Decodes a lowercase English weekday name; any other name is an unknown enum case.
    public init(from decoder: any Decoder) throws {
        self = try decodeEnumName(Weekday.self, from: decoder)
    }
}
