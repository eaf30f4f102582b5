/// A span of Days during which a goal was put away: from `from` up to, not including, `until`
/// (MODEL-47). An open span (`until` nil) means the goal is archived now.
public struct ArchivePeriod: Hashable, Sendable, Codable {
    /// The first archived Day.
    public var from: Day
    /// The Day the goal came back, or nil while it is still archived.
    public var until: Day?
    /// Fields of the binary form this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    private enum CodingKeys: String, CodingKey {
        case from
        case until
    }

    /// A period.
    public init(from: Day, until: Day? = nil) {
        self.from = from
        self.until = until
    }

    /// Whether `day` lies in the period.
    public func contains(_ day: Day) -> Bool {
        day >= from && (until.map { day < $0 } ?? true)
    }
}

/// How many missed due Days are forgiven automatically in each calendar week or month, so that
/// one bad day does not cost a long streak (MODEL-48).
public struct Forgiveness: Hashable, Sendable, Codable {
    /// The calendar period an allowance covers.
    public enum Period: String, CaseIterable, Hashable, Sendable, Codable {
        /// A calendar week, by the profile's week start.
        case week
        /// A calendar month.
        case month

        /// Decodes `week` or `month`.
        public init(from decoder: any Decoder) throws {
            self = try decodeEnumName(Period.self, from: decoder)
        }
    }

    /// Missed due Days forgiven per period: 1...3 per week, 1...10 per month.
    public var allowance: Int
    /// The period the allowance resets with.
    public var period: Period

    /// Fields of the binary form this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    private enum CodingKeys: String, CodingKey {
        case allowance
        case period
    }

    /// An allowance.
    public init(allowance: Int, period: Period) {
        self.allowance = allowance
        self.period = period
    }

    /// The largest allowance a period may have.
    public var limit: Int { period == .week ? 3 : 10 }
}

extension Goal {
    /// Whether the goal is archived now: its last archive period is open.
    public var archived: Bool {
        archiveHistory.last.map { $0.until == nil } ?? false
    }

    /// Whether `day` lies in an archive period.
    public func isArchived(on day: Day) -> Bool {
        archiveHistory.contains { $0.contains(day) }
    }

    /// Puts the goal away from `day` on; Days from then on are not due until it is unarchived.
    ///
    /// - Throws: ``ModelError/Code/invalidGoal`` when it is archived already or `day` is not after
    ///   the last period's end.
    public mutating func archive(from day: Day, at instant: Instant) throws(ModelError) {
        var copy = self
        copy.archiveHistory.append(ArchivePeriod(from: day))
        copy.modifiedAt = Swift.max(modifiedAt, instant)
        try copy.validate()
        self = copy
    }

    /// Brings the goal back from `day` on; the archived Days stay not due.
    ///
    /// - Throws: ``ModelError/Code/invalidGoal`` when it is not archived or `day` is not after the
    ///   period's first Day.
    public mutating func unarchive(from day: Day, at instant: Instant) throws(ModelError) {
        guard archived else {
            throw ModelError(.invalidGoal, "the goal is not archived", path: "archiveHistory", rule: "MODEL-47")
        }
        var copy = self
        copy.archiveHistory[copy.archiveHistory.count - 1].until = day
        copy.modifiedAt = Swift.max(modifiedAt, instant)
        try copy.validate()
        self = copy
    }

    /// The archive and forgiveness problems of this goal, as issues.
    func lifecycleIssues() -> [DraftIssue] {
        var issues: [DraftIssue] = []
        for (index, period) in archiveHistory.enumerated() {
            let field = "archiveHistory[\(index)]"
            if let until = period.until, until <= period.from {
                issues.append(DraftIssue(field, .archiveInvalid, "an archive period must end after it starts"))
            } else if period.until == nil, index != archiveHistory.count - 1 {
                issues.append(DraftIssue(field, .archiveInvalid, "only the last archive period may be open"))
            } else if index > 0, let previousEnd = archiveHistory[index - 1].until, period.from < previousEnd {
                issues.append(DraftIssue(field, .archiveInvalid, "archive periods must be in order and not overlap"))
            }
        }
        return issues + GoalRules.issues(forgiveness: forgiveness)
    }
}

extension Goal {
    /// The fields of a goal a person can edit; ``Goal/edit(at:_:)`` hands them out and checks
    /// the result.
    public struct Changes: Hashable, Sendable {
        /// See ``Goal/title``.
        public var title: String
        /// See ``Goal/emoji``.
        public var emoji: String?
        /// See ``Goal/note``.
        public var note: String?
        /// See ``Goal/kind``.
        public var kind: GoalKind
        /// See ``Goal/schedule``.
        public var schedule: Schedule?
        /// See ``Goal/startDay``.
        public var startDay: Day
        /// See ``Goal/endDay``.
        public var endDay: Day?
        /// See ``Goal/archiveHistory``.
        public var archiveHistory: [ArchivePeriod]
        /// See ``Goal/forgiveness``.
        public var forgiveness: Forgiveness?
        /// See ``Goal/visibility``.
        public var visibility: Visibility
        /// See ``Goal/reminders``.
        public var reminders: GoalReminders?
        /// See ``Goal/templateID``.
        public var templateID: TemplateID?
    }

    /// Edits the goal at `instant`: `change` gets the editable fields, and the result is checked
    /// by every rule a goal must keep (MODEL-19, MODEL-45) before anything changes.
    ///
    /// `modifiedAt` becomes `instant` (never earlier than it was), so the edit wins a merge
    /// against older versions (BUNDLE-21). The identifier, `createdAt` and unknown fields stay.
    /// - Throws: what `change` throws (``ModelError/editing(_:)``), or ``ModelError/Code/invalidGoal`` with every problem in
    ///   ``ModelError/issues``; the goal is then unchanged.
    public mutating func edit(at instant: Instant, _ change: (inout Changes) throws -> Void)
        throws(ModelError)
    {
        var fields = Changes(
            title: title, emoji: emoji, note: note, kind: kind, schedule: schedule, startDay: startDay,
            endDay: endDay, archiveHistory: archiveHistory, forgiveness: forgiveness, visibility: visibility,
            reminders: reminders, templateID: templateID)
        try ModelError.editing { try change(&fields) }
        var copy = self
        copy.title = GoalRules.trimmed(fields.title)
        copy.emoji = fields.emoji
        copy.note = fields.note
        copy.kind = fields.kind
        copy.schedule = fields.schedule
        copy.startDay = fields.startDay
        copy.endDay = fields.endDay
        copy.archiveHistory = fields.archiveHistory
        copy.forgiveness = fields.forgiveness
        copy.visibility = fields.visibility
        copy.reminders = fields.reminders
        copy.templateID = fields.templateID
        copy.modifiedAt = Swift.max(modifiedAt, instant)
        try copy.validate()
        self = copy
    }

    /// This goal as a deletion tombstone at `instant` (MODEL-19): it keeps its fields, so a merge
    /// with an older copy never brings it back.
    public func deleting(at instant: Instant) -> Goal {
        var copy = self
        copy.deleted = true
        copy.modifiedAt = Swift.max(modifiedAt, instant)
        return copy
    }
}
