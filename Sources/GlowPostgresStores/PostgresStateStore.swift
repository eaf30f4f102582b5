import Dispatch
import GlowCore
import GlowPostgres
import GlowStorage
import Synchronization

/// A service's state kept in PostgreSQL, shared by any number of server processes: the mechanism
/// under the PostgreSQL relay store.
///
/// The state is held in memory so a request costs what it changes, never what the store holds,
/// and is never trusted without checking: every table row carries the version of the change that
/// wrote it, and one row of `glow_clock` per store holds the last version. An update
///
/// 0. reads the clock: when nobody changed the store since this process read it and the body
///    changes nothing (a read), that is the answer, in one round trip;
/// 1. begins a `REPEATABLE READ` transaction and reads the clock: when another process changed
///    the store since this one read it, the rows of the later versions are read and taken in,
///    so every answer includes every write committed before it began;
/// 2. runs the body on the state;
/// 3. when the body changed something, moves the clock on by one (a row lock every writer of
///    the store takes, so writers commit one after another, in version order: a reader paging by
///    version never passes a version that commits later) and writes the rows it changed under
///    the new version; a writer that lost the race to the clock gets PostgreSQL's serialization
///    failure, and the update starts again from 1 with what the winner wrote;
/// 4. commits before it returns.
///
/// A failure drops the held state (and a lost connection), so the next update reads again:
/// memory never runs ahead of the database. Within a process, updates of a store take turns.
package final class PostgresStateStore<State: Sendable>: Sendable {
    /// The database, as its owner named it (without a password).
    package let name: String
    /// The store's row in `glow_clock`.
    package let clockName: String
    private let connect: @Sendable () throws(PostgresError) -> PostgresConnection
    private let held: Mutex<Held>
    private let behaviour: Behaviour

    /// What a kind of state does with its rows.
    package struct Behaviour: Sendable {
        /// The state of an empty store.
        let empty: @Sendable () -> State
        /// Takes in the rows written after `version` (every row for -1), inside the update's
        /// transaction.
        let catchUp: @Sendable (inout State, PostgresConnection, _ after: Int64) throws(StoreError) -> Void
        /// What `changed` and `persist` need of the state before a body ran: a few numbers, so a
        /// body that writes in place needs no copy of the whole state to compare with.
        let mark: @Sendable (State) -> [Int64]
        /// Whether the body changed anything to write since `mark` was taken.
        let changed: @Sendable (_ mark: [Int64], _ after: State) -> Bool
        /// Writes what changed since `mark` under `version`, and marks the state as written.
        let persist:
            @Sendable (_ mark: [Int64], inout State, PostgresConnection, _ version: Int64) throws(StoreError)
                -> Void

        package init(
            empty: @escaping @Sendable () -> State,
            catchUp: @escaping @Sendable (inout State, PostgresConnection, Int64) throws(StoreError) -> Void,
            mark: @escaping @Sendable (State) -> [Int64],
            changed: @escaping @Sendable ([Int64], State) -> Bool,
            persist: @escaping @Sendable ([Int64], inout State, PostgresConnection, Int64) throws(StoreError) -> Void
        ) {
            self.empty = empty
            self.catchUp = catchUp
            self.mark = mark
            self.changed = changed
            self.persist = persist
        }
    }

    private struct Held: ~Copyable {
        var connection: PostgresConnection?
        /// Nil until read, and after a failure.
        var state: State?
        /// The clock's version the state is at.
        var version: Int64 = -1
    }

    /// How many times an update starts again after losing the race to the clock.
    static var attempts: Int { 32 }

    /// A store whose row in `glow_clock` is `clockName`, connecting with `connect`.
    package init(
        name: String, clockName: String, behaviour: Behaviour,
        connect: @escaping @Sendable () throws(PostgresError) -> PostgresConnection
    ) {
        self.name = name
        self.clockName = clockName
        self.behaviour = behaviour
        self.connect = connect
        held = Mutex(Held())
    }

    /// Runs `body` on the state as the database holds it now and keeps what it changed before
    /// returning. The body may run more than once (after a lost race), each time on the state
    /// as it then is, so it must only change the state it is given.
    ///
    /// - Throws: ``StoreError``: `busy` when the race was lost every time, `cannot_open` when the
    ///   database cannot be reached, `write_failed` when a statement failed, `corrupt` when a row
    ///   does not read.
    package func update<T>(_ body: (inout State) -> T) throws(StoreError) -> T {
        try StoreReading.answer(unconfirmed: update(confirming: nil, body))
    }

    /// As ``update(_:)``, in a transaction that first confirms `reading`, a read of another
    /// store on this database: nil, with the body not run, when that store's clock moved since.
    ///
    /// - Throws: as ``update(_:)``.
    package func update<T>(confirming reading: StoreReading?, _ body: (inout State) -> T) throws(StoreError) -> T? {
        // The result leaves through a variable of the caller's, not through the lock's return.
        var output: Outcome<T> = .lostRace
        try held.withLock { (held) throws(StoreError) in output = try attempts(&held, reading, body) }
        return try settled(output)
    }

    /// Runs `body`, a read, on the state this copy holds, without asking the database, and says
    /// the clock's version that state is at; when `fresh`, or when no state is held, the state is
    /// brought up to the database's first, as ``update(_:)`` does. Another store on the database
    /// confirms the version in its own transaction (``StoreReading``).
    ///
    /// - Throws: as ``update(_:)``.
    package func read<T>(fresh: Bool, _ body: (State) -> T) throws(StoreError) -> (result: T, version: Int64) {
        var output: (result: T, version: Int64)?
        try held.withLock { (held) throws(StoreError) in output = try read(&held, fresh: fresh, body) }
        guard let output else { preconditionFailure("the read ran or threw") }
        return output
    }

    /// As ``read(fresh:_:)``, unless another thread of this process is using the store: then
    /// `busy` at once, without running the body.
    package func readIfFree<T>(fresh: Bool, _ body: (State) -> T) throws(StoreError) -> Turn<
        (result: T, version: Int64)
    > {
        var output: (result: T, version: Int64)?
        let ran: Void? = try held.withLockIfAvailable { (held) throws(StoreError) in
            output = try read(&held, fresh: fresh, body)
        }
        guard ran != nil, let output else { return .busy }
        return .done(output)
    }

    private func read<T>(_ held: inout Held, fresh: Bool, _ body: (State) -> T) throws(StoreError) -> (
        result: T, version: Int64
    ) {
        if !fresh, let state = held.state { return (body(state), held.version) }
        let result = StoreReading.answer(unconfirmed: try settled(attempts(&held, nil) { (state) in body(state) }))
        return (result, held.version)
    }

    /// How ``updateIfFree(_:)`` went.
    package enum Turn<T> {
        /// Another thread of this process was using the store: the body did not run.
        case busy
        /// The update's result.
        case done(T)
    }

    /// As ``update(confirming:_:)``, unless another thread of this process is using the store:
    /// then `busy` at once, without running the body.
    package func updateIfFree<T>(confirming reading: StoreReading?, _ body: (inout State) -> T) throws(StoreError)
        -> Turn<T?>
    {
        var output: Outcome<T> = .lostRace
        let ran: Void? = try held.withLockIfAvailable { (held) throws(StoreError) in
            output = try attempts(&held, reading, body)
        }
        guard ran != nil else { return .busy }
        return .done(try settled(output))
    }

    /// How one try of an update went.
    private enum Outcome<T> {
        case done(T)
        /// Another writer won the race to the clock: try again.
        case lostRace
        /// The reading to confirm no longer holds: nothing ran.
        case unconfirmed
    }

    /// Up to ``attempts`` tries, until one is not a lost race.
    private func attempts<T>(_ held: inout Held, _ reading: StoreReading?, _ body: (inout State) -> T)
        throws(StoreError) -> Outcome<T>
    {
        for _ in 0..<Self.attempts {
            let outcome = try attempt(&held, reading, body)
            if case .lostRace = outcome { continue }
            return outcome
        }
        return .lostRace
    }

    /// The result, nil when unconfirmed; `busy` when every try lost the race.
    private func settled<T>(_ outcome: Outcome<T>) throws(StoreError) -> T? {
        switch outcome {
        case .done(let result): return result
        case .unconfirmed: return nil
        case .lostRace:
            throw StoreError(
                .busy, "other processes changed the \(clockName) store \(Self.attempts) times while this one tried",
                path: name)
        }
    }

    /// Runs `body`, a change, on the state in place and keeps what it changed before returning,
    /// as ``update(_:)`` does but without a copy of the whole state: the transaction takes the
    /// clock's row lock first (`SELECT ... FOR UPDATE`), so no other writer of any process can
    /// win a race against it and the body runs once. A result `keeps` refuses (a refusal the body
    /// made after changing the state) rolls the transaction back, and the state is read again by
    /// the next update, as after any failure: memory never runs ahead of the database.
    ///
    /// - Throws: ``StoreError``: `cannot_open`, `write_failed`, `corrupt`, as ``update(_:)``.
    package func write<T>(_ body: (inout State) -> T, keeps: (T) -> Bool) throws(StoreError) -> T {
        try StoreReading.answer(unconfirmed: write(confirming: nil, body, keeps: keeps))
    }

    /// As ``write(_:keeps:)``, in a transaction that first confirms `reading`, a read of another
    /// store on this database: nil, with the body not run, when that store's clock moved since.
    ///
    /// - Throws: as ``write(_:keeps:)``.
    package func write<T>(confirming reading: StoreReading?, _ body: (inout State) -> T, keeps: (T) -> Bool)
        throws(StoreError) -> T?
    {
        // The result leaves through a variable of the caller's, not through the lock's return.
        var output: T?
        try held.withLock { (held) throws(StoreError) in output = try writeInPlace(&held, reading, body, keeps) }
        return output
    }

    /// As ``write(confirming:_:keeps:)``, unless another thread of this process is using the
    /// store: then `busy` at once, without running the body.
    package func writeIfFree<T>(confirming reading: StoreReading?, _ body: (inout State) -> T, keeps: (T) -> Bool)
        throws(StoreError) -> Turn<T?>
    {
        var output: T?
        let ran: Void? = try held.withLockIfAvailable { (held) throws(StoreError) in
            output = try writeInPlace(&held, reading, body, keeps)
        }
        guard ran != nil else { return .busy }
        return .done(output)
    }

    private func writeInPlace<T>(
        _ held: inout Held, _ reading: StoreReading?, _ body: (inout State) -> T, _ keeps: (T) -> Bool
    ) throws(StoreError) -> T? {
        let connection = try connection(&held)
        // Taken out of `held`, so the state has one owner and changes in place; it goes back
        // only once the database holds what it says.
        var state = held.state.take()
        let version = held.version
        do {
            try connection.execute("BEGIN")
            let (current, purged, confirmed) = try readClock(connection, locking: true, confirming: reading)
            guard confirmed else {
                rollBack(connection)
                held.state = state.take()
                return nil
            }
            var working: State
            if version >= purged, let owned = state.take() {
                working = consume owned
                // With the clock locked, every version up to `current` has committed.
                if current != version { try behaviour.catchUp(&working, connection, version) }
            } else {
                working = behaviour.empty()
                try behaviour.catchUp(&working, connection, -1)
            }
            let mark = behaviour.mark(working)
            let result = body(&working)
            guard keeps(result) else {
                rollBack(connection)
                return result
            }
            try commit(&working, since: mark, at: current, on: connection, into: &held)
            return result
        } catch let error as PostgresError {
            rollBack(connection)
            if !connection.isUsable { held.connection = nil }
            throw StoreError(.writeFailed, "the \(clockName) store: \(error.message)", path: name)
        } catch let error as StoreError {
            rollBack(connection)
            throw error
        } catch {
            rollBack(connection)
            throw StoreError(.writeFailed, "the \(clockName) store: \(error)", path: name)
        }
    }

    /// One try.
    private func attempt<T>(_ held: inout Held, _ reading: StoreReading?, _ body: (inout State) -> T)
        throws(StoreError) -> Outcome<T>
    {
        let connection = try connection(&held)
        var state = held.state.take()
        let version = held.version
        // The state as the transaction's snapshot holds it, kept when another writer wins the
        // race, so the next try reads only what the winner wrote.
        var caughtUp: (state: State, version: Int64)?
        // The body's work on the state at `version`, when it wrote: reused when the transaction
        // finds nobody wrote since, so a write runs its body once.
        var early: (after: State, result: T)?
        do {
            // A read costs one round trip: when nobody wrote since the state was read, the body
            // runs on it as of the clock just read, and a body that changes nothing is done.
            if let current = state {
                let (now, purged, confirmed) = try readClock(connection, locking: false, confirming: reading)
                guard confirmed else {
                    (held.state, held.version) = (current, version)
                    return .unconfirmed
                }
                if now == version, purged <= version {
                    var after = current
                    let result = body(&after)
                    if !behaviour.changed(behaviour.mark(current), after) {
                        (held.state, held.version) = (current, version)
                        return .done(result)
                    }
                    early = (after, result)
                }
            }
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            let (current, purged, confirmed) = try readClock(connection, locking: false, confirming: reading)
            guard confirmed else {
                rollBack(connection)
                (held.state, held.version) = (state, version)
                return .unconfirmed
            }
            if state == nil || version < purged {
                var fresh = behaviour.empty()
                try behaviour.catchUp(&fresh, connection, -1)
                state = fresh
            } else if current != version, var caught = state.take() {
                // The only reference, so the rows are taken in place rather than into a copy of
                // the whole state.
                try behaviour.catchUp(&caught, connection, version)
                state = consume caught
            }
            guard let before = state else { preconditionFailure("the state was just read") }
            caughtUp = (before, current)
            var after: State
            let result: T
            if let early, current == version {
                (after, result) = early
            } else {
                after = before
                result = body(&after)
            }
            let mark = behaviour.mark(before)
            try commit(&after, since: mark, at: current, on: connection, into: &held)
            return .done(result)
        } catch let error as PostgresError {
            rollBack(connection)
            if Self.lostRace(error) {
                // What was read is the database as of the snapshot: keep it, and try again.
                if let caughtUp { (held.state, held.version) = caughtUp }
                return .lostRace
            }
            if !connection.isUsable { held.connection = nil }
            throw StoreError(.writeFailed, "the \(clockName) store: \(error.message)", path: name)
        } catch let error as StoreError {
            rollBack(connection)
            throw error
        } catch {
            rollBack(connection)
            throw StoreError(.writeFailed, "the \(clockName) store: \(error)", path: name)
        }
    }

    /// The store's clock row, outside a transaction or in the one begun on `connection`: its
    /// version and the version tombstones are purged up to, locked until the transaction ends when
    /// `locking`; and whether `reading`, when given, still holds: every account row it read still
    /// has the version it had.
    private func readClock(_ connection: PostgresConnection, locking: Bool, confirming reading: StoreReading?) throws
        -> (current: Int64, purged: Int64, confirmed: Bool)
    {
        let clock = try connection.execute(
            "SELECT version, purged FROM glow_clock WHERE name = $1" + (locking ? " FOR UPDATE" : ""),
            [.text(clockName)])
        guard clock.rows.count == 1 else {
            throw StoreError(.corrupt, "the database has no clock for the \(clockName) store", path: name)
        }
        // The rows the reading read are read, not locked: their store stays free to its writers.
        let confirmed =
            try reading.map { (reading) throws(PostgresError) in
                try accountReadingHolds(reading, on: connection)
            } ?? true
        return (try clock.int(0, "version"), try clock.int(0, "purged"), confirmed)
    }

    /// Ends an update's transaction: when `state` changed since `mark`, moves the clock on from
    /// `current` and writes the rows under the new version; commits; and holds the state at the
    /// version the database now has.
    private func commit(
        _ state: inout State, since mark: [Int64], at current: Int64, on connection: PostgresConnection,
        into held: inout Held
    ) throws {
        guard behaviour.changed(mark, state) else {
            try connection.execute("COMMIT")
            (held.state, held.version) = (state, current)
            return
        }
        let next = current + 1
        try connection.execute(
            "UPDATE glow_clock SET version = $1 WHERE name = $2", [.int(next), .text(clockName)])
        try behaviour.persist(mark, &state, connection, next)
        try connection.execute("COMMIT")
        (held.state, held.version) = (state, next)
    }

    /// SQLSTATE 40001 (serialization failure) and 40P01 (deadlock): another transaction won.
    static func lostRace(_ error: PostgresError) -> Bool {
        error.sqlState == "40001" || error.sqlState == "40P01"
    }

    private func rollBack(_ connection: PostgresConnection) {
        // A failed rollback means the connection is gone; the next statement says so.
        do { try connection.execute("ROLLBACK") } catch {}
    }

    /// Runs `body` on the store's connection outside any update (a health check).
    ///
    /// - Throws: ``StoreError`` `cannot_open`, or the body's.
    package func withConnection<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(StoreError) -> T {
        var output: T?
        try held.withLock { (held) throws(StoreError) in
            let connection = try connection(&held)
            do throws(PostgresError) {
                output = try body(connection)
            } catch {
                if !connection.isUsable { held.connection = nil }
                throw StoreError(.cannotOpen, "the database does not answer: \(error.message)", path: name)
            }
        }
        guard let output else { preconditionFailure("the body ran") }
        return output
    }

    /// The held connection, or a new one.
    private func connection(_ held: inout Held) throws(StoreError) -> PostgresConnection {
        if let connection = held.connection { return connection }
        do throws(PostgresError) {
            let connection = try connect()
            held.connection = connection
            return connection
        } catch {
            throw StoreError(.cannotOpen, "the database cannot be reached: \(error.message)", path: name)
        }
    }
}

