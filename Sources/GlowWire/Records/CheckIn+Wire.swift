import GlowModel

extension CheckIn: WireRecord {
    package func encodeFields(to writer: inout WireWriter) {
        writer.bytes(1, goalID.bytes)
        writer.sint(2, Int64(day.daysSince1970))
        switch log {
        case .done: writer.presentUInt(3, 1)
        case .skip: writer.presentUInt(4, 1)
        case .amount(let amount): writer.presentSInt(5, amount.thousandths)
        case .tally(let count): writer.presentUInt(6, UInt64(count))
        case .items(let items): writer.presentBytes(7, items.sorted().flatMap(\.bytes))
        case .value(let value): writer.presentSInt(8, value.thousandths)
        }
        writer.sint(9, firstRecordedAt.millisecondsSince1970)
        writer.sint(10, lastRecordedAt.millisecondsSince1970)
        writer.string(11, timeZone.identifier)
        writer.bytes(12, deviceID.bytes)
        if let note { writer.presentString(13, note) }
        writer.sint(14, modifiedAt.millisecondsSince1970)
        writer.bool(15, deleted)
        if !isCompact {
            // WIRE-28: the taps decide; the fields above describe them to readers that do not
            // know taps.
            for tap in taps {
                writer.message(16) { TapWire.encode(tap, to: &$0) }
            }
            if let noteAt { writer.presentSInt(17, noteAt.millisecondsSince1970) }
        }
        writer.raw(unknownFields.bytes)
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> CheckIn {
        let start = reader.offset
        var goalID: GoalID?
        var day = Day(unchecked: 0)
        var log: CheckInLog?
        var first = Instant.epoch
        var last = Instant.epoch
        var zone = ""
        var device: DeviceID?
        var note: String?
        var modified = Instant.epoch
        var deleted = false
        var taps: [Tap] = []
        var noteAt: Instant?
        var unknown: [UInt8] = []
        try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
            switch f.number {
            case 1: goalID = try r.readID(f)
            case 2: day = try r.readDay(f)
            case 3:
                _ = try r.readBool(f)
                log = .done
            case 4:
                _ = try r.readBool(f)
                log = .skip
            case 5: log = .amount(try r.readAmount(f))
            case 6: log = .tally(try r.readUInt32(f))
            case 7: log = .items(try r.readItems(f))
            case 8: log = .value(try r.readAmount(f))
            case 9: first = try r.readInstant(f)
            case 10: last = try r.readInstant(f)
            case 11: zone = try r.readString(f)
            case 12: device = try r.readID(f)
            case 13: note = try r.readString(f)
            case 14: modified = try r.readInstant(f)
            case 15: deleted = try r.readBool(f)
            case 16:
                try r.expect(f, .lengthDelimited)
                guard taps.count < CheckIn.tapLimit else {
                    throw WireError(
                        .limitExceeded, at: f.start, "more than \(CheckIn.tapLimit) taps", rule: "WIRE-28")
                }
                taps.append(
                    try r.nested { (t: inout WireReader) throws(WireError) in
                        try TapWire.decode(from: &t)
                    })
            case 17: noteAt = try r.readInstant(f)
            default: return false
            }
            return true
        }
        guard let goalID else {
            throw WireError(.invalidValue, at: start, "a check-in needs a goal id", rule: "WIRE-16")
        }
        var checkIn: CheckIn
        if !taps.isEmpty {
            // WIRE-28: the taps decide; the compact fields only describe them.
            checkIn = try reader.validated(at: start) { () throws(ModelError) in
                try CheckIn(goalID: goalID, day: day, taps: taps, note: note, noteAt: noteAt, modifiedAt: modified)
            }
        } else {
            guard let device, let log else {
                throw WireError(
                    .invalidValue, at: start, "a check-in needs a goal id, a device id and a log", rule: "WIRE-16")
            }
            checkIn = try reader.validated(at: start) { () throws(ModelError) in
                try CheckIn(
                    goalID: goalID, day: day, log: log, firstRecordedAt: first, lastRecordedAt: last,
                    timeZone: try TimeZoneID(zone), deviceID: device, note: note, modifiedAt: modified,
                    deleted: deleted)
            }
        }
        checkIn.unknownFields = UnknownFields(bytes: unknown)
        return checkIn
    }
}
