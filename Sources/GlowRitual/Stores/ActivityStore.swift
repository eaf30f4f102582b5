import Foundation
import GlowActivity
import GlowClient
import GlowCore
import GlowFeed
import GlowModel
import GlowProtocol
import GlowStorage
import GlowWire
import Observation

/// How a device reaches the relay: one request's bytes out, the response's bytes back (FEED-29),
/// over whatever transport the app uses (an HTTP body, a WebSocket frame). The transport
/// authenticates the person; the relay's `handle(_:from:now:)` is the other end.
public typealias RelayTransport = @Sendable ([UInt8]) async throws -> [UInt8]

/// Why a feed action did not happen.
public enum ActivityError: Error, Hashable, Sendable {
    /// The feed refused it (FEED-5, FEED-9, FEED-11, ...).
    case feed(FeedError)
    /// It could not be stored.
    case store(StoreError)
    /// The relay answered with an error: its code, message and rule.
    case relay(code: String, message: String, rule: String)
    /// The server refused the transport's call, or could not be reached: its `ServiceError`
    /// whole, with the status and, for `throttled` and `storage_failed`, the `Retry-After`
    /// (a transport over `ServiceClient` or `SessionKeeper` throws these).
    case service(ServiceFailure)
    /// The transport failed otherwise, or answered bytes that are not a response.
    case transport(String)
}

/// The Glow tab (issue 17): the person's feed, unread badge, friends and reactions, from the
/// device's replica in the database, and the actions on them; ``sync(through:now:)`` exchanges
/// writes with the relay. Every write is made on the database's executor, stamped by the device's
/// clock there, and recorded durably (and shown) before the method returns.
@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
@Observable @MainActor
public final class ActivityStore {
    /// Whose feed it is.
    public let person: PersonID
    /// The first page, newest first (FEED-16).
    public private(set) var items: [FeedItem] = []
    /// Whether there are items past the first page.
    public private(set) var hasMore = false
    /// Items from others not seen yet (FEED-15).
    public private(set) var badge = 0
    /// The person's friend state toward everyone they have a stance with (FEED-4).
    public private(set) var friends: [PersonID: FriendState] = [:]
    /// Reaction counts and "mine" for each item of the page (FEED-12).
    public private(set) var reactions: [FeedItemID: FeedReplica.ReactionSummary] = [:]

    /// Items on the first page.
    public static let pageSize = 50

    @ObservationIgnored private let database: RitualDatabase
    /// The device's clock: moved only by jobs of the database's executor, and by a sync's pages.
    @ObservationIgnored private let clock: Locked<HybridClock>
    /// The replica as last committed.
    @ObservationIgnored private var feed: FeedReplica
    @ObservationIgnored private var observation: DatabaseObservation?
    @ObservationIgnored private let heard = ChangeObservers<DatabaseChange>()

    /// The feed of `person` on the device `device` (its text is the clock's id, FEED-1). The store
    /// hears every committed change to the feed, whoever made it.
    ///
    /// - Throws: ``StoreError`` when the database's feed cannot be read.
    public convenience init(database: RitualDatabase, person: PersonID, device: DeviceID) async throws(StoreError) {
        try await self.init(database: database, person: person, clockID: device.description)
    }

    /// The feed of `person` with the clock id `clockID` (a tool's name, when it is no device).
    package convenience init(database: RitualDatabase, person: PersonID, clockID: String) async throws(StoreError) {
        self.init(database: database, person: person, clockID: clockID, from: try await database.mainState())
    }

    /// The feed as of `latest`, the state the main actor's stores were last given.
    init(database: RitualDatabase, person: PersonID, clockID: String, from latest: DatabaseChange) {
        self.database = database
        self.person = person
        var clock = HybridClock(device: clockID)
        feed = latest.feed
        // Taken in at the device's time, as FEED-2 takes a remote stamp (at time 0 every real stamp
        // was past the skew and ignored, so a relaunched device could stamp below its own earlier
        // changes). A fresh clock cannot fail to take one in: its counter starts at 0, and a stamp
        // whose counter is near the end is not taken in at all.
        if let stamp = feed.latestStamp { try? clock.receive(stamp, now: Instant.now.millisecondsSince1970) }
        self.clock = Locked(clock)
        refresh()
        observation = database.observeOnMain { [weak self] change in
            guard let self, change.feedChanged else { return }
            self.feed = change.feed
            self.refresh()
            self.heard.notify(change)
        }
    }

    /// Every committed change that may touch the feed from now on (the device's writes, a sync's
    /// pages, another process's), each after the store shows it.
    public func changes() -> AsyncStream<DatabaseChange> { heard.stream() }

