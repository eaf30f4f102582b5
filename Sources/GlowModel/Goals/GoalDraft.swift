/// What the Add-goal flow collects before a goal exists (MODEL-45, MODEL-46).
///
/// A draft may be incomplete or wrong while the person types; it becomes a ``Goal`` only through
/// ``makeGoal(id:today:now:)``, which validates it and reports every problem at once.
public struct GoalDraft: Hashable, Sendable {
    /// The title as typed.
    public var title: String
    /// One emoji, if chosen.
    public var emoji: String?
    /// A note, if written.
    public var note: String?
    /// What the goal measures.
    public var kind: GoalKind
    /// When it is due; required for recurring kinds, refused for one-off kinds.
    public var schedule: ScheduleRule?
    /// The first Day; nil means today.
    public var startDay: Day?
    /// The last Day, if it ends.
    public var endDay: Day?
    /// Missed due Days to forgive per week or month, if any.
    public var forgiveness: Forgiveness?
    /// Who may see it.
    public var visibility: Visibility
    /// The template it started from, if any.
    public var templateID: TemplateID?
    /// Its reminders (REMIND-1), if the person set any: the goal is made with them, in one change.
    public var reminders: GoalReminders?
    /// Fields of the binary form this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    /// A draft.
    public init(
        title: String, emoji: String? = nil, note: String? = nil, kind: GoalKind, schedule: ScheduleRule? = nil,
        startDay: Day? = nil, endDay: Day? = nil, forgiveness: Forgiveness? = nil, visibility: Visibility = .private,
        templateID: TemplateID? = nil, reminders: GoalReminders? = nil
    ) {
        self.title = title
        self.emoji = emoji
        self.note = note
        self.kind = kind
        self.schedule = schedule
        self.startDay = startDay
        self.endDay = endDay
        self.forgiveness = forgiveness
        self.visibility = visibility
        self.templateID = templateID
        self.reminders = reminders
    }

    /// Every problem with the draft on `today`, in field order; empty when it can become a goal.
    public func validate(today: Day) -> [DraftIssue] {
        let start = startDay ?? today
        var issues = GoalRules.issues(
            title: title, emoji: emoji, note: note, kind: kind, scheduleRule: schedule, startDay: start,
            endDay: endDay, today: today)
        issues += GoalRules.issues(forgiveness: forgiveness)
        if kind.isRecurring, schedule == nil {
            issues.append(DraftIssue("schedule", .scheduleMissing, "choose when this goal is due"))
        } else if !kind.isRecurring, schedule != nil {
            issues.append(DraftIssue("schedule", .scheduleNotAllowed, "a \(kind.name) goal is done once"))
        }
        return issues
    }

    /// The goal this draft describes, created at `now`.
    ///
    /// - Throws: ``ModelError/Code/draftInvalid`` with every problem in ``ModelError/issues``.
    public func makeGoal(id: GoalID, today: Day, now: Instant) throws(ModelError) -> Goal {
        let issues = validate(today: today)
        guard issues.isEmpty else {
            throw ModelError(
                .draftInvalid, issues.map(\.description).joined(separator: "; "), path: issues[0].field,
                rule: "MODEL-46", issues: issues)
        }
        let start = startDay ?? today
        do {
            return try Goal(
                id: id, title: title, emoji: emoji, note: note, kind: kind,
                schedule: try schedule.map { rule throws(ModelError) in try Schedule(rule, from: start) },
                startDay: start, endDay: endDay, forgiveness: forgiveness, visibility: visibility,
                reminders: reminders, templateID: templateID,
                createdAt: now, modifiedAt: now)
        } catch {
            throw ModelError(.draftInvalid, error.message, path: error.path, rule: "MODEL-46", issues: error.issues)
        }
    }
}

extension GoalDraft: Codable {
    private enum CodingKeys: String, CodingKey {
        case title
        case emoji
        case note
        case kind
        case schedule
        case startDay
        case endDay
        case forgiveness
        case visibility
        case templateID
        case reminders
    }

    /// Decodes a draft; everything but `title` and `kind` may be absent.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            title: try c.decode(String.self, forKey: .title),
            emoji: try c.decodeIfPresent(String.self, forKey: .emoji),
            note: try c.decodeIfPresent(String.self, forKey: .note),
            kind: try c.decode(GoalKind.self, forKey: .kind),
            schedule: try c.decodeIfPresent(ScheduleRule.self, forKey: .schedule),
            startDay: try c.decodeIfPresent(Day.self, forKey: .startDay),
            endDay: try c.decodeIfPresent(Day.self, forKey: .endDay),
            forgiveness: try c.decodeIfPresent(Forgiveness.self, forKey: .forgiveness),
            visibility: try c.decodeIfPresent(Visibility.self, forKey: .visibility) ?? .private,
            templateID: try c.decodeIfPresent(TemplateID.self, forKey: .templateID),
            reminders: try c.decodeIfPresent(GoalReminders.self, forKey: .reminders))
    }
}
