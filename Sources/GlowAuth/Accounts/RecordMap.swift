import GlowCore

/// One map of ``AccountRecords``: a dictionary that remembers which keys an update changed and
/// what each held before its first change, so a store writes exactly the records an update
/// touched (O(changes), not O(records)) and can put them back when the update is refused.
///
/// A map lives in memory (``InMemoryAccountStore``, tests), or reads a database's rows as an
/// update asks for them (``AccountRowReader``): a key's record when the key is read, an account's
/// records when ``owned(by:)`` is asked, the records past a time when ``expiring(atOrBefore:)``
/// is; never the whole table. Every write (`subscript` set, `removeValue`) notes its key.
/// ``AccountStore`` implementations call ``keepChanges()`` once the changes are stored, or
/// ``undoChanges()`` to discard them.
public struct RecordMap<Key: Hashable & Sendable, Value: Sendable>: Sendable, Sequence {
    /// In memory, every record; over rows, the records this update wrote.
    private var storage: [Key: Value] = [:]
    /// The value each changed key held before its first change since the last keep or undo:
    /// `.some(nil)` for a key that was absent.
    private var originals: [Key: Value?] = [:]
    /// What the map's records are found by besides their keys.
    private let index: RecordIndex<Value>
    /// The rows the map reads, when it is over a database.
    private let rows: RecordRows<Key, Value>?

    /// An empty map in memory whose records belong to the account `owner` gives (nil: to none)
    /// and may be forgotten from the time `expiry` gives (nil: never).
    public init(
        owner: @escaping @Sendable (Value) -> String? = { _ in nil },
        expiry: @escaping @Sendable (Value) -> Double? = { _ in nil }
    ) {
        index = RecordIndex(owner: owner, expiry: expiry)
        rows = nil
    }

    /// A map over a database's rows, read through `rows` as they are asked for, indexed as
    /// `index` says.
    init(index: RecordIndex<Value>, rows: RecordRows<Key, Value>) {
        self.index = index
        self.rows = rows
    }

    /// The value for `key`; setting it (nil removes it) notes the key as changed.
    public subscript(key: Key) -> Value? {
        get {
            if let value = storage[key] { return value }
            // A key written here holds what was written; else the row, when there is one.
            if originals[key] != nil { return nil }
            return rows?.value(key)
        }
        set {
            note(key)
            storage[key] = newValue
        }
    }

    /// Removes `key`'s value, noting the key as changed, and returns what it was.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        let old = self[key]
        note(key)
        storage[key] = nil
        return old
    }

    /// The records of account `owner` (those whose index names it), as this update sees them,
    /// by key order of no meaning.
    public func owned(by owner: String) -> [(key: Key, value: Value)] {
        let stored = rows?.owned(by: owner) ?? []
        return merged(stored) { index.owner($0) == owner }
    }

    /// The records whose expiry (``RecordIndex``) is at or before `time`, as this update sees
    /// them: what a purge forgets, and the revocations that are due.
    public func expiring(atOrBefore time: Double) -> [(key: Key, value: Value)] {
        let stored = rows?.expiring(atOrBefore: time) ?? []
        return merged(stored) { index.expiry($0).map { $0 <= time } ?? false }
    }

    /// `stored` rows with this update's writes over them, then the written records that match.
    private func merged(_ stored: [(key: Key, value: Value)], _ matches: (Value) -> Bool) -> [(
        key: Key, value: Value
    )] {
        var found: [(key: Key, value: Value)] = stored.filter { originals[$0.key] == nil && storage[$0.key] == nil }
        for (key, value) in storage where matches(value) { found.append((key, value)) }
        return found
    }

    /// How many records the map holds in memory: every record of a map in memory; the ones read
    /// or written by this update of a map over rows.
    public var count: Int { keys.count }
    /// Whether it holds none in memory.
    public var isEmpty: Bool { keys.isEmpty }
    /// The keys it holds in memory.
    public var keys: Set<Key> { Set(storage.keys).union(rows?.readKeys ?? []).filter { self[$0] != nil } }
    /// The values it holds in memory.
    public var values: [Value] { keys.compactMap { self[$0] } }

    /// Its key-value pairs held in memory, in no order of meaning.
    public func makeIterator() -> [(key: Key, value: Value)].Iterator {
        keys.compactMap { key in self[key].map { (key, $0) } }.makeIterator()
    }

    /// The keys written since the last ``keepChanges()`` or ``undoChanges()``: each one's record
    /// is now `self[key]` (nil when it was removed).
    public var changedKeys: Dictionary<Key, Value?>.Keys { originals.keys }

    /// The account a record belongs to and when it may be forgotten, as this map indexes them.
    public func indexed(_ value: Value) -> (owner: String?, expiry: Double?) {
        (index.owner(value), index.expiry(value))
    }

    /// Forgets which keys changed: the changes stay.
    public mutating func keepChanges() {
        originals.removeAll(keepingCapacity: originals.count < 1_024)
    }

    /// Puts back what every changed key held, and forgets the changes.
    public mutating func undoChanges() {
        for (key, value) in originals {
            if rows == nil {
                storage[key] = value
            } else {
                // Over rows, the row itself is what the key held.
                storage[key] = nil
            }
        }
        originals.removeAll(keepingCapacity: originals.count < 1_024)
    }

    private mutating func note(_ key: Key) {
        if originals[key] == nil { originals[key] = .some(self[key]) }
    }
}

