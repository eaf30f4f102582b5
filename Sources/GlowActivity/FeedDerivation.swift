import GlowFeed
import GlowModel
import GlowStreaks

/// The items a person's data gives (FEED-22): the same data gives the same items with the same
/// ids on every device, so deriving again never duplicates and two devices agree.
public enum FeedDerivation {
    /// How many Days back check-ins become items: the feed is recent activity.
    public static let checkInWindow = 30

    /// The items of `owner`'s data as of `today`, newest event first: for every goal that is not
    /// deleted and not private, its start, a check-in item for each Day of the last
    /// ``checkInWindow`` Days whose status is done (with the streak as of that Day), each
    /// milestone its streaks reached, and its completion for a one-off goal.
    public static func items(of data: DataSet, owner: String, boundary: DayBoundary, today: Day) -> [FeedItem] {
        items(of: data, owner: owner, boundary: boundary, today: today) { _, _ in true } ?? []
    }

    /// ``items(of:owner:boundary:today:)``, telling `progress` after each goal how many of the
    /// goals it has derived, of how many; deriving stops, and gives nil, when `progress` returns
    /// false (its task was cancelled).
    ///
    /// - Complexity: each shared goal's evaluation, and one more for each Day of the window it was
    ///   done, so it is work to do off the main actor.
    public static func items(
        of data: DataSet, owner: String, boundary: DayBoundary, today: Day,
        progress: (_ goals: Int, _ total: Int) -> Bool
    ) -> [FeedItem]? {
        var items: [FeedItem] = []
        let shared = data.sortedGoals.filter { !$0.deleted && $0.visibility != .private }
        guard progress(0, shared.count) else { return nil }
        for (index, goal) in shared.enumerated() {
            let history = data.history(of: goal.id)
            let evaluation = GoalEvaluation(goal: goal, history: history, weekStart: boundary.weekStart, today: today)
            let checkIns = Dictionary(
                data.checkIns(of: goal.id).filter { !$0.deleted }.map { ($0.day, $0) }, uniquingKeysWith: { a, _ in a })
            /// When the event of `day` happened: its check-in's last tap, else the Day's start.
            func time(of day: Day) -> Int64 {
                checkIns[day]?.lastRecordedAt.millisecondsSince1970
                    ?? boundary.firstInstant(of: day)?.millisecondsSince1970 ?? 0
            }
            func make(
                _ kind: FeedItem.Kind, time: Int64, day: Day? = nil, streak: Int? = nil, milestone: Milestone? = nil
            )
                -> FeedItem?
            {
                try? FeedItem(
                    owner: owner, kind: kind, goal: goal.id.description, time: time,
                    title: goal.title.utf8.count <= 200 ? goal.title : String(goal.title.prefix(50)),
                    emoji: goal.emoji ?? "", goalKind: goal.kind.name.rawValue, day: day, streak: streak,
                    milestone: milestone?.id.milestone, streakStart: milestone?.id.streakStart)
            }
            if let started = make(.goalStarted, time: goal.createdAt.millisecondsSince1970) { items.append(started) }
            let first = (try? today.adding(days: -(checkInWindow - 1))) ?? today
            for (day, _) in checkIns where day >= first && day <= today && evaluation.status(on: day) == .done {
                let streak = GoalEvaluation(goal: goal, history: history, weekStart: boundary.weekStart, today: day)
                    .currentStreak?.length
                if let item = make(.checkIn, time: time(of: day), day: day, streak: streak) { items.append(item) }
            }
            for milestone in evaluation.milestones {
                if let item = make(
                    .milestone, time: time(of: milestone.reachedOn), day: milestone.reachedOn,
                    streak: milestone.id.milestone, milestone: milestone)
                {
                    items.append(item)
                }
            }
            if let completion = evaluation.completion, completion.done, let day = completion.doneOn,
                let item = make(.goalCompleted, time: time(of: day), day: day)
            {
                items.append(item)
            }
            guard progress(index + 1, shared.count) else { return nil }
        }
        return items.sorted(by: FeedCursor.newerFirst)
    }
}

extension FeedReplica {
    /// Publishes `owner`'s derived items (FEED-23): writes each item that is new or changed,
    /// withdraws each of the owner's items that the derivation no longer gives (an undone
    /// check-in within the window, a revoked milestone, a completion taken back), and writes the
    /// visibility of every goal in `visibility` that changed, each with a new stamp of `clock` at
    /// physical time `now`. Returns how many writes it made: deriving again from the same data
    /// makes none.
    ///
    /// - Throws: the clock's errors (FEED-2); writes made before one stay.
    @discardableResult
    public mutating func publish(
        _ derived: [FeedItem], visibility: [String: Visibility], owner: String, window: ClosedRange<Day>,
        clock: inout HybridClock, now: Int64
    ) throws(FeedError) -> Int {
        var writes = 0
        for (goal, value) in visibility.sorted(by: { $0.key < $1.key })
        where self.visibility[GoalKey(owner: owner, goal: goal)]?.value ?? .private != value {
            writeVisibility(value, owner: owner, goal: goal, at: try clock.tick(now: now))
            writes += 1
        }
        let ids = Set(derived.map(\.key))
        for item in derived where self.item(item.key) != item {
            writeItem(item, id: item.key, at: try clock.tick(now: now))
            writes += 1
        }
        let gone = items.compactMap { id, register -> FeedItemID? in
            guard let item = register.value, item.owner == owner, !ids.contains(id) else { return nil }
            // Check-ins older than the window are left as they were: the derivation no longer looks.
            if item.kind == .checkIn, let day = item.day, !window.contains(day) { return nil }
            return id
        }
        for id in gone.sorted() {
            writeItem(nil, id: id, at: try clock.tick(now: now))
            writes += 1
        }
        return writes
    }
}

extension FeedReplica {
    /// Derives `owner`'s items from `data` as of `today` (FEED-22) and publishes them with the
    /// visibility of every goal that is not deleted (FEED-23): what a device does after each
    /// change to its person's data. Returns how many writes it made.
    ///
    /// - Throws: the clock's errors (FEED-2); writes made before one stay.
    @discardableResult
    public mutating func publish(
        _ data: DataSet, owner: String, boundary: DayBoundary, today: Day, clock: inout HybridClock, now: Int64
    ) throws(FeedError) -> Int {
        try publish(
            FeedDerivation.items(of: data, owner: owner, boundary: boundary, today: today), of: data, owner: owner,
            today: today, clock: &clock, now: now)
    }

    /// Publishes `items`, which ``FeedDerivation`` derived from `data` as of `today` (perhaps
    /// elsewhere: off the main actor, or before this replica last changed), with the visibility of
    /// every goal of `data` that is not deleted (FEED-23). Returns how many writes it made.
    ///
    /// - Throws: the clock's errors (FEED-2); writes made before one stay.
    @discardableResult
    public mutating func publish(
        _ items: [FeedItem], of data: DataSet, owner: String, today: Day, clock: inout HybridClock, now: Int64
    ) throws(FeedError) -> Int {
        let visibility = Dictionary(
            data.sortedGoals.filter { !$0.deleted }.map { ($0.id.description, $0.visibility) },
            uniquingKeysWith: { a, _ in a })
        // The window of FEED-23; near the first Day there is, it starts there.
        let first = (try? today.adding(days: -(FeedDerivation.checkInWindow - 1))) ?? today
        return try publish(items, visibility: visibility, owner: owner, window: first...today, clock: &clock, now: now)
    }
}
