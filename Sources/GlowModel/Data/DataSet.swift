import Foundation

/// A person's whole data: profile, goals (tombstones included) and check-ins, keyed by their
/// stable identities; what a bundle carries and what import merges (BUNDLE-20 ... BUNDLE-24).
///
/// Check-ins are kept per goal in Day order, as bundles carry them, so export, import and merge
/// are linear passes rather than hash lookups per check-in.
public struct DataSet: Hashable, Sendable {
    /// The profile, if the data set has one.
    public package(set) var profile: Profile?
    /// Goals by identifier.
    public private(set) var goals: [GoalID: Goal] = [:]
    /// Each goal's check-ins, in ascending Day order, one per Day.
    private var entries: [GoalID: [CheckIn]] = [:]
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
            var inOrder = true
            for index in group.indices.dropFirst() where group[index - 1].day >= group[index].day {
                inOrder = false
                break
            }
            let ordered = inOrder ? group : group.sorted { $0.day < $1.day }
            for index in ordered.indices.dropFirst() where ordered[index - 1].day == ordered[index].day {
                throw ModelError(
                    .duplicateID, "goal \(goal) has two check-ins on \(ordered[index].day)", rule: "BUNDLE-17")
            }
            entries[goal] = ordered
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
        let (index, found) = position(of: checkIn.day, in: entries[checkIn.goalID] ?? [])
        if found {
            entries[checkIn.goalID]![index] = checkIn
        } else {
            entries[checkIn.goalID, default: []].insert(checkIn, at: index)
            checkInCount += 1
        }
    }

    /// Takes a goal's check-ins, in Day order and one per Day, as they are when the goal holds
    /// none yet; inserts them one by one otherwise. For readers that have checked the order.
    package mutating func put(checkIns: [CheckIn], of goal: GoalID) {
        guard !checkIns.isEmpty else { return }
        if entries[goal] == nil {
            entries[goal] = checkIns
            checkInCount += checkIns.count
        } else {
            checkIns.forEach { insert($0) }
        }
    }

    package mutating func keepUnknownRecord(_ frame: [UInt8]) {
        others.insert(frame)
    }

    /// Where `day` is or belongs in Day-ordered `list`.
    private func position(of day: Day, in list: [CheckIn]) -> (index: Int, found: Bool) {
        if let last = list.last, last.day < day { return (list.count, false) }
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].day < day { low = middle + 1 } else { high = middle }
        }
        return (low, low < list.count && list[low].day == day)
    }

    /// The check-in of a goal on a Day, if any.
    public func checkIn(_ key: CheckInKey) -> CheckIn? {
        guard let list = entries[key.goalID] else { return nil }
        let (index, found) = position(of: key.day, in: list)
        return found ? list[index] : nil
    }

    /// A goal's check-ins, in Day order.
    public func checkIns(of goal: GoalID) -> [CheckIn] { entries[goal] ?? [] }

    /// Every check-in, by goal, then Day.
    public var checkIns: [CheckIn] {
        entries.keys.sorted().flatMap { entries[$0]! }
    }

    /// The goals in identifier order.
    public var sortedGoals: [Goal] { goals.values.sorted { $0.id < $1.id } }

    /// The goals that hold check-ins, with their check-ins in Day order, by goal identifier.
    ///
    /// - Complexity: O(g log g) for g goals: each goal's check-ins are kept in order already.
    public var checkInsByGoal: [(goal: GoalID, checkIns: [CheckIn])] {
        entries.keys.sorted().compactMap { goal in
            let list = entries[goal]!
            return list.isEmpty ? nil : (goal, list)
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
            guard let mine = entries[goal], !mine.isEmpty else {
                entries[goal] = theirs
                checkInCount += theirs.count
                changes.set(theirs.map(\.day), of: goal)
                continue
            }
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

    /// Two Day-ordered lists of one goal's check-ins merged in one linear pass, and the Days
    /// whose check-in differs from `mine`'s.
    private static func merged(_ mine: [CheckIn], _ theirs: [CheckIn]) -> ([CheckIn], [Day]) {
        var merged: [CheckIn] = []
        merged.reserveCapacity(mine.count + theirs.count)
        var changed: [Day] = []
        var i = 0
        var j = 0
        while i < mine.count || j < theirs.count {
            if j == theirs.count || (i < mine.count && mine[i].day < theirs[j].day) {
                merged.append(mine[i])
                i += 1
            } else if i == mine.count || theirs[j].day < mine[i].day {
                merged.append(theirs[j])
                changed.append(theirs[j].day)
                j += 1
            } else {
                let both = mine[i].merging(theirs[j])  // every tap of both (MODEL-54)
                if both != mine[i] { changed.append(both.day) }
                merged.append(both)
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
