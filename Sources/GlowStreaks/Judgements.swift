import GlowCore
import GlowModel

/// The judged units of a goal (STREAK-18), kept so that consistency over any window costs two
/// binary searches: single judgements (a Day with an entry, a period judged on its own) as points
/// with running counts, and long runs of empty Days or empty periods as arithmetic runs, never one
/// value per Day.
struct Judgements: Sendable {
    /// A run of judged units, none of them done.
    struct Run: Sendable {
        enum Shape: Sendable {
            /// The Days of `first ... last` that a day-based rule falls on.
            case days(CompactRule)
            /// Whole calendar weeks, each judged on its last Day.
            case weeks
            /// Whole calendar months, each judged on its last Day.
            case months
        }

        var first: Day
        var last: Day
        var shape: Shape

        /// The units of the run judged on a Day in `from ... through`.
        func count(from: Day, through: Day) -> Int {
            let lower = Swift.max(from, first)
            let upper = Swift.min(through, last)
            guard lower <= upper else { return 0 }
            switch shape {
            case .days(let rule):
                return rule.count(from: lower, through: upper)
            case .weeks:
                // Weeks end on first + 6, first + 13, ...: count those in lower ... upper.
                let firstEnd = first.daysSince1970 + 6
                func endsThrough(_ day: Int) -> Int { day < firstEnd ? 0 : (day - firstEnd) / 7 + 1 }
                return endsThrough(upper.daysSince1970) - endsThrough(lower.daysSince1970 - 1)
            case .months:
                // Month m ends in the window when its last Day is in lower ... upper.
                func endsThrough(_ day: Day) -> Int {
                    let index = GoalEvaluation.monthIndex(day) - GoalEvaluation.monthIndex(first)
                    return day == day.calendarMonth.upperBound ? index + 1 : index
                }
                return endsThrough(upper) - (lower == first ? 0 : endsThrough(Day(unchecked: lower.daysSince1970 - 1)))
            }
        }
    }

    /// A single judged unit: its Day and how many of the points up to it, itself included, are done.
    private struct Point {
        var day: Day
        var doneThrough: Int
    }

    private var points: [Point] = []
    private var runs: [Run] = []
    private var judgedBefore: [Int] = [0]

    /// Makes room for `count` judged units on single Days.
    mutating func reservePoints(_ count: Int) {
        points.reserveCapacity(count)
    }

    /// One judged unit on `day`; units arrive in Day order.
    mutating func point(_ day: Day, done: Bool) {
        points.append(Point(day: day, doneThrough: doneBefore(points.count) + (done ? 1 : 0)))
    }

    /// How many of the first `count` points are done.
    private func doneBefore(_ count: Int) -> Int { count == 0 ? 0 : points[count - 1].doneThrough }

    /// A run of judged units, none done; runs arrive in Day order and do not overlap.
    mutating func run(_ run: Run) {
        let total = run.count(from: run.first, through: run.last)
        guard total > 0 else { return }
        runs.append(run)
        judgedBefore.append(judgedBefore[judgedBefore.count - 1] + total)
    }

    /// How many points and runs there are: a place to come back to with ``rewind(to:)``.
    var mark: (points: Int, runs: Int) { (points.count, runs.count) }

    /// Forgets the points and runs added since `mark`.
    ///
    /// - Complexity: O(k) for the k units forgotten.
    mutating func rewind(to mark: (points: Int, runs: Int)) {
        points.removeLast(points.count - mark.points)
        runs.removeLast(runs.count - mark.runs)
        judgedBefore.removeLast(judgedBefore.count - 1 - mark.runs)
    }

    /// Done and judged units whose Day lies in `from ... through`.
    ///
    /// - Complexity: O(log n) for n points and runs.
    func count(from: Day, through: Day) -> Consistency {
        guard from <= through else { return Consistency(done: 0, due: 0) }
        let lower = points.partitioningIndex { $0.day >= from }
        let upper = points.partitioningIndex { $0.day > through }
        var done = 0
        var due = 0
        if lower < upper {
            done = doneBefore(upper) - doneBefore(lower)
            due = upper - lower
        }
        // Runs that overlap the window: the first and last may overlap in part.
        let first = runs.partitioningIndex { $0.last >= from }
        let end = runs.partitioningIndex { $0.first > through }
        if first < end {
            due += runs[first].count(from: from, through: through)
            if end - 1 > first {
                due += runs[end - 1].count(from: from, through: through)
                due += judgedBefore[end - 1] - judgedBefore[first + 1]
            }
        }
        return Consistency(done: done, due: due)
    }
}

/// Streaks as units arrive, in time order: a counting unit extends the run, a break closes it
/// (STREAK-14 ... STREAK-16); milestones are noted as runs reach them (STREAK-20). Nothing per
/// unit is stored, and any number of breaks in a row costs what one does.
struct StreakTracker: Sendable {
    let goalID: GoalID
    private var start: Day?
    private var end: Day?
    private var length = 0
    /// The run's length at which the next milestone is reached (Int.max past the last one), kept
    /// as a number so that counting a unit reads no table.
    private var nextThreshold = Milestone.thresholds[0]
    private(set) var longest: Streak?
    private(set) var milestones: [Milestone] = []

    init(goalID: GoalID) {
        self.goalID = goalID
    }

    /// The run no break has followed, if it counts anything.
    var current: Streak? {
        guard length > 0, let start, let end else { return nil }
        return Streak(length: length, start: start, end: end)
    }

    /// A counting unit: a done due Day, or a met period from its first done Day to the Day its
    /// target was reached.
    mutating func count(first: Day, last: Day) {
        if length == 0 {
            start = first
            nextThreshold = Milestone.thresholds[0]
        }
        length += 1
        end = last
        if length == nextThreshold { reachMilestone(on: last) }
    }

    /// The milestone the run reached on `day`, and the next threshold.
    private mutating func reachMilestone(on day: Day) {
        milestones.append(
            Milestone(id: Milestone.ID(goalID: goalID, milestone: length, streakStart: start!), reachedOn: day))
        nextThreshold = Milestone.thresholds.first { $0 > length } ?? Int.max
    }

    /// This tracker without its milestones, and how many it had: what a walk's checkpoint keeps,
    /// sharing no storage with the milestones that follow.
    var withoutMilestones: (tracker: StreakTracker, count: Int) {
        var copy = self
        copy.milestones = []
        return (copy, milestones.count)
    }

    /// Takes `milestones` back: the ones reached before the state this tracker was saved in.
    mutating func restore(milestones: [Milestone]) {
        self.milestones = milestones
    }

    /// A break: ends the run; the longest keeps the earliest of equals.
    mutating func breakRun() {
        if let run = current, run.length > (longest?.length ?? 0) { longest = run }
        length = 0
        start = nil
        end = nil
    }
}
