import Foundation

/// A person's whole data: profile, goals (tombstones included) and check-ins, keyed by their
/// stable identities; what a bundle carries and what import merges (BUNDLE-20 ... BUNDLE-24).
///
/// Check-ins are kept per goal in Day order, as bundles carry them, so export, import and merge
/// are linear passes rather than hash lookups per check-in.
public struct DataSet: Hashable, Sendable {
    /// The profile, if the data set has one.
    public package(set) var profile: Profile?
    /// The person's day boundary, or ``DayBoundary/utc`` while there is no profile.
    public var dayBoundary: DayBoundary { profile?.boundary ?? .utc }
    /// Goals by identifier.
    public private(set) var goals: [GoalID: Goal] = [:]
    /// Each goal's check-ins, in ascending Day order, one per Day, as columns.
    private var entries: [GoalID: CheckInHistory] = [:]
    /// How many check-ins the data set holds.
    public private(set) var checkInCount = 0
    /// Whole records of types this version does not know, as raw bundle frames, kept so a
    /// re-export loses nothing (BUNDLE-24); without repeats, kept as a set so that adding one
    /// costs O(1) whatever the order they arrive in.
    private var others: Set<[UInt8]> = []

    /// The records of types this version does not know, ordered by their bytes (BUNDLE-15).
    ///
    /// - Complexity: O(n log n): sorted when asked for.
    public var otherRecords: [[UInt8]] { others.sorted { $0.lexicographicallyPrecedes($1) } }

    /// How many records of unknown types the data set holds.
    public var otherRecordCount: Int { others.count }

    /// An empty data set.
    public init() {}

    /// A data set of these records.
    ///
    /// - Throws: ``ModelError/Code/duplicateID`` when two goals share an id or two check-ins a
    ///   (goal, Day); ``ModelError/Code/invalidCheckIn`` when a check-in names a goal the data
    ///   set does not hold (its bundle would break BUNDLE-5), with the path of the check-in.
    public init(profile: Profile?, goals: [Goal], checkIns: [CheckIn]) throws(ModelError) {
        self.profile = profile
        for (index, goal) in goals.enumerated() {
            guard self.goals.updateValue(goal, forKey: goal.id) == nil else {
                throw ModelError(
                    .duplicateID, "goal \(goal.id) appears twice", path: "$.goals[\(index)]", rule: "BUNDLE-17")
            }
        }
        var grouped: [GoalID: [CheckIn]] = [:]
        for index in checkIns.indices {
            guard self.goals[checkIns[index].goalID] != nil else {
                throw ModelError(
                    .invalidCheckIn,
                    "the check-in names goal \(checkIns[index].goalID), which the data set does not hold",
                    path: "$.checkIns[\(index)].goalID", rule: "BUNDLE-17")
            }
            grouped[checkIns[index].goalID, default: []].append(checkIns[index])
        }
        for (goal, group) in grouped {
            do {
                entries[goal] = try CheckInHistory(goalID: goal, checkIns: group)
            } catch {
                throw ModelError(.duplicateID, error.message, rule: "BUNDLE-17")
            }
        }
        checkInCount = checkIns.count
    }

    /// Adds or replaces a goal (no merge rule applied): for readers and tests; apps use the
    /// validating mutations (``add(_:)``, ``editGoal(_:at:_:)``, ...).
    package mutating func put(_ goal: Goal) { goals[goal.id] = goal }

    /// Adds or replaces a check-in (no merge rule applied): for readers and tests; apps use
    /// ``tap(_:goal:at:device:boundary:)`` and its kin.
    ///
    /// - Throws: ``ModelError/Code/invalidCheckIn`` when the data set does not hold the check-in's
    ///   goal; nothing changes then.
    /// - Complexity: O(1) amortised when Days come in order, O(log n + n) otherwise.
    package mutating func put(_ checkIn: CheckIn) throws(ModelError) {
        guard goals[checkIn.goalID] != nil else {
            throw ModelError(
                .invalidCheckIn, "the check-in names goal \(checkIn.goalID), which the data set does not hold",
                rule: "BUNDLE-17")
        }
        insert(checkIn)
    }

    /// Adds or replaces a check-in whose goal is known to be held.
    mutating func insert(_ checkIn: CheckIn) {
        if entries[checkIn.goalID, default: CheckInHistory(goalID: checkIn.goalID)].set(checkIn) {
            checkInCount += 1
        }
    }

    /// Takes a goal's history as it is when the goal holds no check-ins yet; otherwise adds or
    /// replaces its check-ins one by one. For readers.
    package mutating func put(history: CheckInHistory) {
        guard !history.isEmpty else { return }
        guard let mine = entries[history.goalID], !mine.isEmpty else {
            entries[history.goalID] = history
            checkInCount += history.count
            return
        }
        history.forEach { insert($0) }
    }

