import GlowModel

/// A person's whole data: profile, goals (tombstones included) and check-ins, keyed by their
/// stable identities; what a bundle carries and what import merges (BUNDLE-20 ... BUNDLE-24).
public struct DataSet: Hashable, Sendable {
    /// The profile, if the data set has one.
    public var profile: Profile?
    /// Goals by identifier.
    public private(set) var goals: [GoalID: Goal] = [:]
    /// Check-ins by (goal, Day).
    public private(set) var checkIns: [CheckInKey: CheckIn] = [:]
    /// Whole records of types this version does not know, as raw bundle frames, kept so a
    /// re-export loses nothing (BUNDLE-24); sorted, without repeats.
    public private(set) var otherRecords: [[UInt8]] = []

    /// An empty data set.
    public init() {}

    /// A data set of these records.
    ///
    /// - Throws: ``ModelError/Code/duplicateID`` when two goals share an id or two check-ins a
    ///   (goal, Day).
    public init(profile: Profile?, goals: [Goal], checkIns: [CheckIn]) throws(ModelError) {
        self.profile = profile
        for goal in goals {
            guard self.goals.updateValue(goal, forKey: goal.id) == nil else {
                throw ModelError(.duplicateID, "goal \(goal.id) appears twice", rule: "BUNDLE-14")
            }
        }
        for checkIn in checkIns {
            guard self.checkIns.updateValue(checkIn, forKey: checkIn.key) == nil else {
                throw ModelError(
                    .duplicateID, "goal \(checkIn.goalID) has two check-ins on \(checkIn.day)", rule: "BUNDLE-14")
            }
        }
    }

    /// Adds or replaces a goal (no merge rule applied).
    public mutating func put(_ goal: Goal) { goals[goal.id] = goal }

    /// Adds or replaces a check-in (no merge rule applied).
    public mutating func put(_ checkIn: CheckIn) { checkIns[checkIn.key] = checkIn }

    mutating func putOther(_ frame: [UInt8]) {
        insertSorted(frame, into: &otherRecords)
    }

    /// The goals in identifier order.
    public var sortedGoals: [Goal] { goals.values.sorted { $0.id < $1.id } }

    /// The check-ins grouped per goal, as blocks in goal order.
    public var blocks: [CheckInBlock] {
        Dictionary(grouping: checkIns.values, by: \.goalID)
            .sorted { $0.key < $1.key }
            .map { try! CheckInBlock(goalID: $0.key, checkIns: $0.value) }  // keys are unique per goal and Day
    }

    /// Whether the data set holds nothing.
    public var isEmpty: Bool { profile == nil && goals.isEmpty && checkIns.isEmpty && otherRecords.isEmpty }
}

// MARK: - Merge (BUNDLE-20 ... BUNDLE-24)

extension DataSet {
    /// Merges `other` into this data set: per identity the newer record wins (BUNDLE-21).
    ///
    /// The order is a total one, so merge is idempotent, commutative and associative: later
    /// `modifiedAt` wins; of equal instants a tombstone wins; of equals, the record whose
    /// canonical bytes are greater.
    /// - Complexity: O(n + m) for the sizes of the two data sets.
    public mutating func merge(_ other: DataSet) {
        if let theirs = other.profile {
            profile = profile.map { Self.newer($0, theirs, \.modifiedAt, { _ in false }) } ?? theirs
        }
        for (id, goal) in other.goals {
            goals[id] = goals[id].map { Self.newer($0, goal, \.modifiedAt, \.deleted) } ?? goal
        }
        for (key, checkIn) in other.checkIns {
            checkIns[key] = checkIns[key].map { Self.newer($0, checkIn, \.modifiedAt, \.deleted) } ?? checkIn
        }
        for record in other.otherRecords { insertSorted(record, into: &otherRecords) }
    }

    /// This data set merged with `other`.
    public func merging(_ other: DataSet) -> DataSet {
        var copy = self
        copy.merge(other)
        return copy
    }

    /// The winner of two versions of one record (BUNDLE-21).
    static func newer<T: WireMessage>(
        _ a: T, _ b: T, _ modified: (T) -> Instant, _ deleted: (T) -> Bool
    ) -> T {
        if modified(a) != modified(b) { return modified(a) > modified(b) ? a : b }
        if deleted(a) != deleted(b) { return deleted(a) ? a : b }
        return a.wireEncoded().lexicographicallyPrecedes(b.wireEncoded()) ? b : a
    }
}

private func insertSorted(_ value: [UInt8], into array: inout [[UInt8]]) {
    var low = 0
    var high = array.count
    while low < high {
        let middle = (low + high) / 2
        if array[middle].lexicographicallyPrecedes(value) { low = middle + 1 } else { high = middle }
    }
    if low < array.count, array[low] == value { return }
    array.insert(value, at: low)
}

// MARK: - JSON

extension DataSet: Codable {
    private enum CodingKeys: String, CodingKey {
        case profile
        case goals
        case checkIns
    }

    /// Decodes `{"profile": ..., "goals": [...], "checkIns": [...]}` (BUNDLE-25).
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
        try c.encode(checkIns.values.sorted { $0.key < $1.key }, forKey: .checkIns)
    }
}
