import GlowModel

/// The `Tap` message of a single `CheckIn` (WIRE-28): the tap's device, sequence, instant (in
/// milliseconds since the epoch), span, time zone and action. Blocks carry taps as columns instead
/// (CheckInBlock+Taps.swift).
enum TapWire {
    static func encode(_ tap: Tap, to writer: inout WireWriter) {
        writer.bytes(1, tap.deviceID.bytes)
        writer.uint(2, UInt64(tap.sequence))
        writer.sint(3, tap.at.millisecondsSince1970)
        writer.uint(4, UInt64(tap.at.millisecondsSince1970 - tap.firstAt.millisecondsSince1970))
        writer.string(5, tap.timeZone.identifier)
        switch tap.action {
        case .done: writer.presentUInt(6, 1)
        case .skip: writer.presentUInt(7, 1)
        case .add(let amount): writer.presentSInt(8, amount.thousandths)
        case .count(let delta): writer.presentSInt(9, Int64(delta))
        case .check(let items): writer.presentBytes(10, items.sorted().flatMap(\.bytes))
        case .uncheck(let items): writer.presentBytes(11, items.sorted().flatMap(\.bytes))
        case .value(let value): writer.presentSInt(12, value.thousandths)
        case .undo: writer.presentUInt(13, 1)
        }
    }

    /// Reads one `Tap` message.
    static func decode(from reader: inout WireReader) throws(WireError) -> Tap {
        let start = reader.offset
        var device: DeviceID?
        var sequence = 0
        var at: Int64?
        var span: UInt64 = 0
        var zone: TimeZoneID?
        var action: Tap.Action?
        var unknown: [UInt8] = []
        try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
            switch f.number {
            case 1: device = try r.readID(f)
            case 2: sequence = try r.readUInt32(f)
            case 3: at = try r.readSInt(f)
            case 4: span = try r.readUInt(f)
            case 5:
                let name = try r.readString(f)
                zone = try r.validated(at: f.start) { () throws(ModelError) in try TimeZoneID(name) }
            case 6:
                _ = try r.readBool(f)
                action = .done
            case 7:
                _ = try r.readBool(f)
                action = .skip
            case 8: action = .add(try r.readAmount(f))
            case 9: action = .count(try r.readCount(f))
            case 10: action = .check(try r.readItems(f))
            case 11: action = .uncheck(try r.readItems(f))
            case 12: action = .value(try r.readAmount(f))
            case 13:
                _ = try r.readBool(f)
                action = .undo
            default: return false
            }
            return true
        }
        guard let device, let at, let zone, let action else {
            throw WireError(
                .invalidValue, at: start, "a tap needs a device, an instant, a time zone and an action",
                rule: "WIRE-28")
        }
        guard span <= UInt64(Int64.max), let instant = try? Instant(millisecondsSince1970: at),
            let first = try? instant.adding(milliseconds: -Int64(span))
        else {
            throw WireError(.invalidValue, at: start, "a tap's instants are outside years 1...9999", rule: "WIRE-28")
        }
        return try reader.validated(at: start) { () throws(ModelError) in
            try Tap(deviceID: device, sequence: sequence, at: instant, firstAt: first, timeZone: zone, action: action)
        }
    }
}

extension WireReader {
    /// A tally delta as `sint64`, within the range of `Int`.
    package mutating func readCount(_ field: Field) throws(WireError) -> Int {
        Int(try readSInt(field))
    }

    /// Checked items: a whole number of distinct 16-byte identifiers (WIRE-17).
    package mutating func readItems(_ field: Field) throws(WireError) -> Set<SubgoalItemID> {
        let raw = try readBytes(field)
        guard raw.count % 16 == 0 else {
            throw WireError(
                .invalidValue, at: field.start, "items are not a whole number of 16-byte ids", rule: "WIRE-17")
        }
        let ids = stride(from: 0, to: raw.count, by: 16).map { SubgoalItemID(bytes: Array(raw[$0..<($0 + 16)])) }
        let set = Set(ids)
        guard set.count == ids.count else {
            throw WireError(.invalidValue, at: field.start, "an item is listed twice", rule: "WIRE-17")
        }
        return set
    }
}