extension RecordMap: Equatable where Value: Equatable {
    /// Maps are equal when they hold the same records in memory, whatever changed to get there.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.keys == rhs.keys && lhs.keys.allSatisfy { lhs[$0] == rhs[$0] }
    }
}

/// What a map's records are found by besides their keys: the account each belongs to, and the
/// time from which it may be forgotten. A database keeps both as indexed columns of the record's
/// row.
public struct RecordIndex<Value>: Sendable {
    /// The account the record belongs to, nil for none.
    public let owner: @Sendable (Value) -> String?
    /// The time (seconds since 1970) at or after which a purge may forget the record, given the
    /// purge's own allowance, nil for never.
    public let expiry: @Sendable (Value) -> Double?
}

/// The rows of one map that an update read from a database, each read once: what a
/// ``RecordMap`` over rows asks for. A read that fails is remembered by the reader
/// (``AccountRowReader/failure``) and reads as no record; the store then keeps nothing of the
/// update and fails it.
final class RecordRows<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let read: @Sendable (Key) -> Value?
    private let readOwned: @Sendable (String) -> [(key: Key, value: Value)]
    private let readExpiring: @Sendable (Double) -> [(key: Key, value: Value)]
    private let cache = Locked<[Key: Value?]>([:])

    init(
        read: @escaping @Sendable (Key) -> Value?,
        owned: @escaping @Sendable (String) -> [(key: Key, value: Value)],
        expiring: @escaping @Sendable (Double) -> [(key: Key, value: Value)]
    ) {
        self.read = read
        readOwned = owned
        readExpiring = expiring
    }

    /// The row of `key`, read the first time it is asked for.
    func value(_ key: Key) -> Value? {
        if let known = cache.withLock({ $0[key] }) { return known }
        let value = read(key)
        cache.withLock { $0[key] = .some(value) }
        return value
    }

    /// The rows of account `owner`, remembered as read.
    func owned(by owner: String) -> [(key: Key, value: Value)] { remember(readOwned(owner)) }

    /// The rows expiring at or before `time`, remembered as read.
    func expiring(atOrBefore time: Double) -> [(key: Key, value: Value)] { remember(readExpiring(time)) }

    /// The keys read so far.
    var readKeys: Set<Key> { cache.withLock { Set($0.keys) } }

    private func remember(_ rows: [(key: Key, value: Value)]) -> [(key: Key, value: Value)] {
        cache.withLock { cache in
            for row in rows where cache[row.key] == nil { cache[row.key] = .some(row.value) }
        }
        // A row read before, by its key, stands for the key: one update sees one value per key.
        return rows.compactMap { row in value(row.key).map { (row.key, $0) } }
    }
}