    package mutating func keepUnknownRecord(_ frame: [UInt8]) {
        others.insert(frame)
    }

    /// The part of this data set that `changes` names (MODEL-62): the profile when it changed, the
    /// record of every goal whose record or check-ins changed, the check-ins of the changed Days
    /// with all their taps and, when records of unknown types arrived, all of those. Merging it
    /// into a data set that held what this one held before the changes brings those records to
    /// their state here: what a device sends its other devices (SYNC-4).
    ///
    /// - Complexity: O(c log n) for c changed check-ins in histories of n.
    public func restricted(to changes: Changes) -> DataSet {
        var part = DataSet()
        if changes.profile { part.profile = profile }
        for id in changes.affectedGoals {
            if let goal = goals[id] { part.goals[id] = goal }
        }
        for (goal, days) in changes.days where part.goals[goal] != nil {
            guard let history = entries[goal] else { continue }
            for day in days {
                if let checkIn = history.checkIn(on: day) { part.insert(checkIn) }
            }
        }
        if changes.otherRecords > 0 { part.others = others }
        return part
    }

    /// The check-in of a goal on a Day, if any.
    public func checkIn(_ key: CheckInKey) -> CheckIn? {
        entries[key.goalID]?.checkIn(on: key.day)
    }

    /// A goal's check-ins, in Day order, built from its history.
    public func checkIns(of goal: GoalID) -> [CheckIn] { entries[goal].map(Array.init) ?? [] }

    /// A goal's check-ins as columns, in Day order: what evaluation reads without building a
    /// check-in per Day.
    public func history(of goal: GoalID) -> CheckInHistory { entries[goal] ?? CheckInHistory(goalID: goal) }

    /// Every check-in, by goal, then Day.
    public var checkIns: [CheckIn] {
        entries.keys.sorted().flatMap { Array(entries[$0]!) }
    }

    /// The goals in identifier order.
    public var sortedGoals: [Goal] { goals.values.sorted { $0.id < $1.id } }

    /// The histories of the goals that hold check-ins, by goal identifier.
    ///
    /// - Complexity: O(g log g) for g goals: each goal's check-ins are kept in order already.
    public var histories: [CheckInHistory] {
        entries.keys.sorted().compactMap { goal in
            let history = entries[goal]!
            return history.isEmpty ? nil : history
        }
    }

    /// Whether the data set holds nothing.
    public var isEmpty: Bool { profile == nil && goals.isEmpty && checkInCount == 0 && others.isEmpty }
}

// MARK: - Merge (BUNDLE-20 ... BUNDLE-24)

extension DataSet {
    /// Merges `other` into this data set (BUNDLE-21, BUNDLE-22): the profile and goals by the
    /// newer version, check-ins by keeping every device's taps (MODEL-54); returns what changed
    /// (MODEL-62).
    ///
    /// For profiles and goals the order is a total one on model values, so merge is idempotent,
    /// commutative and associative: later `modifiedAt` wins; of equal instants a tombstone wins;
    /// of equals, the record whose canonical JSON, then unknown fields, are greater. Check-ins
    /// merge as sets of taps, which has the same laws.
    /// - Complexity: O(n + m) for the sizes of the two data sets.
    @discardableResult
    public mutating func merge(_ other: DataSet) -> Changes {
        var changes = Changes()
        if let theirs = other.profile {
            let merged = profile.map { Self.newer($0, theirs, \.modifiedAt, { _ in false }, \.unknownFields) } ?? theirs
            changes.profile = merged != profile
            profile = merged
        }
        for (id, goal) in other.goals {
            let merged = goals[id].map { Self.newer($0, goal, \.modifiedAt, \.deleted, \.unknownFields) } ?? goal
            if merged != goals[id] {
                goals[id] = merged
                changes.goals.insert(id)
            }
        }
        for (goal, theirs) in other.entries {
            // Only the count is read first: a copy of the history held here would make the
            // in-place path below copy the whole history on its first write.
            let held = entries[goal]?.count ?? 0
            guard held > 0 else {
                entries[goal] = theirs
                checkInCount += theirs.count
                changes.set(theirs.days, of: goal)
                continue
            }
            if theirs.count <= 32, theirs.count * 32 <= held {
                // A few Days into a long history, as a tap or a small sync brings: merged in place,
                // each found by binary search, so the history is neither rebuilt nor copied.
                var history = entries.removeValue(forKey: goal)!
                var changed: [Day] = []
                for index in theirs.indices {
                    let incoming = theirs[index]
                    if let existing = history.checkIn(on: incoming.day) {
                        let both = existing.merging(incoming)  // every tap of both (MODEL-54)
                        guard both != existing else { continue }
                        history.set(both)
                    } else {
                        history.set(incoming)
                        checkInCount += 1
                    }
                    changed.append(incoming.day)
                }
                entries[goal] = history
                changes.set(changed, of: goal)
                continue
            }
            let mine = entries[goal]!
            let (merged, changed) = Self.merged(mine, theirs)
            checkInCount += merged.count - mine.count
            entries[goal] = merged
            changes.set(changed, of: goal)
        }
        let before = others.count
        others.formUnion(other.others)
        changes.otherRecords = others.count - before
        return changes
    }