    /// The device's feed replica as last committed: what an export's social data is taken from.
    public var replica: FeedReplica { feed }

    // MARK: Writes

    /// A friend action toward `other` (FEED-5).
    public func act(_ action: FriendAction, toward other: PersonID, now: Instant = .now) async throws(ActivityError) {
        let person = person.rawValue
        try await write { (replica, clock) throws(FeedError) in
            try replica.act(
                action, from: person, toward: other.rawValue, at: try clock.tick(now: now.millisecondsSince1970))
        }
    }

    /// Turns a reaction on or off (FEED-10, FEED-11).
    public func react(_ kind: ReactionKind, on item: FeedItemID, _ on: Bool = true, now: Instant = .now)
        async throws(ActivityError)
    {
        let person = person.rawValue
        try await write { (replica, clock) throws(FeedError) in
            try replica.react(kind, on: item, by: person, on, at: try clock.tick(now: now.millisecondsSince1970))
        }
    }

    /// Marks everything received so far as seen (FEED-14).
    public func markSeen() async throws(ActivityError) {
        guard let newest = feed.receipts.values.max(), newest > (feed.seen[person.rawValue] ?? .min) else { return }
        var delta = FeedReplica()
        delta.markSeen(person.rawValue, upTo: newest)
        try await record(delta)
    }

    /// Publishes the items the person's data gives as of `now` (FEED-22, FEED-23). Deriving them
    /// evaluates every shared goal: it runs off the main actor and off the database's executor,
    /// telling `progress` after each goal; cancelling the task stops it, and nothing is written.
    ///
    /// - Throws: ``ActivityError``: `store` with `cancelled` when the task was cancelled, the
    ///   feed's refusal, or the storage error.
    public func publish(now: Instant = .now, progress: @escaping @Sendable (WorkProgress) -> Void = { _ in })
        async throws(ActivityError)
    {
        let data: DataSet
        do { data = try await database.data } catch { throw .store(error) }
        guard let profile = data.profile else { return }
        let person = person.rawValue
        let today = profile.boundary.day(containing: now)
        let derived = await offMain {
            FeedDerivation.items(of: data, owner: person, boundary: profile.boundary, today: today) { done, total in
                progress(WorkProgress(done: done, total: total))
                return !Task.isCancelled
            }
        }
        guard let derived, !Task.isCancelled else {
            throw .store(
                StoreError(.cancelled, "the feed was not published: its task was cancelled", path: database.path))
        }
        try await write { (replica, clock) throws(FeedError) in
            try replica.publish(
                derived, of: data, owner: person, today: today, clock: &clock, now: now.millisecondsSince1970)
        }
    }

    /// Makes a change to the replica as committed, on the database's executor, stamped by the
    /// device's clock, and records what it wrote; a refused change leaves the replica and the
    /// clock as they were. The store shows it before this returns.
    private func write(_ change: @escaping @Sendable (inout FeedReplica, inout HybridClock) throws(FeedError) -> Void)
        async throws(ActivityError)
    {
        let clock = clock
        do {
            try await database.runShown { (database) throws(StoreError) in try database.changeFeed(clock: clock, change)
            }
        } catch {
            if let refusal = error.refusal as? FeedError { throw .feed(refusal) }
            throw .store(error)
        }
    }

    private func record(_ delta: FeedReplica, keeping values: [String: [UInt8]] = [:]) async throws(ActivityError) {
        // The store hears the committed feed, and shows it, before this returns.
        do {
            try await database.runShown { (database) throws(StoreError) in
                try database.recordFeed(delta, deviceValues: values)
            }
        } catch {
            throw .store(error)
        }
    }

    // MARK: Sync

