import Foundation
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

/// A database's rows for ``AccountRecords/init(rows:)``, in memory: what the SQLite and
/// PostgreSQL stores answer, with a count of the reads.
final class RowsInMemory: AccountRowReader, @unchecked Sendable {
    var rows: [String: [String: (owner: String?, expiry: Double?, json: String)]] = [:]
    var reads = 0
    var failures: [String] = []

    func row(map: String, key: String) -> [UInt8]? {
        reads += 1
        return rows[map]?[key].map { Array($0.json.utf8) }
    }

    func rows(map: String, owner: String) -> [(key: String, value: [UInt8])] {
        reads += 1
        return (rows[map] ?? [:]).filter { $0.value.owner == owner }.map { ($0.key, Array($0.value.json.utf8)) }
    }

    func rows(map: String, expiringAtOrBefore time: Double) -> [(key: String, value: [UInt8])] {
        reads += 1
        return (rows[map] ?? [:]).filter { $0.value.expiry.map { $0 <= time } ?? false }.map {
            ($0.key, Array($0.value.json.utf8))
        }
    }

    func fail(_ message: String) { failures.append(message) }
}

@Suite("Record map over rows")
struct RecordRowsTests {
    static func throttle(_ failures: Int, at time: Double) -> (owner: String?, expiry: Double?, json: String) {
        (nil, time, #"{"failures":\#(failures),"lastFailure":\#(time)}"#)
    }

    static func identity(_ subject: String, of account: String) -> (owner: String?, expiry: Double?, json: String) {
        (account, nil, #"{"account":{"rawValue":"\#(account)"},"provider":"apple","subject":"\#(subject)"}"#)
    }

    @Test("a key is read once; writes, removals and undo lie over the rows; by-expiry and by-owner answers see them")
    func overlay() throws {
        let database = RowsInMemory()
        database.rows["throttles"] = ["t1": Self.throttle(1, at: 10), "t2": Self.throttle(2, at: 20)]
        database.rows["identities"] = ["i1": Self.identity("s1", of: "a1"), "i2": Self.identity("s2", of: "a1")]
        var records = AccountRecords(rows: database)
        #expect(records.throttles["t2"]?.failures == 2 && records.throttles["t2"]?.failures == 2)
        #expect(database.reads == 1, "the second look is the first one's row")
        #expect(records.throttles.expiring(atOrBefore: 15).map(\.key) == ["t1"])
        let early = try JSONDecoder().decode(
            AccountRecords.Throttle.self, from: Data(Self.throttle(3, at: 5).json.utf8))
        records.throttles["t3"] = early
        records.throttles["t1"] = nil
        #expect(records.throttles.expiring(atOrBefore: 15).map(\.key) == ["t3"])
        #expect(Set(records.throttles.changedKeys) == ["t1", "t3"])
        let moved = try JSONDecoder().decode(
            AccountRecords.Identity.self, from: Data(Self.identity("s2", of: "b9").json.utf8))
        records.identities["i2"] = moved
        #expect(records.identities.owned(by: "a1").map(\.key) == ["i1"])
        #expect(records.identities.owned(by: "b9").map(\.key) == ["i2"])
        records.undoChanges()
        #expect(records.throttles["t1"]?.failures == 1 && records.throttles["t3"] == nil)
        #expect(Set(records.identities.owned(by: "a1").map(\.key)) == ["i1", "i2"])
        #expect(database.failures.isEmpty)
    }

    @Test("a row that does not decode reads as none, and the reader is told, so the store keeps nothing")
    func undecodable() {
        let database = RowsInMemory()
        database.rows["throttles"] = ["bad": (nil, 1, #"{"failures":"many"}"#), "t1": Self.throttle(1, at: 1)]
        let records = AccountRecords(rows: database)
        #expect(records.throttles["bad"] == nil)
        #expect(records.throttles.expiring(atOrBefore: 5).map(\.key) == ["t1"])
        #expect(database.failures.count == 2 && database.failures.allSatisfy { $0.contains("throttles") })
    }
}
