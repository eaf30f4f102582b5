import GlowModel

private let goalKinds = KindFields(base: 5)
private let entryRules = RuleFields(base: 2)

extension Goal: WireRecord {
    package func encodeFields(to writer: inout WireWriter) {
        writer.bytes(1, id.bytes)
        writer.string(2, title)
        if let emoji { writer.presentString(3, emoji) }
        if let note { writer.presentString(4, note) }
        goalKinds.encode(kind, to: &writer)
        for entry in schedule?.entries ?? [] {
            writer.message(12) { w in
                w.sint(1, Int64(entry.effective.daysSince1970))
                entryRules.encode(entry.rule, to: &w)
                w.raw(entry.unknownFields.bytes)
            }
        }
        writer.sint(13, Int64(startDay.daysSince1970))
        if let endDay { writer.presentSInt(14, Int64(endDay.daysSince1970)) }
        for period in archiveHistory {
            writer.message(15) { w in
                w.sint(1, Int64(period.from.daysSince1970))
                if let until = period.until { w.presentSInt(2, Int64(until.daysSince1970)) }
                w.raw(period.unknownFields.bytes)
            }
        }
        if let forgiveness { writer.message(16) { forgiveness.encodeFields(to: &$0) } }
        writer.enumeration(17, visibility.wireNumber, open: unknownFields.enumValues)
        if let templateID { writer.bytes(18, templateID.bytes) }
        writer.sint(19, createdAt.millisecondsSince1970)
        writer.sint(20, modifiedAt.millisecondsSince1970)
        writer.bool(21, deleted)
        if let reminders { writer.message(22) { reminders.encodeFields(to: &$0) } }
        writer.raw(unknownFields.bytes)
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> Goal {
        let start = reader.offset
        var id: GoalID?
        var title = ""
        var emoji: String?
        var note: String?
        var kind: GoalKind?
        var entries: [Schedule.Entry] = []
        var startDay = Day(unchecked: 0)
        var endDay: Day?
        var archive: [ArchivePeriod] = []
        var forgiveness: Forgiveness?
        var visibility = Visibility.private
        var templateID: TemplateID?
        var createdAt = Instant.epoch
        var modifiedAt = Instant.epoch
        var deleted = false
        var reminders: (fields: GoalReminders.Fields, start: Int)?
        var unknown: [UInt8] = []
        var openEnums: [UInt32: UInt64] = [:]
        try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
            if try goalKinds.decode(f, from: &r, into: &kind) { return true }
            switch f.number {
            case 1: id = try r.readID(f)
            case 2: title = try r.readString(f)
            case 3: emoji = try r.readString(f)
            case 4: note = try r.readString(f)
            case 12:
                try r.expect(f, .lengthDelimited)
                entries.append(
                    try r.nested { (e: inout WireReader) throws(WireError) in try Schedule.Entry.decode(from: &e) })
            case 13: startDay = try r.readDay(f)
            case 14: endDay = try r.readDay(f)
            case 15:
                try r.expect(f, .lengthDelimited)
                archive.append(
                    try r.nested { (a: inout WireReader) throws(WireError) in try ArchivePeriod.decode(from: &a) })
            case 16:
                forgiveness = try Forgiveness.merging(forgiveness, f, from: &r)
            case 17: visibility = try r.readEnum(f, open: &openEnums, Visibility.init(wireNumber:)) ?? .private
            case 18: templateID = try r.readID(f)
            case 19: createdAt = try r.readInstant(f)
            case 20: modifiedAt = try r.readInstant(f)
            case 21: deleted = try r.readBool(f)
            case 22: reminders = try r.merging(reminders, f)
            default: return false
            }
            return true
        }
        guard let id else { throw WireError(.invalidValue, at: start, "a goal has no id", rule: "WIRE-16") }
        guard let kind else {
            throw WireError(.invalidValue, at: start, "a goal has no kind this version knows", rule: "WIRE-16")
        }
        let settings = try reminders.map { (read) throws(WireError) in try read.fields.make(reader, at: read.start) }
        var goal = try reader.validated(at: start) { () throws(ModelError) in
            try Goal(
                id: id, title: title, emoji: emoji, note: note, kind: kind,
                schedule: entries.isEmpty ? nil : try Schedule(entries: entries), startDay: startDay, endDay: endDay,
                archiveHistory: archive, forgiveness: forgiveness, visibility: visibility, reminders: settings,
                templateID: templateID, createdAt: createdAt, modifiedAt: modifiedAt, deleted: deleted)
        }
        goal.unknownFields = UnknownFields(bytes: unknown)
        goal.unknownFields.enumValues = openEnums
        return goal
    }
}

extension Schedule.Entry {
    static func decode(from reader: inout WireReader) throws(WireError) -> Schedule.Entry {
        let start = reader.offset
        var effective = Day(unchecked: 0)
        var rule: ScheduleRule?
        var unknown: [UInt8] = []
        try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
            if try entryRules.decode(f, from: &r, into: &rule) { return true }
            guard f.number == 1 else { return false }
            effective = try r.readDay(f)
            return true
        }
        guard let rule else {
            throw WireError(
                .invalidValue, at: start, "a schedule entry has no rule this version knows", rule: "WIRE-16")
        }
        var entry = Schedule.Entry(effective: effective, rule: rule)
        entry.unknownFields = UnknownFields(bytes: unknown)
        return entry
    }
}

extension ArchivePeriod {
    static func decode(from reader: inout WireReader) throws(WireError) -> ArchivePeriod {
        var period = ArchivePeriod(from: Day(unchecked: 0))
        try reader.forEachField(unknown: &period.unknownFields.bytes) { (r, f) throws(WireError) in
            switch f.number {
            case 1: period.from = try r.readDay(f)
            case 2: period.until = try r.readDay(f)
            default: return false
            }
            return true
        }
        return period
    }
}

extension Forgiveness {
    func encodeFields(to writer: inout WireWriter) {
        writer.uint(1, UInt64(allowance))
        writer.enumeration(2, period == .month ? 1 : 0, open: unknownFields.enumValues)
        writer.raw(unknownFields.bytes)
    }

    /// Reads a Forgiveness field, merged onto the one already read, if any (WIRE-6).
    static func merging(_ existing: Forgiveness?, _ field: WireReader.Field, from reader: inout WireReader)
        throws(WireError) -> Forgiveness
    {
        try reader.expect(field, .lengthDelimited)
        var merged = existing ?? Forgiveness(allowance: 0, period: .week)
        try reader.nested { (inner: inout WireReader) throws(WireError) in try merged.decodeFields(from: &inner) }
        return merged
    }

    mutating func decodeFields(from reader: inout WireReader) throws(WireError) {
        // Read into locals: the unknown bytes and the open enum values are both in unknownFields.
        var unknown = unknownFields.bytes
        var openEnums = unknownFields.enumValues
        var allowance = self.allowance
        var period = self.period
        try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
            switch f.number {
            case 1: allowance = try r.readUInt32(f)
            case 2:
                period = try r.readEnum(f, open: &openEnums) { $0 == 0 ? .week : $0 == 1 ? .month : nil } ?? .week
            default: return false
            }
            return true
        }
        self.allowance = allowance
        self.period = period
        unknownFields.bytes = unknown
        unknownFields.enumValues = openEnums
    }
}

extension Visibility {
    package var wireNumber: UInt64 {
        switch self {
        case .private: 0
        case .friends: 1
        case .public: 2
        }
    }

    package init?(wireNumber: UInt64) {
        switch wireNumber {
        case 0: self = .private
        case 1: self = .friends
        case 2: self = .public
        default: return nil
        }
    }
}
