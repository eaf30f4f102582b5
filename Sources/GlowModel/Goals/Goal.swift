/// Who may see a goal and its check-ins in the Glow feed.
public enum Visibility: String, CaseIterable, Hashable, Sendable, Codable {
    /// Only the owner.
    case `private`
    /// The owner's friends.
    case friends
    /// Anyone.
    case `public`

    /// Decodes a visibility name; an unknown one is an unknown enum case.
    public init(from decoder: any Decoder) throws {
        self = try decodeEnumName(Visibility.self, from: decoder)
    }
}

/// A goal a person keeps: what it measures, when it is due, and its lifecycle (MODEL-19).
///
/// A `Goal` is always valid: its initialiser and decoder check every rule a draft is checked by
/// (MODEL-45), except those that depend on today, and its properties change only through
/// validating mutators (``edit(at:_:)``, ``archive(from:at:)``, ``deleting(at:)``), so every
/// goal the API can build can be written, read back and evaluated. A deleted goal stays as a tombstone so that a
/// merge never brings it back (MODEL-19).
public struct Goal: Hashable, Sendable, Identifiable {
    /// The stable identifier.
    public internal(set) var id: GoalID
    /// The title, trimmed, 1...80 characters.
    public internal(set) var title: String
    /// One emoji shown beside the title.
    public internal(set) var emoji: String?
    /// A free-text note, up to 500 characters.
    public internal(set) var note: String?
    /// What the goal measures.
    public internal(set) var kind: GoalKind
    /// When it is due; present exactly when the kind is recurring (MODEL-27).
    public internal(set) var schedule: Schedule?
    /// The first Day the goal counts.
    public internal(set) var startDay: Day
    /// The last Day the goal counts, if it ends.
    public internal(set) var endDay: Day?
    /// The spans of Days the goal was put away, in order; archived Days are never due (MODEL-47).
    public internal(set) var archiveHistory: [ArchivePeriod]
    /// Missed due Days forgiven automatically per week or month, if any (MODEL-48).
    public internal(set) var forgiveness: Forgiveness?
    /// Who may see it.
    public internal(set) var visibility: Visibility
    /// When to remind the person of it, if ever (REMIND-1).
    public internal(set) var reminders: GoalReminders?
    /// The template it was made from, if any.
    public internal(set) var templateID: TemplateID?
    /// When it was created.
    public internal(set) var createdAt: Instant
    /// When it was last changed, deleting included; merge keeps the latest (MODEL-19).
    public internal(set) var modifiedAt: Instant
    /// Whether this is a deletion tombstone.
    public internal(set) var deleted: Bool
    /// Fields of the binary form this version does not know (MODEL-49).
    public package(set) var unknownFields = UnknownFields()

    /// A goal, validated.
    ///
    /// - Throws: ``ModelError/Code/invalidGoal`` with every problem in ``ModelError/issues``.
    public init(
        id: GoalID, title: String, emoji: String? = nil, note: String? = nil, kind: GoalKind,
        schedule: Schedule?, startDay: Day, endDay: Day? = nil, archiveHistory: [ArchivePeriod] = [],
        forgiveness: Forgiveness? = nil,
        visibility: Visibility = .private, reminders: GoalReminders? = nil, templateID: TemplateID? = nil,
        createdAt: Instant,
        modifiedAt: Instant, deleted: Bool = false
    ) throws(ModelError) {
        self.id = id
        self.title = GoalRules.trimmed(title)
        self.emoji = emoji
        self.note = note
        self.kind = kind
        self.schedule = schedule
        self.startDay = startDay
        self.endDay = endDay
        self.archiveHistory = archiveHistory
        self.forgiveness = forgiveness
        self.visibility = visibility
        self.reminders = reminders
        self.templateID = templateID
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.deleted = deleted
        try validate()
    }

    /// Checks every rule; used after decoding and after edits.
    ///
    /// - Throws: ``ModelError/Code/invalidGoal`` with every problem in ``ModelError/issues``.
    public func validate() throws(ModelError) {
        var issues = GoalRules.issues(
            title: title, emoji: emoji, note: note, kind: kind, scheduleRule: nil, startDay: startDay, endDay: endDay,
            today: nil)
        if let schedule {
            if !kind.isRecurring {
                issues.append(DraftIssue("schedule", .scheduleNotAllowed, "a \(kind.name) goal is done once"))
            } else if schedule.entries[0].effective != startDay {
                issues.append(
                    DraftIssue(
                        "schedule", .scheduleStartMismatch,
                        "the first schedule rule must take effect on the start Day \(startDay)"))
            }
        } else if kind.isRecurring {
            issues.append(DraftIssue("schedule", .scheduleMissing, "a recurring goal needs a schedule"))
        }
        issues += lifecycleIssues()
        if modifiedAt < createdAt {
            issues.append(DraftIssue("modifiedAt", .modifiedBeforeCreated, "modifiedAt is before createdAt"))
        }
        guard issues.isEmpty else {
            throw ModelError(
                .invalidGoal, issues.map(\.description).joined(separator: "; "), path: issues[0].field,
                rule: "MODEL-45", issues: issues)
        }
    }
}

extension Goal: Codable {
    private enum CodingKeys: String, CodingKey {
        case id
        case title
        case emoji
        case note
        case kind
        case schedule
        case startDay
        case endDay
        case archiveHistory
        case forgiveness
        case visibility
        case reminders
        case templateID
        case createdAt
        case modifiedAt
        case deleted
    }

    /// Decodes and validates a goal; `emoji`, `note`, `schedule`, `endDay`, `templateID` may be
    /// absent, `archiveHistory` defaults to none, `forgiveness` and `reminders` to none, `deleted`
    /// to false and `visibility` to private (MODEL-43).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self = try validated(at: c.codingPath) {
            try Self(
                id: c.decode(GoalID.self, forKey: .id),
                title: c.decode(String.self, forKey: .title),
                emoji: c.decodeIfPresent(String.self, forKey: .emoji),
                note: c.decodeIfPresent(String.self, forKey: .note),
                kind: c.decode(GoalKind.self, forKey: .kind),
                schedule: c.decodeIfPresent(Schedule.self, forKey: .schedule),
                startDay: c.decode(Day.self, forKey: .startDay),
                endDay: c.decodeIfPresent(Day.self, forKey: .endDay),
                archiveHistory: c.decodeIfPresent([ArchivePeriod].self, forKey: .archiveHistory) ?? [],
                forgiveness: c.decodeIfPresent(Forgiveness.self, forKey: .forgiveness),
                visibility: c.decodeIfPresent(Visibility.self, forKey: .visibility) ?? .private,
                reminders: c.decodeIfPresent(GoalReminders.self, forKey: .reminders),
                templateID: c.decodeIfPresent(TemplateID.self, forKey: .templateID),
                createdAt: c.decode(Instant.self, forKey: .createdAt),
                modifiedAt: c.decode(Instant.self, forKey: .modifiedAt),
                deleted: c.decodeIfPresent(Bool.self, forKey: .deleted) ?? false)
        }
    }

}
