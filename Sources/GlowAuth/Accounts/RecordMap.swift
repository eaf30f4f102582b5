/// One map of ``AccountRecords``: a dictionary that remembers which keys an update changed and
/// what each held before its first change, so a store writes exactly the records an update
/// touched (O(changes), not O(records)) and can put them back when the update is refused.
///
/// Reading and iterating are a dictionary's; every write (`subscript` set, `removeValue`) notes
/// its key. ``AccountStore`` implementations call ``keepChanges()`` once the changes are stored,
/// or ``undoChanges()`` to discard them.
public struct RecordMap<Key: Hashable & Sendable, Value: Sendable>: Sendable, Sequence {
    private var storage: [Key: Value] = [:]
    /// The value each changed key held before its first change since the last keep or undo:
    /// `.some(nil)` for a key that was absent.
    private var originals: [Key: Value?] = [:]

    /// An empty map.
    public init() {}

    /// The value for `key`; setting it (nil removes it) notes the key as changed.
    public subscript(key: Key) -> Value? {
        get { storage[key] }
        set {
            note(key)
            storage[key] = newValue
        }
    }

    /// Removes `key`'s value, noting the key as changed, and returns what it was.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        note(key)
        return storage.removeValue(forKey: key)
    }

    /// How many records the map holds.
    public var count: Int { storage.count }
    /// Whether it holds none.
    public var isEmpty: Bool { storage.isEmpty }
    /// Its keys.
    public var keys: Dictionary<Key, Value>.Keys { storage.keys }
    /// Its values.
    public var values: Dictionary<Key, Value>.Values { storage.values }

    /// Its key-value pairs, in the dictionary's order.
    public func makeIterator() -> Dictionary<Key, Value>.Iterator { storage.makeIterator() }

    /// The keys written since the last ``keepChanges()`` or ``undoChanges()``: each one's record
    /// is now `self[key]` (nil when it was removed).
    public var changedKeys: Dictionary<Key, Value?>.Keys { originals.keys }

    /// Forgets which keys changed: the changes stay.
    public mutating func keepChanges() {
        originals.removeAll(keepingCapacity: originals.count < 1_024)
    }

    /// Puts back what every changed key held, and forgets the changes.
    public mutating func undoChanges() {
        for (key, value) in originals { storage[key] = value }
        originals.removeAll(keepingCapacity: originals.count < 1_024)
    }

    private mutating func note(_ key: Key) {
        if originals[key] == nil { originals[key] = .some(storage[key]) }
    }
}

extension RecordMap: Equatable where Value: Equatable {
    /// Maps are equal when they hold the same records, whatever changed to get there.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.storage == rhs.storage }
}
