import GlowModel

extension GoalReminders {
    /// The fields of a goal's `GoalReminders` as read, before validation, so a message given twice
    /// merges (WIRE-6).
    struct Fields: MessageFields {
        var times: [Int] = []
        var weekdays: Set<Weekday>?
        var enabled = false
        var unknown: [UInt8] = []

        /// Reads one `GoalReminders` message onto the fields read so far.
        mutating func decode(from reader: inout WireReader) throws(WireError) {
            // A time that breaks REMIND-1 is the message's fault (WIRE-16), found while it is read.
            let start = reader.offset
            try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
                switch f.number {
                case 1:
                    var times = self.times
                    try r.readRepeated(f) { (value) throws(WireError) in
                        // REMIND-1 allows eight; one more is refused before it is kept.
                        guard times.count < 8 else {
                            throw WireError(
                                .invalidValue, at: start, "a goal has at most eight reminder times",
                                rule: "REMIND-1")
                        }
                        guard value < 1440 else {
                            throw WireError(
                                .invalidValue, at: start, "a reminder time is a minute of the day, not \(value)",
                                rule: "REMIND-1")
                        }
                        times.append(Int(value))
                    }
                    self.times = times
                case 2:
                    let days = try r.readWeekdays(f)
                    weekdays = days.isEmpty ? nil : days
                case 3: enabled = try r.readBool(f)
                default: return false
                }
                return true
            }
        }

        /// The settings, validated at `start` (the first byte of the message's body).
        func make(_ reader: WireReader, at start: Int) throws(WireError) -> GoalReminders {
            var settings = try reader.validated(at: start) { () throws(ModelError) in
                try GoalReminders(times: times, weekdays: weekdays, enabled: enabled)
            }
            settings.unknownFields = UnknownFields(bytes: unknown)
            return settings
        }
    }

    /// Writes the times in increasing order, the weekdays as a bit set (0: every due Day) and
    /// whether they are on.
    func encodeFields(to writer: inout WireWriter) {
        writer.packed(1, times.map { UInt64($0) })
        writer.uint(2, weekdays.map(WireReader.weekdayBits) ?? 0)
        writer.bool(3, enabled)
        writer.raw(unknownFields.bytes)
    }
}

extension PersonReminders {
    /// The fields of a profile's `PersonReminders` as read, before validation, so a message given
    /// twice merges (WIRE-6).
    struct Fields: MessageFields {
        var riskMinute: Int?
        var riskMinimum = 0
        var quietStart: Int?
        var quietEnd: Int?
        var snoozeMinutes = 0
        var unknown: [UInt8] = []

        /// Reads one `PersonReminders` message onto the fields read so far.
        mutating func decode(from reader: inout WireReader) throws(WireError) {
            try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
                switch f.number {
                case 1: riskMinute = try r.readUInt32(f)
                case 2: riskMinimum = try r.readUInt32(f)
                case 3: quietStart = try r.readUInt32(f)
                case 4: quietEnd = try r.readUInt32(f)
                case 5: snoozeMinutes = try r.readUInt32(f)
                default: return false
                }
                return true
            }
        }

        /// The settings, validated at `start` (the first byte of the message's body): the nudge
        /// when its minute is present, quiet hours when both their minutes are, and a snooze of
        /// 0 read as the standard ten minutes.
        func make(_ reader: WireReader, at start: Int) throws(WireError) -> PersonReminders {
            guard (quietStart == nil) == (quietEnd == nil) else {
                throw WireError(
                    .invalidValue, at: start, "quiet hours need both a start and an end", rule: "REMIND-1")
            }
            var settings = try reader.validated(at: start) { () throws(ModelError) in
                try PersonReminders(
                    streakAtRisk: try riskMinute.map { (minute) throws(ModelError) in
                        try StreakAtRisk(minute: minute, minimumStreak: riskMinimum)
                    },
                    quietHours: try quietStart.map { (begin) throws(ModelError) in
                        try QuietHours(start: begin, end: quietEnd ?? 0)
                    },
                    snoozeMinutes: snoozeMinutes == 0 ? PersonReminders.defaultSnoozeMinutes : snoozeMinutes)
            }
            settings.unknownFields = UnknownFields(bytes: unknown)
            return settings
        }
    }

    /// Writes the nudge and quiet hours when set (their minutes with presence, so midnight is
    /// kept) and the snooze length.
    func encodeFields(to writer: inout WireWriter) {
        if let streakAtRisk {
            writer.presentUInt(1, UInt64(streakAtRisk.minute))
            writer.uint(2, UInt64(streakAtRisk.minimumStreak))
        }
        if let quietHours {
            writer.presentUInt(3, UInt64(quietHours.start))
            writer.presentUInt(4, UInt64(quietHours.end))
        }
        writer.uint(5, UInt64(snoozeMinutes))
        writer.raw(unknownFields.bytes)
    }
}

/// The fields of a nested message as read, before validation, so that a message given twice
/// merges: the second's fields applied onto the first's (WIRE-6).
protocol MessageFields {
    init()
    /// Reads one message's fields onto those read so far.
    mutating func decode(from reader: inout WireReader) throws(WireError)
}

extension WireReader {
    /// Reads the length-delimited `field` onto `existing` (WIRE-6), with the offset of its body,
    /// where a refusal of what it holds is reported (WIRE-16).
    mutating func merging<F: MessageFields>(_ existing: (fields: F, start: Int)?, _ field: Field)
        throws(WireError) -> (fields: F, start: Int)
    {
        try expect(field, .lengthDelimited)
        var fields = existing?.fields ?? F()
        var start = 0
        try nested { (inner: inout WireReader) throws(WireError) in
            start = inner.offset
            try fields.decode(from: &inner)
        }
        return (fields, start)
    }
}