    /// Two histories of one goal merged in one linear pass, and the Days whose check-in differs
    /// from `mine`'s. Entries on one side only are copied column by column; only the Days both
    /// hold build check-ins to merge.
    static func merged(_ mine: CheckInHistory, _ theirs: CheckInHistory) -> (CheckInHistory, [Day]) {
        var changed: [Day] = []
        if !mine.isEmpty, !theirs.isEmpty, mine.day(at: mine.count - 1) < theirs.day(at: 0) {
            // Their Days all come after mine: an append, as syncing a phone's new Days usually is.
            var merged = mine
            merged.reserveCapacity(mine.count + theirs.count)
            for j in theirs.indices { merged.append(entryAt: j, of: theirs) }
            return (merged, theirs.days)
        }
        var merged = CheckInHistory(goalID: mine.goalID)
        merged.reserveCapacity(mine.count + theirs.count)
        var i = 0
        var j = 0
        while i < mine.count || j < theirs.count {
            let myDay = i < mine.count ? mine.day(at: i) : nil
            let theirDay = j < theirs.count ? theirs.day(at: j) : nil
            if let myDay, theirDay.map({ myDay < $0 }) ?? true {
                merged.append(entryAt: i, of: mine)
                i += 1
            } else if let theirDay, myDay.map({ theirDay < $0 }) ?? true {
                merged.append(entryAt: j, of: theirs)
                changed.append(theirDay)
                j += 1
            } else if mine.sameColumns(at: i, as: theirs, at: j) {
                // The same record on both sides, as a repeated sync brings: nothing to merge.
                merged.append(entryAt: i, of: mine)
                i += 1
                j += 1
            } else {
                let before = mine[i]
                let both = before.merging(theirs[j])  // every tap of both (MODEL-54)
                if both != before { changed.append(both.day) }
                merged.appendUnchecked(both)
                i += 1
                j += 1
            }
        }
        return (merged, changed)
    }

    /// The person `other` belongs to, when it is not the person this data set belongs to: the
    /// check an import makes before merging (BUNDLE-20, MODEL-61). Nil when they are the same
    /// person or either side has no profile.
    public func otherPerson(in other: DataSet) -> UserID? {
        guard let mine = profile, let theirs = other.profile, mine.userID != theirs.userID else { return nil }
        return theirs.userID
    }

    /// This data set merged with `other`.
    public func merging(_ other: DataSet) -> DataSet {
        var copy = self
        copy.merge(other)
        return copy
    }

    /// The winner of two versions of one record (BUNDLE-21): the later `modifiedAt`; at equal
    /// instants a tombstone; then the greater canonical JSON (RFC 8785, MODEL-51), then the
    /// greater unknown-field bytes. A total order on the model's values alone.
    static func newer<T: Encodable & Equatable>(
        _ a: T, _ b: T, _ modified: (T) -> Instant, _ deleted: (T) -> Bool, _ unknown: (T) -> UnknownFields
    ) -> T {
        if modified(a) != modified(b) { return modified(a) > modified(b) ? a : b }
        if a == b { return a }
        if deleted(a) != deleted(b) { return deleted(a) ? a : b }
        let (left, right) = (CanonicalJSON.bytes(a), CanonicalJSON.bytes(b))
        if left != right { return left.lexicographicallyPrecedes(right) ? b : a }
        return unknown(a).bytes.lexicographicallyPrecedes(unknown(b).bytes) ? b : a
    }
}

// MARK: - JSON

extension DataSet: Codable {
    private enum CodingKeys: String, CodingKey {
        case profile
        case goals
        case checkIns
    }

    /// Decodes `{"profile": ..., "goals": [...], "checkIns": [...]}` (BUNDLE-17).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let profile = try c.decodeIfPresent(Profile.self, forKey: .profile)
        let goals = try c.decodeIfPresent([Goal].self, forKey: .goals) ?? []
        let checkIns = try c.decodeIfPresent([CheckIn].self, forKey: .checkIns) ?? []
        do {
            try self.init(profile: profile, goals: goals, checkIns: checkIns)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: c.codingPath, debugDescription: error.message, underlyingError: error))
        }
    }

    /// Encodes goals in identifier order and check-ins in (goal, Day) order.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(profile, forKey: .profile)
        try c.encode(sortedGoals, forKey: .goals)
        try c.encode(checkIns, forKey: .checkIns)
    }
}
