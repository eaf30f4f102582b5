import GlowRelay
import GlowReminders
import GlowStorage

/// The relay's push outbox (REMIND-14 ... REMIND-17) as rows, for every database that keeps it:
/// each row is its kind (`device`, `group`, `last`), its key and its JSON. One reader and one
/// writer of those rows, whatever the database.
package enum PushRows {
    /// Takes one row into `state`'s outbox: its JSON, or nil for a row removed.
    ///
    /// - Throws: ``StoreError`` `corrupt` for a kind this version does not know or a value that
    ///   does not read.
    package static func apply(
        kind: String, key: String, value: [UInt8]?, to state: inout FeedRelayState, path: String
    ) throws(StoreError) {
        guard let kind = PushOutbox.Row.Kind(rawValue: kind) else {
            throw StoreError(.corrupt, "a push row of an unknown kind '\(kind.prefix(40))'", path: path)
        }
        do {
            try state.pushes.apply(PushOutbox.Row.Key(kind, key), value: value)
        } catch {
            throw StoreError(.corrupt, error.message, path: path)
        }
    }

    /// The columns a push row is found by (issue 43): a device's person and token, a closed
    /// person's id, the token of a group, a last push or a proof, and a group's send time, a last
    /// push's time or a proof's queueing time.
    ///
    /// - Throws: ``StoreError`` `corrupt` for a kind this version does not know or a value that
    ///   does not read.
    package static func columns(kind: String, key: String, value: [UInt8], path: String) throws(StoreError) -> (
        person: String?, token: String?, at: Int64?
    ) {
        guard let known = PushOutbox.Row.Kind(rawValue: kind) else {
            throw StoreError(.corrupt, "a push row of an unknown kind '\(kind.prefix(40))'", path: path)
        }
        let row = PushOutbox.Row.Key(known, key)
        do throws(PushError) {
            switch known {
            case .device: return (try PushOutbox.person(ofDeviceRow: value), key, nil)
            case .closed: return (key, nil, nil)
            case .group, .last, .proof:
                guard let token = row.token else {
                    throw PushError(.unreadableRow, "a push \(kind) row's key names no token")
                }
                return (nil, token, try PushOutbox.time(ofRow: known, value))
            }
        } catch {
            throw StoreError(.corrupt, error.message, path: path)
        }
    }

    /// The rows the outbox changed since its last keep: a value for a row written, nil for one
    /// removed. The caller keeps the changes once it wrote them.
    package static func changed(_ state: FeedRelayState) -> [(kind: String, key: String, value: [UInt8]?)] {
        state.pushes.changedRows.sorted { ($0.kind.rawValue, $0.key) < ($1.kind.rawValue, $1.key) }.map { row in
            (row.kind.rawValue, row.key, state.pushes.value(of: row))
        }
    }
}
