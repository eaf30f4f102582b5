import GlowModel

/// The `kind` oneof of Goal and GoalDraft: seven fields from `base` in the order single,
/// subgoals, progress, value, tally, countdown, streak.
struct KindFields {
    let base: UInt32

    func encode(_ kind: GoalKind, to writer: inout WireWriter) {
        switch kind {
        case .single: writer.presentUInt(base, 1)
        case .subgoals(let config):
            writer.message(base + 1) { w in
                for item in config.items {
                    w.message(1) { item.encodeFields(to: &$0) }
                }
                w.bool(2, config.recurring)
                w.raw(config.unknownFields.bytes)
            }
        case .progress(let config):
            writer.message(base + 2) { w in
                w.sint(1, config.target.thousandths)
                w.string(2, config.unit)
                w.raw(config.unknownFields.bytes)
            }
        case .value(let config):
            writer.message(base + 3) { w in
                w.string(1, config.unit)
                if let target = config.target {
                    w.message(2) { t in
                        t.enumeration(1, target.comparison == .atMost ? 1 : 0, open: target.unknownFields.enumValues)
                        t.sint(2, target.amount.thousandths)
                        t.raw(target.unknownFields.bytes)
                    }
                }
                w.raw(config.unknownFields.bytes)
            }
        case .tally(let config):
            writer.message(base + 4) { w in
                w.uint(1, UInt64(config.dailyTarget))
                w.string(2, config.unit)
                w.raw(config.unknownFields.bytes)
            }
        case .countdown(let config):
            writer.message(base + 5) { w in
                w.sint(1, Int64(config.targetDay.daysSince1970))
                w.raw(config.unknownFields.bytes)
            }
        case .streak: writer.presentUInt(base + 6, 1)
        }
    }

    /// Decodes one field of the oneof into `kind`; a sub-message of the same alternative given
    /// twice merges into it (WIRE-6). Returns false for a field outside the oneof.
    func decode(_ field: WireReader.Field, from reader: inout WireReader, into kind: inout GoalKind?) throws(WireError)
        -> Bool
    {
        guard field.number >= base, field.number <= base + 6 else { return false }
        switch field.number - base {
        case 0:
            _ = try reader.readBool(field)
            kind = .single
        case 6:
            _ = try reader.readBool(field)
            kind = .streak
        case 1:
            guard case .subgoals(var config)? = kind else {
                kind = .subgoals(SubgoalsConfig(items: [], recurring: false))
                return try decode(field, from: &reader, into: &kind)
            }
            try Self.merge(field, &reader, into: &config, \.unknownFields) { (r, f, c) throws(WireError) in
                switch f.number {
                case 1:
                    try r.expect(f, .lengthDelimited)
                    c.items.append(
                        try r.nested { (inner: inout WireReader) throws(WireError) in
                            try SubgoalItem.decode(from: &inner)
                        })
                case 2: c.recurring = try r.readBool(f)
                default: return false
                }
                return true
            }
            kind = .subgoals(config)
        case 2:
            guard case .progress(var config)? = kind else {
                kind = .progress(ProgressConfig(target: .zero, unit: ""))
                return try decode(field, from: &reader, into: &kind)
            }
            try Self.merge(field, &reader, into: &config, \.unknownFields) { (r, f, c) throws(WireError) in
                switch f.number {
                case 1: c.target = try r.readAmount(f)
                case 2: c.unit = try r.readString(f)
                default: return false
                }
                return true
            }
            kind = .progress(config)
        case 3:
            guard case .value(var config)? = kind else {
                kind = .value(ValueConfig(unit: "", target: nil))
                return try decode(field, from: &reader, into: &kind)
            }
            try Self.merge(field, &reader, into: &config, \.unknownFields) { (r, f, c) throws(WireError) in
                switch f.number {
                case 1: c.unit = try r.readString(f)
                case 2:
                    var target = c.target ?? ValueTarget(comparison: .atLeast, amount: .zero)
                    try Self.decodeTarget(f, &r, into: &target)
                    c.target = target
                default: return false
                }
                return true
            }
            kind = .value(config)
        case 4:
            guard case .tally(var config)? = kind else {
                kind = .tally(TallyConfig(dailyTarget: 0, unit: ""))
                return try decode(field, from: &reader, into: &kind)
            }
            try Self.merge(field, &reader, into: &config, \.unknownFields) { (r, f, c) throws(WireError) in
                switch f.number {
                case 1: c.dailyTarget = try r.readUInt32(f)
                case 2: c.unit = try r.readString(f)
                default: return false
                }
                return true
            }
            kind = .tally(config)
        default:
            guard case .countdown(var config)? = kind else {
                kind = .countdown(CountdownConfig(targetDay: Day(unchecked: 0)))
                return try decode(field, from: &reader, into: &kind)
            }
            try Self.merge(field, &reader, into: &config, \.unknownFields) { (r, f, c) throws(WireError) in
                guard f.number == 1 else { return false }
                c.targetDay = try r.readDay(f)
                return true
            }
            kind = .countdown(config)
        }
        return true
    }

