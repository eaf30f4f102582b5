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
