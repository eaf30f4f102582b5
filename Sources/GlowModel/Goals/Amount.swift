/// An exact decimal quantity with three fraction digits, stored as an integer count of
/// thousandths (MODEL-17).
///
/// Amounts are summed across many check-ins (litres drunk, pages read); binary floating point
/// would drift (0.1 + 0.2 ≠ 0.3), so amounts are fixed-point and every sum is exact. Three
/// digits cover grams per kilogram, millilitres per litre and metres per kilometre. JSON carries
/// an amount as a decimal string such as `"2.5"`, because many JSON parsers read numbers as binary
/// doubles.
public struct Amount: Hashable, Comparable, Sendable {
    /// The amount in thousandths: `2.5` is 2500.
    public let thousandths: Int64

    /// The largest magnitude an amount may have: 999,999,999,999.999, so sums of a
    /// lifetime of entries cannot overflow.
    public static let limit: Int64 = 999_999_999_999_999

    /// Zero.
    public static let zero = Amount(uncheckedThousandths: 0)

    package init(uncheckedThousandths: Int64) {
        self.thousandths = uncheckedThousandths
    }

    /// The amount with this many thousandths.
    ///
    /// - Throws: ``ModelError/Code/invalidAmount`` beyond ±``limit``.
    public init(thousandths: Int64) throws(ModelError) {
        guard -Amount.limit...Amount.limit ~= thousandths else {
            throw ModelError(.invalidAmount, "\(thousandths) thousandths is beyond the amount limit", rule: "MODEL-17")
        }
        self.thousandths = thousandths
    }

    /// A whole amount.
    public init(_ whole: Int) throws(ModelError) {
        let (product, overflow) = Int64(whole).multipliedReportingOverflow(by: 1000)
        guard !overflow else {
            throw ModelError(.invalidAmount, "\(whole) is beyond the amount limit", rule: "MODEL-17")
        }
        try self.init(thousandths: product)
    }

    /// Parses `-?digits(.digits)?` with at most three fraction digits, such as `2.5` or `-0.125`.
    ///
    /// No exponent, no leading `+`, no leading or trailing dot, no spaces.
    /// - Throws: ``ModelError/Code/invalidAmount``.
    public init(parsing text: String) throws(ModelError) {
        let bytes = Array(text.utf8)
        func fail(_ why: String) -> ModelError {
            ModelError(.invalidAmount, "\"\(text)\" is not an amount: \(why)", rule: "MODEL-17")
        }
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        var whole: Int64 = 0
        var wholeDigits = 0
        while index < bytes.count, (48...57).contains(bytes[index]) {
            guard wholeDigits < 12 else { throw fail("more than 12 whole digits") }
            whole = whole * 10 + Int64(bytes[index] - 48)
            wholeDigits += 1
            index += 1
        }
        guard wholeDigits > 0 else { throw fail("expected a digit") }
        var fraction: Int64 = 0
        var fractionDigits = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, (48...57).contains(bytes[index]) {
                guard fractionDigits < 3 else { throw fail("more than three fraction digits") }
                fraction = fraction * 10 + Int64(bytes[index] - 48)
                fractionDigits += 1
                index += 1
            }
            guard fractionDigits > 0 else { throw fail("a dot needs digits after it") }
        }
        guard index == bytes.count else { throw fail("unexpected character at offset \(index)") }
        for _ in fractionDigits..<3 { fraction *= 10 }
        let magnitude = whole * 1000 + fraction
        try self.init(thousandths: negative ? -magnitude : magnitude)
    }

    /// The sum, or an error when it passes the limit.
    public func adding(_ other: Amount) throws(ModelError) -> Amount {
        try Amount(thousandths: thousandths + other.thousandths)
    }

    /// Orders amounts by value.
    public static func < (lhs: Amount, rhs: Amount) -> Bool { lhs.thousandths < rhs.thousandths }
}

extension Amount: CustomStringConvertible {
    /// The shortest exact decimal text: `2.5`, `-0.125`, `3`.
    public var description: String {
        let magnitude = thousandths.magnitude
        var text = (thousandths < 0 ? "-" : "") + String(magnitude / 1000)
        var fraction = magnitude % 1000
        if fraction != 0 {
            var digits = 3
            while fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
            text += "." + Day.pad(Int(fraction), digits)
        }
        return text
    }
}

extension Amount: Codable {
    /// Decodes a decimal string.
    public init(from decoder: any Decoder) throws {
        self = try decodeText(from: decoder) { (text: String) throws(ModelError) in try Amount(parsing: text) }
    }

    /// Encodes the shortest exact decimal string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