    /// Reads one alternative's sub-message into `config`, over what earlier occurrences gave
    /// (WIRE-6): `member` reads the fields it knows, and the others join the unknown fields.
    private static func merge<Config>(
        _ field: WireReader.Field, _ reader: inout WireReader, into config: inout Config,
        _ unknownFields: WritableKeyPath<Config, UnknownFields>,
        _ member: (inout WireReader, WireReader.Field, inout Config) throws(WireError) -> Bool
    ) throws(WireError) {
        try reader.expect(field, .lengthDelimited)
        var unknown = config[keyPath: unknownFields].bytes
        var result = config
        try reader.nested { (r: inout WireReader) throws(WireError) in
            try r.forEachField(unknown: &unknown) { (r, f) throws(WireError) in try member(&r, f, &result) }
        }
        result[keyPath: unknownFields].bytes = unknown
        config = result
    }

    /// A value goal's target (WIRE-7: an unknown comparison is kept in the target's unknown fields).
    private static func decodeTarget(
        _ field: WireReader.Field, _ reader: inout WireReader, into target: inout ValueTarget
    )
        throws(WireError)
    {
        var openEnums = target.unknownFields.enumValues
        try merge(field, &reader, into: &target, \.unknownFields) { (t, g, target) throws(WireError) in
            switch g.number {
            case 1:
                target.comparison =
                    try t.readEnum(g, open: &openEnums) { $0 == 0 ? .atLeast : $0 == 1 ? .atMost : nil } ?? .atLeast
            case 2: target.amount = try t.readAmount(g)
            default: return false
            }
            return true
        }
        target.unknownFields.enumValues = openEnums
    }
}

extension SubgoalItem {
    func encodeFields(to writer: inout WireWriter) {
        writer.bytes(1, id.bytes)
        writer.string(2, title)
        writer.raw(unknownFields.bytes)
    }

    static func decode(from reader: inout WireReader) throws(WireError) -> SubgoalItem {
        var item = SubgoalItem(id: SubgoalItemID(high: 0, low: 0), title: "")
        var sawID = false
        let start = reader.offset
        try reader.forEachField(unknown: &item.unknownFields.bytes) { (r, f) throws(WireError) in
            switch f.number {
            case 1:
                item.id = try r.readID(f)
                sawID = true
            case 2: item.title = try r.readString(f)
            default: return false
            }
            return true
        }
        guard sawID else {
            throw WireError(.invalidValue, at: start, "a checklist item has no identifier", rule: "WIRE-17")
        }
        return item
    }
}

/// The schedule-rule oneof of ScheduleEntry and GoalDraft: five fields from `base` in the order
/// daily, weekdays, times per week, times per month, every N days.
struct RuleFields {
    let base: UInt32

    func encode(_ rule: ScheduleRule, to writer: inout WireWriter) {
        switch rule {
        case .daily: writer.presentUInt(base, 1)
        case .weekdays(let days):
            writer.presentUInt(base + 1, WireReader.weekdayBits(days))
        case .timesPerWeek(let times): writer.presentUInt(base + 2, UInt64(times))
        case .timesPerMonth(let times): writer.presentUInt(base + 3, UInt64(times))
        case .everyNDays(let interval): writer.presentUInt(base + 4, UInt64(interval))
        }
    }

    func decode(_ field: WireReader.Field, from reader: inout WireReader, into rule: inout ScheduleRule?)
        throws(WireError)
        -> Bool
    {
        guard field.number >= base, field.number <= base + 4 else { return false }
        switch field.number - base {
        case 0:
            _ = try reader.readBool(field)
            rule = .daily
        case 1:
            rule = .weekdays(try reader.readWeekdays(field))
        case 2: rule = .timesPerWeek(try reader.readUInt32(field))
        case 3: rule = .timesPerMonth(try reader.readUInt32(field))
        default: rule = .everyNDays(try reader.readUInt32(field))
        }
        return true
    }
}

extension WireReader {
    /// A weekday set as a bit set: bit 0 Monday ... bit 6 Sunday (WIRE-17).
    static func weekdayBits(_ days: Set<Weekday>) -> UInt64 {
        days.reduce(0) { $0 | 1 << UInt64($1.isoNumber - 1) }
    }

    /// A weekday bit set; a bit above bit 6 is refused at the field (WIRE-17).
    mutating func readWeekdays(_ field: Field) throws(WireError) -> Set<Weekday> {
        let mask = try readUInt32(field)
        guard mask < 1 << 7 else {
            throw WireError(.invalidValue, at: field.start, "weekday bits above bit 6 are set", rule: "WIRE-17")
        }
        return Set(Weekday.allCases.filter { mask & 1 << ($0.isoNumber - 1) != 0 })
    }
}
