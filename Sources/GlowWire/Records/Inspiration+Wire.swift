import GlowModel

private let draftKinds = KindFields(base: 4)
private let draftRules = RuleFields(base: 11)

extension GoalDraft: WireRecord {
    package func encodeFields(to writer: inout WireWriter) {
        writer.string(1, title)
        if let emoji { writer.presentString(2, emoji) }
        if let note { writer.presentString(3, note) }
        draftKinds.encode(kind, to: &writer)
        if let schedule { draftRules.encode(schedule, to: &writer) }
        if let startDay { writer.presentSInt(16, Int64(startDay.daysSince1970)) }
        if let endDay { writer.presentSInt(17, Int64(endDay.daysSince1970)) }
        if let forgiveness { writer.message(18) { forgiveness.encodeFields(to: &$0) } }
        writer.enumeration(19, visibility.wireNumber, open: unknownFields.enumValues)
        if let templateID { writer.bytes(20, templateID.bytes) }
        writer.raw(unknownFields.bytes)
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> GoalDraft {
        let start = reader.offset
        var draft = GoalDraft(title: "", kind: .single)
        var kind: GoalKind?
        var schedule: ScheduleRule?
        var unknown: [UInt8] = []
        var openEnums: [UInt32: UInt64] = [:]
        try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
            if try draftKinds.decode(f, from: &r, into: &kind) { return true }
            if try draftRules.decode(f, from: &r, into: &schedule) { return true }
            switch f.number {
            case 1: draft.title = try r.readString(f)
            case 2: draft.emoji = try r.readString(f)
            case 3: draft.note = try r.readString(f)
            case 16: draft.startDay = try r.readDay(f)
            case 17: draft.endDay = try r.readDay(f)
            case 18:
                draft.forgiveness = try Forgiveness.merging(draft.forgiveness, f, from: &r)
            case 19:
                draft.visibility = try r.readEnum(f, open: &openEnums, Visibility.init(wireNumber:)) ?? .private
            case 20: draft.templateID = try r.readID(f)
            default: return false
            }
            return true
        }
        guard let kind else {
            throw WireError(.invalidValue, at: start, "a draft has no kind this version knows", rule: "WIRE-16")
        }
        draft.kind = kind
        draft.schedule = schedule
        draft.unknownFields = UnknownFields(bytes: unknown)
        draft.unknownFields.enumValues = openEnums
        return draft
    }
}

extension GoalTemplate: WireRecord {
    package func encodeFields(to writer: inout WireWriter) {
        writer.bytes(1, id.bytes)
        writer.string(2, interestID.rawValue)
        writer.message(3) { draft.encodeFields(to: &$0) }
        writer.raw(unknownFields.bytes)
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> GoalTemplate {
        let start = reader.offset
        var id: TemplateID?
        var interest = ""
        var draft: GoalDraft?
        var unknown: [UInt8] = []
        try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
            switch f.number {
            case 1: id = try r.readID(f)
            case 2: interest = try r.readString(f)
            case 3:
                try r.expect(f, .lengthDelimited)
                draft = try r.nested { (d: inout WireReader) throws(WireError) in try GoalDraft.decodeFields(from: &d) }
            default: return false
            }
            return true
        }
        guard let id, let draft else {
            throw WireError(.invalidValue, at: start, "a template needs an id and a draft", rule: "WIRE-16")
        }
        var template = GoalTemplate(
            id: id, interestID: try reader.validated(at: start) { () throws(ModelError) in try Slug(interest) },
            draft: draft)
        template.unknownFields = UnknownFields(bytes: unknown)
        return template
    }
}

extension Interest: WireRecord {
    package func encodeFields(to writer: inout WireWriter) {
        writer.string(1, id.rawValue)
        writer.string(2, name)
        writer.string(3, emoji)
        for template in templates { writer.message(4) { template.encodeFields(to: &$0) } }
        writer.raw(unknownFields.bytes)
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> Interest {
        let start = reader.offset
        var id = ""
        var name = ""
        var emoji = ""
        var templates: [GoalTemplate] = []
        var unknown: [UInt8] = []
        try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
            switch f.number {
            case 1: id = try r.readString(f)
            case 2: name = try r.readString(f)
            case 3: emoji = try r.readString(f)
            case 4:
                try r.expect(f, .lengthDelimited)
                templates.append(
                    try r.nested { (t: inout WireReader) throws(WireError) in try GoalTemplate.decodeFields(from: &t) })
            default: return false
            }
            return true
        }
        var interest = Interest(
            id: try reader.validated(at: start) { () throws(ModelError) in try Slug(id) }, name: name, emoji: emoji,
            templates: templates)
        interest.unknownFields = UnknownFields(bytes: unknown)
        return interest
    }
}
