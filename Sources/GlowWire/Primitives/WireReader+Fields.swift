import GlowModel

extension WireReader {
    /// Reads every field of the current message. `handle` returns false for a field it does not
    /// know (or a value it cannot represent), and that field's bytes go to `unknown`, in order
    /// (WIRE-7).
    package mutating func forEachField(
        unknown: inout [UInt8], _ handle: (inout WireReader, Field) throws(WireError) -> Bool
    ) throws(WireError) {
        while let field = try next() {
            let afterTag = offset
            if try handle(&self, field) { continue }
            if offset == afterTag { try skip(field) }
            append(field.start..<offset, to: &unknown)
        }
    }

    /// Checks that a known field came with the wire type its declaration gives (WIRE-12).
    package func expect(_ field: Field, _ type: WireType) throws(WireError) {
        guard field.type == type else {
            throw WireError(
                .invalidWireType, at: field.start,
                "field \(field.number) has wire type \(field.type.rawValue), expected \(type.rawValue)",
                rule: "WIRE-12")
        }
    }

    package mutating func readUInt(_ field: Field) throws(WireError) -> UInt64 {
        try expect(field, .varint)
        return try varint()
    }

    /// A `uint32` field as an Int; values above 2^32 − 1 are refused, not truncated (WIRE-16).
    package mutating func readUInt32(_ field: Field) throws(WireError) -> Int {
        let value = try readUInt(field)
        guard value <= UInt64(UInt32.max) else {
            throw WireError(.invalidValue, at: field.start, "\(value) does not fit a uint32", rule: "WIRE-16")
        }
        return Int(value)
    }

    /// An enum field (WIRE-7): the case `known` names for the number, or nil, the number then kept
    /// in `open` so it is written back in its field's place (proto3 enums are open). The last
    /// value given wins, known or not (WIRE-6). A number that is not an `int32` is refused.
    package mutating func readEnum<T>(
        _ field: Field, open: inout [UInt32: UInt64], _ known: (UInt64) -> T?
    ) throws(WireError) -> T? {
        let raw = try readUInt(field)
        // int32 values: 0 ... 2^31 - 1, and negatives sign-extended to 64 bits.
        guard raw <= UInt64(Int32.max) || raw >= UInt64(bitPattern: Int64(Int32.min)) else {
            throw WireError(.invalidValue, at: field.start, "enum value \(raw) is not an int32", rule: "WIRE-16")
        }
        if let value = known(raw) {
            open[field.number] = nil
            return value
        }
        open[field.number] = raw
        return nil
    }

    package mutating func readSInt(_ field: Field) throws(WireError) -> Int64 {
        unzigzag(try readUInt(field))
    }

    package mutating func readBool(_ field: Field) throws(WireError) -> Bool {
        try readUInt(field) != 0
    }

    package mutating func readString(_ field: Field) throws(WireError) -> String {
        try expect(field, .lengthDelimited)
        return try string(try lengthDelimited())
    }

    package mutating func readBytes(_ field: Field) throws(WireError) -> [UInt8] {
        try expect(field, .lengthDelimited)
        return bytes(try lengthDelimited())
    }

    /// A 16-byte big-endian identifier (WIRE-17).
    package mutating func readID<Kind: IdentifierKind>(_ field: Field) throws(WireError) -> Identifier<Kind> {
        let raw = try readBytes(field)
        guard raw.count == 16 else {
            throw WireError(
                .invalidValue, at: field.start, "an identifier has \(raw.count) bytes, not 16", rule: "WIRE-17")
        }
        return Identifier(bytes: raw)
    }

    /// A Day as sint32 days since 1970-01-01, in the supported range (WIRE-17).
    package mutating func readDay(_ field: Field) throws(WireError) -> Day {
        try day(try readSInt(field), at: field.start)
    }

    package func day(_ value: Int64, at offset: Int) throws(WireError) -> Day {
        guard let number = Int(exactly: value), let day = try? Day(daysSince1970: number) else {
            throw WireError(.invalidValue, at: offset, "day \(value) is outside years 1...9999", rule: "WIRE-17")
        }
        return day
    }

    /// An instant as sint64 milliseconds, in the supported range (WIRE-17).
    package mutating func readInstant(_ field: Field) throws(WireError) -> Instant {
        guard let instant = try? Instant(millisecondsSince1970: try readSInt(field)) else {
            throw WireError(.invalidValue, at: field.start, "an instant is outside years 1...9999", rule: "WIRE-17")
        }
        return instant
    }

    /// An amount as sint64 thousandths (WIRE-17).
    package mutating func readAmount(_ field: Field) throws(WireError) -> Amount {
        let value = try readSInt(field)
        guard let amount = try? Amount(thousandths: value) else {
            throw WireError(.invalidValue, at: field.start, "amount \(value) is beyond the limit", rule: "WIRE-17")
        }
        return amount
    }

    /// A repeated varint field, packed or not (WIRE-6).
    package mutating func readRepeated(_ field: Field, _ each: (UInt64) throws(WireError) -> Void) throws(WireError) {
        switch field.type {
        case .varint:
            try each(try varint())
        case .lengthDelimited:
            try nestedPacked(each)
        default:
            try expect(field, .varint)
        }
    }

    /// A repeated varint field appended to `values`, packed or not (WIRE-6); a packed run is
    /// read in one tight loop, the first run into room reserved for at most one value per byte.
    ///
    /// - Throws: ``WireError/Code/limitExceeded`` at the field once `values` would hold more than
    ///   `limit` values; room is never reserved beyond the limit (WIRE-18).
    package mutating func readRepeated(_ field: Field, into values: inout [UInt64], limit: Int) throws(WireError) {
        try readRepeated(field, into: &values, limit: limit) { $0 }
    }

    /// The same for a `sint64` field, unzigzagged.
    package mutating func readRepeated(_ field: Field, into values: inout [Int64], limit: Int) throws(WireError) {
        try readRepeated(field, into: &values, limit: limit) { unzigzag($0) }
    }

    @inline(__always)
    private mutating func readRepeated<T>(
        _ field: Field, into values: inout [T], limit: Int, _ transform: (UInt64) -> T
    ) throws(WireError) {
        func tooMany() -> WireError {
            WireError(
                .limitExceeded, at: field.start, "a column holds more than \(limit) values", rule: "WIRE-25")
        }
        guard field.type == .lengthDelimited else {
            try readRepeated(field) { (value) throws(WireError) in
                guard values.count < limit else { throw tooMany() }
                values.append(transform(value))
            }
            return
        }
        let range = try lengthDelimited()
        // The usual case: one run per column, at most a value per byte, within the limit.
        if values.isEmpty, range.count <= limit {
            values = try packedRun(range, transform)
            return
        }
        var inner = self
        inner.restrict(to: range)
        // Reserved only for the first run: a field split into many runs then grows geometrically
        // by append, where reserving each run exactly would copy the column once per run.
        if values.isEmpty { values.reserveCapacity(Swift.min(range.count, limit)) }
        // A run holds at most one value per byte: when that fits the limit, no value can pass it.
        if values.count <= limit - range.count {
            while !inner.isAtEnd { values.append(transform(try inner.varint())) }
            return
        }
        while !inner.isAtEnd {
            guard values.count < limit else { throw tooMany() }
            values.append(transform(try inner.varint()))
        }
    }

    private mutating func nestedPacked(_ each: (UInt64) throws(WireError) -> Void) throws(WireError) {
        let range = try lengthDelimited()
        var inner = self
        inner.restrict(to: range)
        while !inner.isAtEnd { try each(try inner.varint()) }
    }
}
