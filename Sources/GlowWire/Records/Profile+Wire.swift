import GlowModel

extension Profile: WireRecord {
    package func encodeFields(to writer: inout WireWriter) {
        writer.bytes(1, userID.bytes)
        writer.string(2, displayName)
        if let photoReference { writer.presentString(3, photoReference) }
        for interest in interests { writer.presentString(4, interest.rawValue) }
        writer.string(5, themeID.rawValue)
        writer.message(6) { boundary.encodeFields(to: &$0) }
        writer.sint(7, createdAt.millisecondsSince1970)
        writer.sint(8, modifiedAt.millisecondsSince1970)
        if !reminders.isStandard { writer.message(9) { reminders.encodeFields(to: &$0) } }
        writer.raw(unknownFields.bytes)
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> Profile {
        let start = reader.offset
        var userID: UserID?
        var displayName = ""
        var photo: String?
        var interests: [String] = []
        var themeID = ""
        var boundary: DayBoundary.Fields?
        var createdAt = Instant.epoch
        var modifiedAt = Instant.epoch
        var reminders: (fields: PersonReminders.Fields, start: Int)?
        var unknown: [UInt8] = []
        try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
            switch f.number {
            case 1: userID = try r.readID(f)
            case 2: displayName = try r.readString(f)
            case 3: photo = try r.readString(f)
            case 4: interests.append(try r.readString(f))
            case 5: themeID = try r.readString(f)
            case 6: boundary = try r.merging(boundary.map { ($0, 0) }, f).fields
            case 7: createdAt = try r.readInstant(f)
            case 8: modifiedAt = try r.readInstant(f)
            case 9: reminders = try r.merging(reminders, f)
            default: return false
            }
            return true
        }
        guard let userID else { throw WireError(.invalidValue, at: start, "a profile has no user id", rule: "WIRE-16") }
        guard let boundary else {
            throw WireError(.invalidValue, at: start, "a profile has no day boundary", rule: "WIRE-16")
        }
        let settings = try reminders.map { (read) throws(WireError) in try read.fields.make(reader, at: read.start) }
        var profile = try reader.validated(at: start) { () throws(ModelError) in
            try Profile(
                userID: userID, displayName: displayName, photoReference: photo,
                interests: try interests.map(Slug.init),
                themeID: themeID.isEmpty ? Profile.defaultThemeID : try Slug(themeID), boundary: try boundary.make(),
                reminders: settings ?? .standard, createdAt: createdAt, modifiedAt: modifiedAt)
        }
        profile.unknownFields = UnknownFields(bytes: unknown)
        return profile
    }
}

extension DayBoundary: WireRecord {
    /// The fields of a boundary as read, before validation, so a message given twice merges.
    struct Fields: MessageFields {
        var timeZone = ""
        var dayStartMinutes = 0
        var weekStart = Weekday.monday
        var unknown: [UInt8] = []
        var openEnums: [UInt32: UInt64] = [:]

        mutating func decode(from reader: inout WireReader) throws(WireError) {
            try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
                switch f.number {
                case 1: timeZone = try r.readString(f)
                case 2: dayStartMinutes = try r.readUInt32(f)
                case 3:
                    weekStart =
                        try r.readEnum(f, open: &openEnums) { $0 < 7 ? Weekday(isoNumber: Int($0) + 1) : nil }
                        ?? .monday
                default: return false
                }
                return true
            }
        }

        func make() throws(ModelError) -> DayBoundary {
            var boundary = try DayBoundary(
                timeZone: try TimeZoneID(timeZone), dayStartMinutes: dayStartMinutes, weekStart: weekStart)
            boundary.unknownFields = UnknownFields(bytes: unknown)
            boundary.unknownFields.enumValues = openEnums
            return boundary
        }
    }

    package func encodeFields(to writer: inout WireWriter) {
        writer.string(1, timeZone.identifier)
        writer.uint(2, UInt64(dayStartMinutes))
        writer.enumeration(3, UInt64(weekStart.isoNumber - 1), open: unknownFields.enumValues)
        writer.raw(unknownFields.bytes)
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> DayBoundary {
        let start = reader.offset
        var fields = Fields()
        try fields.decode(from: &reader)
        return try reader.validated(at: start) { () throws(ModelError) in try fields.make() }
    }
}
