import GlowModel

/// How one Day went for one goal (STREAK-5 ... STREAK-12).
public enum DayStatus: Hashable, Sendable {
    /// Done: the Day met the goal's rule for its kind.
    case done
    /// Partly done, with how far: `thousandths` of the Day's target, 1...999.
    case partial(thousandths: Int)
    /// A planned rest day: keeps a streak alive without adding to it.
    case skipped
    /// A due Day that passed without being done.
    case missed
    /// A missed (or partly done) due Day that the goal's forgiveness allowance covered.
    case forgiven
    /// Today, still to do (or not yet enough): never breaks a streak.
    case pending
    /// A future Day on which the goal is due.
    case upcoming
    /// Not due: outside the goal's life, not a scheduled Day, or nothing left to do.
    case notDue

    /// The status's stable name, as the corpus spells it; partial adds `:thousandths`.
    public var name: String {
        switch self {
        case .done: "done"
        case .partial(let thousandths): "partial:\(thousandths)"
        case .skipped: "skipped"
        case .missed: "missed"
        case .forgiven: "forgiven"
        case .pending: "pending"
        case .upcoming: "upcoming"
        case .notDue: "notDue"
        }
    }
}

/// A run of consecutive counted Days or periods without a miss (STREAK-14).
public struct Streak: Hashable, Sendable, Codable {
    /// How many Days (day-based schedules) or periods (N per week or month) it counts.
    public var length: Int
    /// The Day its first counted unit was done.
    public var start: Day
    /// The Day its last counted unit was done.
    public var end: Day

    /// A streak.
    public init(length: Int, start: Day, end: Day) {
        self.length = length
        self.start = start
        self.end = end
    }
}

/// A streak milestone, identified by goal, milestone and streak start so that a re-sync never
/// announces it twice (STREAK-20).
public struct Milestone: Hashable, Sendable, Codable {
    /// The identity of a milestone: what a device remembers as "announced".
    public struct ID: Hashable, Sendable, Codable {
        /// The goal.
        public var goalID: GoalID
        /// The milestone, one of ``Milestone/thresholds``.
        public var milestone: Int
        /// The first Day of the streak that reached it.
        public var streakStart: Day

        /// An identity.
        public init(goalID: GoalID, milestone: Int, streakStart: Day) {
            self.goalID = goalID
            self.milestone = milestone
            self.streakStart = streakStart
        }
    }

    /// The milestones, in streak units.
    public static let thresholds = [3, 7, 14, 21, 30, 50, 100, 200, 365, 500, 1000]

    /// Its identity.
    public var id: ID
    /// The Day the streak reached it.
    public var reachedOn: Day

    /// A milestone.
    public init(id: ID, reachedOn: Day) {
        self.id = id
        self.reachedOn = reachedOn
    }

    /// Which milestones in `current` are new since `announced`, and which announced ones were
    /// revoked because their streak no longer reaches them (STREAK-21).
    public static func changes(announced: Set<ID>, current: [Milestone]) -> (new: [Milestone], revoked: [ID]) {
        let currentIDs = Set(current.map(\.id))
        let new = current.filter { !announced.contains($0.id) }
        let revoked = announced.filter { !currentIDs.contains($0) }.sorted {
            ($0.streakStart, $0.milestone) < ($1.streakStart, $1.milestone)
        }
        return (new, revoked)
    }
}

/// The completion rate over a window: done units over judged units, skips excluded (STREAK-18).
public struct Consistency: Hashable, Sendable, Codable {
    /// Units done (due Days done, periods met).
    public var done: Int
    /// Units judged: done, missed, partly done and forgiven Days, and met or missed periods.
    public var due: Int

    /// A consistency of `done` units out of `due` judged ones.
    public init(done: Int, due: Int) {
        self.done = done
        self.due = due
    }

    /// The rate in thousandths (0...1000), or nil when nothing was due.
    public var thousandths: Int? { due == 0 ? nil : done * 1000 / due }
}

/// Where a one-off goal stands (STREAK-13).
public struct Completion: Hashable, Sendable {
    /// Whether it is complete as of today.
    public var done: Bool
    /// The Day it became complete, if it is.
    public var doneOn: Day?
    /// How far, in thousandths of the target: may exceed 1000 for progress over its target.
    public var thousandths: Int
    /// For countdowns: Days from today to the target Day (negative once it has passed).
    public var daysLeft: Int?

    /// A completion.
    public init(done: Bool, doneOn: Day? = nil, thousandths: Int, daysLeft: Int? = nil) {
        self.done = done
        self.doneOn = doneOn
        self.thousandths = thousandths
        self.daysLeft = daysLeft
    }
}
