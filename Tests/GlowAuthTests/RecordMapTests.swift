import GlowAuth
import Testing

/// The maps of the account records remember what an update changed, so a store writes only that
/// and can undo it (AUTH-35's stores).
@Suite("Record map")
struct RecordMapTests {
    @Test("writes note their keys; undo puts back what each key held before its first write")
    func undo() {
        var map = RecordMap<String, Int>()
        map["a"] = 1
        map["b"] = 2
        map.keepChanges()
        #expect(map.changedKeys.isEmpty && map.count == 2)

        map["a"] = 10
        map["a"] = 11
        map.removeValue(forKey: "b")
        map["c"] = 3
        #expect(Set(map.changedKeys) == ["a", "b", "c"])
        #expect(map["a"] == 11 && map["b"] == nil && map["c"] == 3)
        map.undoChanges()
        #expect(map["a"] == 1 && map["b"] == 2 && map["c"] == nil && map.count == 2)
        #expect(map.changedKeys.isEmpty)
    }

    @Test("keep forgets the changes and keeps the values; equality looks at the records only")
    func keep() {
        var map = RecordMap<String, Int>()
        map["a"] = 1
        var other = map
        other.keepChanges()
        #expect(map == other && !map.changedKeys.isEmpty && other.changedKeys.isEmpty)
        map.keepChanges()
        map["a"] = nil
        map.undoChanges()
        #expect(map["a"] == 1)
        other["a"] = 2
        #expect(map != other)
        #expect(Dictionary(uniqueKeysWithValues: other.map { ($0.key, $0.value) }) == ["a": 2])
    }

    @Test("the account records keep or undo every map at once")
    func records() throws {
        var records = AccountRecords()
        records.accountsByEmail["mia@example.com"] = AccountID(rawValue: "a1")
        records.sessionsByAccessHash["h"] = "s1"
        records.keepChanges()
        records.accountsByEmail["bob@example.com"] = AccountID(rawValue: "a2")
        records.sessionsByAccessHash["h"] = nil
        records.undoChanges()
        #expect(records.accountsByEmail.count == 1 && records.sessionsByAccessHash["h"] == "s1")
        #expect(records.accountsByEmail.changedKeys.isEmpty && records.sessionsByAccessHash.changedKeys.isEmpty)
    }
}
