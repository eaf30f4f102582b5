import GlowCore

extension DataSet {
    /// What a mutation or a merge changed in a data set (MODEL-62): the records whose stored
    /// version is different afterwards, so that a UI refreshes only those and a feed announces
    /// each change once.
    ///
    /// A record that a merge brought in unchanged (the same version arriving again) is not a
    /// change. Check-ins are listed per goal as sorted Days, so a merge that brings a million
    /// check-ins reports them in a few bytes each.
    public struct Changes: Hashable, Sendable {
        /// Whether the profile changed.
        public var profile = false
        /// The goals whose record changed: added, edited, archived, unarchived or deleted.
        public var goals: Set<GoalID> = []
        /// The Days whose check-in changed, per goal, in ascending order without repeats.
        public private(set) var days: [GoalID: [Day]] = [:]
        /// How many records of unknown types arrived that the data set did not hold.
        public var otherRecords = 0

        /// No changes.
        public init() {}

        /// Whether nothing changed.
        public var isEmpty: Bool { !profile && goals.isEmpty && days.isEmpty && otherRecords == 0 }

        /// The goals whose record or check-ins changed: the goals whose Today, Overview and
        /// milestones may have changed.
        public var affectedGoals: Set<GoalID> { goals.union(days.keys) }

        /// How many check-ins changed.
        public var checkInCount: Int { days.values.reduce(0) { $0 + $1.count } }

        /// Whether the check-in of `key` changed.
        ///
        /// - Complexity: O(log n) for the n Days changed of that goal.
        public func contains(_ key: CheckInKey) -> Bool {
            guard let list = days[key.goalID] else { return false }
            let index = list.partitioningIndex { $0 >= key.day }
            return index < list.count && list[index] == key.day
        }

        /// Notes that the check-in of `key` changed.
        ///
        /// - Complexity: O(1) amortised when Days come in ascending order, as merges report them.
        public mutating func insert(_ key: CheckInKey) {
            if let last = days[key.goalID]?.last, last >= key.day {
                guard !contains(key) else { return }
                days[key.goalID]!.append(key.day)
                days[key.goalID]!.sort()
            } else {
                days[key.goalID, default: []].append(key.day)
            }
        }

        /// Adds what `other` changed.
        public mutating func formUnion(_ other: Changes) {
            profile = profile || other.profile
            goals.formUnion(other.goals)
            for (goal, list) in other.days {
                if let mine = days[goal] {
                    days[goal] = Array(Set(mine).union(list)).sorted()
                } else {
                    days[goal] = list
                }
            }
            otherRecords += other.otherRecords
        }

        /// Takes the sorted Days of one goal's changed check-ins.
        mutating func set(_ list: [Day], of goal: GoalID) {
            guard !list.isEmpty else { return }
            days[goal] = list
        }
    }
}