/// Several ``PostgresStateStore``s of one kind in one process, each with its own connection and
/// its own copy of the state, so that the server's threads do not queue behind one lock while it
/// waits on the database: each copy keeps itself in step through the store's clock, as the
/// stores of separate processes do. An update takes the first copy no other thread is using; when
/// every copy is in use it waits for one, but no longer than the pool's wait, and then fails as
/// `busy`, which the server answers with `503` and `Retry-After` rather than holding the request.
package final class PostgresStorePool<State: Sendable>: Sendable {
    /// The copies.
    package let stores: [PostgresStateStore<State>]
    /// The longest an update waits for a copy, in seconds.
    package let wait: Double
    private let next = Atomic<Int>(0)
    /// One permit per copy: an update holds one while it runs.
    private let permits: DispatchSemaphore

    /// A pool of `stores`, at least one, whose updates wait at most `wait` seconds for a copy.
    package init(_ stores: [PostgresStateStore<State>], wait: Double = PostgresStorePool.defaultWait) {
        precondition(!stores.isEmpty, "a pool holds a store")
        self.stores = stores
        self.wait = max(0, wait)
        permits = DispatchSemaphore(value: stores.count)
    }

    /// How long an update waits for a copy unless told otherwise: long enough for a burst of
    /// requests to drain, short enough that a device hears `503` before it gives up on its own.
    package static var defaultWait: Double { 2 }

    /// ``PostgresStateStore/update(_:)`` on a copy no other thread is using.
    ///
    /// - Throws: ``StoreError``: `busy` when every copy stayed in use for the pool's wait, or the
    ///   update's.
    package func update<T>(_ body: (inout State) -> T) throws(StoreError) -> T {
        StoreReading.answer(unconfirmed: try update(confirming: nil, body))
    }

    /// ``PostgresStateStore/update(confirming:_:)`` on a copy no other thread is using.
    ///
    /// - Throws: as ``update(_:)``.
    package func update<T>(confirming reading: StoreReading?, _ body: (inout State) -> T) throws(StoreError) -> T? {
        try onFreeCopy({ (store) throws(StoreError) in try store.updateIfFree(confirming: reading, body) }) {
            (store) throws(StoreError) in try store.update(confirming: reading, body)
        }
    }

    /// ``PostgresStateStore/write(_:keeps:)`` on a copy no other thread is using.
    ///
    /// - Throws: ``StoreError``: `busy` when every copy stayed in use for the pool's wait, or the
    ///   write's.
    package func write<T>(_ body: (inout State) -> T, keeps: (T) -> Bool) throws(StoreError) -> T {
        StoreReading.answer(unconfirmed: try write(confirming: nil, body, keeps: keeps))
    }

    /// ``PostgresStateStore/write(confirming:_:keeps:)`` on a copy no other thread is using.
    ///
    /// - Throws: as ``write(_:keeps:)``.
    package func write<T>(confirming reading: StoreReading?, _ body: (inout State) -> T, keeps: (T) -> Bool)
        throws(StoreError) -> T?
    {
        try onFreeCopy({ (store) throws(StoreError) in try store.writeIfFree(confirming: reading, body, keeps: keeps) })
        {
            (store) throws(StoreError) in try store.write(confirming: reading, body, keeps: keeps)
        }
    }

    /// ``PostgresStateStore/read(fresh:_:)`` on a copy no other thread is using.
    ///
    /// - Throws: as ``update(_:)``.
    package func read<T>(fresh: Bool, _ body: (State) -> T) throws(StoreError) -> (result: T, version: Int64) {
        try onFreeCopy({ (store) throws(StoreError) in try store.readIfFree(fresh: fresh, body) }) {
            (store) throws(StoreError) in try store.read(fresh: fresh, body)
        }
    }

    private func onFreeCopy<T>(
        _ ifFree: (PostgresStateStore<State>) throws(StoreError) -> PostgresStateStore<State>.Turn<T>,
        else wait: (PostgresStateStore<State>) throws(StoreError) -> T
    ) throws(StoreError) -> T {
        guard permits.wait(timeout: .now() + self.wait) == .success else {
            throw StoreError(
                .busy,
                "all \(stores.count) database connections of the \(stores[0].clockName) store stayed in use for \(self.wait) s",
                path: stores[0].name)
        }
        defer { permits.signal() }
        let start = next.add(1, ordering: .relaxed).oldValue
        for offset in 0..<stores.count {
            if case .done(let result) = try ifFree(stores[(start &+ offset) % stores.count]) { return result }
        }
        // A permit was free, so a copy is too, but for a moment outside any update (a health
        // check's read): wait on one, briefly.
        return try wait(stores[start % stores.count])
    }
}