    /// Sends the person's writes the relay has not had and takes in what it has for them
    /// (FEED-24 ... FEED-29): two requests through `transport`. What arrives is recorded with the
    /// relay's next cursor in one transaction, so a sync cut short is simply done again.
    public func sync(through transport: RelayTransport, now: Instant = .now) async throws(ActivityError) {
        let sent = try await value("feed.sent").map { (bytes) throws(ActivityError) in try self.stamp(from: bytes) }
        // In pieces a relay takes (FEED-25), oldest first, each kept as sent once the relay has it.
        for piece in feed.authoredPieces(by: person.rawValue, since: sent) {
            guard case .submitted = try await exchange(.submit(piece.delta), transport) else {
                throw .transport("the relay did not answer the submit")
            }
            if let through = piece.through { try await keep(Self.bytes(of: through), "feed.sent") }
        }
        let cursor =
            try await value("feed.cursor").map { (bytes) throws(ActivityError) -> UInt64 in
                guard let cursor = UInt64(String(decoding: bytes, as: UTF8.self)) else {
                    throw .store(StoreError(.corrupt, "the stored feed cursor does not read", path: database.path))
                }
                return cursor
            } ?? 0
        // Page by page while the relay gives a next page (FEED-27), each kept as it comes; the
        // cursor the last page gives is kept with it, so a sync cut short starts the answer over.
        var request = RelayRequest.changes(since: cursor)
        var after: UInt64?
        while true {
            guard case .changes(let delta, let given, let next) = try await exchange(request, transport) else {
                throw .transport("the relay did not answer the changes")
            }
            try await record(delta, keeping: ["feed.cursor": Array(String(given).utf8)])
            // The clock refuses a time outside FEED-1's range, which the next write's tick refuses
            // too, as a typed error; and a counter at its end, which only a forged stamp has. Either
            // way nothing is lost by not taking the stamp in: the page is recorded already.
            if let latest = delta.latestStamp {
                clock.withLock { clock in _ = try? clock.receive(latest, now: now.millisecondsSince1970) }
            }
            // A page that does not move on would be asked for again for ever.
            guard let next, after.map({ next.after > $0 }) ?? true else { break }
            (after, request) = (next.after, .page(next))
        }
    }

    private func exchange(_ request: RelayRequest, _ transport: RelayTransport) async throws(ActivityError)
        -> RelayResponse
    {
        let bytes: [UInt8]
        do {
            bytes = try await transport(request.wireEncoded())
        } catch let failure as ServiceFailure {
            throw .service(failure)
        } catch {
            throw .transport("\(error)")
        }
        let response: RelayResponse
        do { response = try RelayResponse(wire: bytes) } catch { throw .transport("\(error)") }
        if case .error(let code, let message, let rule) = response {
            throw .relay(code: code, message: message, rule: rule)
        }
        return response
    }

    /// A device value, nil when it was never set or was emptied (a sign-out forgets the sync's
    /// position so), or the storage error.
    private func value(_ key: String) async throws(ActivityError) -> [UInt8]? {
        do { return try await database.deviceValue(key).flatMap { $0.isEmpty ? nil : $0 } } catch {
            throw .store(error)
        }
    }

    private func keep(_ value: [UInt8], _ key: String) async throws(ActivityError) {
        do { try await database.setDeviceValue(value, for: key) } catch { throw .store(error) }
    }

    /// A stamp as the device keeps it: `wall counter device`.
    static func bytes(of stamp: Stamp) -> [UInt8] {
        Array("\(stamp.wall) \(stamp.counter) \(stamp.device)".utf8)
    }

    func stamp(from bytes: [UInt8]) throws(ActivityError) -> Stamp {
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: " ", maxSplits: 2).map(String.init)
        let corrupt = ActivityError.store(
            StoreError(.corrupt, "the stored sync stamp does not read", path: database.path))
        guard parts.count == 3, let wall = Int64(parts[0]), let counter = Int64(parts[1]) else { throw corrupt }
        do { return try Stamp(wall: wall, counter: counter, device: parts[2]) } catch { throw corrupt }
    }

    // MARK: Reading

    /// More items after `item` (the last one shown), newest first (FEED-17, FEED-18).
    public func page(after item: FeedItem, limit: Int = pageSize) throws(ActivityError) -> FeedReplica.Page {
        do {
            return try feed.page(for: person.rawValue, limit: limit, after: FeedCursor(after: item))
        } catch {
            throw .feed(error)
        }
    }

    /// Reads the replica again, setting each property only when its value changed.
    private func refresh() {
        let person = person.rawValue
        let page = try? feed.page(for: person, limit: Self.pageSize)
        let shown = page?.items ?? []
        if items != shown { items = shown }
        if hasMore != (page?.next != nil) { hasMore = page?.next != nil }
        let unread = feed.badge(person)
        if badge != unread { badge = unread }
        var states: [PersonID: FriendState] = [:]
        for pair in feed.stances.keys where pair.from == person || pair.to == person {
            let other = pair.from == person ? pair.to : pair.from
            states[PersonID(other)] = feed.friendState(person, other)
        }
        if friends != states { friends = states }
        var summaries: [FeedItemID: FeedReplica.ReactionSummary] = [:]
        for item in shown { summaries[item.key] = try? feed.reactions(on: item.key, viewer: person) }
        if reactions != summaries { reactions = summaries }
    }
}
