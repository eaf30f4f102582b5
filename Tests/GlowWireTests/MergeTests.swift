import GlowBundle
import GlowModel
import GlowWire
import Testing

/// Property tests of merge over randomly generated data sets (BUNDLE-21).
@Suite("Merge")
struct MergeTests {

    /// A data set drawn from a small pool of identities, so that sets overlap and conflict, with
    /// equal instants on purpose to exercise the tie-breaks.
    static func dataSet(_ random: inout SeededRandom) -> DataSet {
        let base = Samples.goals
        var data = DataSet()
        if random.next() % 3 != 0 {
            var profile = Samples.profile
            let name = ["Mia", "Mia M.", "mia"][Int(random.next() % 3)]
            try! profile.edit(at: Samples.now.adding(milliseconds: Int64(random.next() % 3) * 1000)) {
                $0.displayName = name
            }
            data.profile = profile
        }
        for goal in base.prefix(6) where random.next() % 2 == 0 {
            var copy = goal
            let title = "\(goal.title) v\(random.next() % 3)"
            let edited = try! goal.modifiedAt.adding(milliseconds: Int64(random.next() % 3) * 1000)
            try! copy.edit(at: edited) { $0.title = title }
            if random.next() % 4 == 0 { copy = copy.deleting(at: edited) }
            data.put(copy)
        }
        for goal in base.prefix(6) {
            // A data set holds the goals of its check-ins.
            if data.goals[goal.id] == nil { data.put(goal) }
            for checkIn in Samples.checkIns(for: goal, days: 8) where random.next() % 2 == 0 {
                let edited = try! checkIn.modifiedAt.adding(milliseconds: Int64(random.next() % 2) * 1000)
                var copy = random.next() % 5 == 0 ? checkIn.deleting(at: edited) : checkIn
                copy = try! copy.withNote(random.next() % 3 == 0 ? "v\(random.next() % 2)" : nil, at: edited)
                try! data.put(copy)
            }
        }
        return data
    }

    @Test("merge is idempotent, commutative and associative", arguments: 0..<40)
    func laws(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let a = Self.dataSet(&random)
        let b = Self.dataSet(&random)
        let c = Self.dataSet(&random)
        #expect(a.merging(a) == a)
        #expect(a.merging(b) == b.merging(a))
        #expect(a.merging(b).merging(c) == a.merging(b.merging(c)))
        #expect(a.merging(b).merging(b) == a.merging(b))
    }

    @Test("a goal deleted on one device never comes back from an older bundle")
    func tombstones() throws {
        let goal = Samples.goals[2]
        let deleted = goal.deleting(at: try goal.modifiedAt.adding(milliseconds: 60_000))
        var phone = DataSet()
        phone.put(deleted)
        var oldBackup = DataSet()
        oldBackup.put(goal)
        let bytes = BundleWriter.bundle(oldBackup, options: Samples.options)
        let merged = try BundleReader().importing(bytes, into: phone)
        #expect(merged.goals[goal.id]?.deleted == true)
        #expect(merged == phone, "importing the same old bundle again changes nothing")
    }

    @Test("check-ins meet by goal and Day; the newer wins")
    func checkInConflicts() throws {
        let goal = Samples.goals[0]
        let first = Samples.checkIns(for: goal, days: 1)[0]
        let later = try first.withNote("edited on the tablet", at: first.modifiedAt.adding(milliseconds: 5))
        var phone = DataSet()
        phone.put(goal)
        try phone.put(first)
        var tablet = DataSet()
        tablet.put(goal)
        try tablet.put(later)
        #expect(phone.merging(tablet).checkIn(first.key) == later)
        #expect(tablet.merging(phone).checkIn(first.key) == later)
        #expect(phone.merging(tablet).checkInCount == 1)
    }
}

/// A few Days merged into a long history take an in-place path (binary search per Day); the
/// other direction, a long history into a short one, takes the linear one. Both must agree.
@Suite("Merge of a few Days into a long history")
struct SmallMergeTests {
    @Test("a small delta merges in place exactly as the linear merge does", arguments: 0..<10)
    func smallIntoLarge(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let goals = Samples.goals.filter { $0.kind.isRecurring }.prefix(3)
        var long = DataSet()
        var short = DataSet()
        for goal in goals {
            long.put(goal)
            short.put(goal)
            let history = Samples.checkIns(for: goal, days: 400)
            for checkIn in history { try long.put(checkIn) }
            // A few Days: some new, some already held (changed by a tap from another device, or
            // the very same record again).
            for _ in 0..<Int(random.next() % 12 + 1) {
                let day = goal.startDay.advanced(by: Int(random.next() % 420))
                let at = try Instant(millisecondsSince1970: Int64(day.daysSince1970) * 86_400_000 + 50_000_000)
                let existing = long.checkIn(CheckInKey(goalID: goal.id, day: day))
                if random.next() % 4 == 0, let existing {
                    try short.put(existing)
                    continue
                }
                // The watch either saw the phone's entry first or did not: then the merge must
                // join the two devices' taps.
                let seen = random.next() % 2 == 0 ? existing : nil
                guard
                    let tapped = try? CheckIn.record(
                        CheckInHistoryTests.tap(for: goal), for: goal, on: day, at: at,
                        timeZone: CheckInHistoryTests.tokyo,
                        deviceID: CheckInHistoryTests.watch, existing: seen)
                else { continue }
                try short.put(tapped)
            }
        }
        var inPlace = long
        let changes = inPlace.merge(short)
        var linear = short
        linear.merge(long)
        #expect(inPlace == linear)
        #expect(inPlace.checkInCount == inPlace.checkIns.count)
        // Exactly the Days whose entry differs are reported.
        for goal in goals {
            for checkIn in short.checkIns(of: goal.id) {
                let before = long.checkIn(checkIn.key)
                #expect(changes.contains(checkIn.key) == (before != inPlace.checkIn(checkIn.key)), "\(checkIn.day)")
            }
        }
    }
}
