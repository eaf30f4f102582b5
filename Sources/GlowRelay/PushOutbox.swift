import Foundation
import GlowCore
import GlowCrypto
import GlowFeed
import GlowModel

/// A device registered for pushes (REMIND-14): its token, its person, its zone and quiet hours.
public struct PushDevice: Hashable, Sendable {
    /// The platform's token for the device.
    public let token: String
    /// Whose device it is.
    public let person: String
    /// The device's zone, in which quiet hours are read.
    public let boundary: DayBoundary
    /// When nothing may arrive, if ever.
    public let quietHours: PersonReminders.QuietHours?
    /// The session the device was registered in, or nil for none: a sync pushed in it wakes the
    /// person's other devices, not this one (REMIND-19).
    public let session: String?

    /// A device whose token is 1 ... 512 printable ASCII characters other than space, registered in
    /// `session`.
    ///
    /// - Throws: ``ModelError/Code/invalidReminder`` at `token`.
    public init(
        token: String, person: String, timeZone: TimeZoneID, quietHours: PersonReminders.QuietHours? = nil,
        session: String? = nil
    ) throws(ModelError) {
        let bytes = Array(token.utf8)
        guard (1...512).contains(bytes.count), bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw ModelError(
                .invalidReminder, "a device token is 1 ... 512 printable ASCII characters without spaces",
                path: "token", rule: "REMIND-14")
        }
        self.token = token
        self.person = person
        boundary = try DayBoundary(timeZone: timeZone)
        self.quietHours = quietHours
        self.session = session
    }
}

/// One push for a platform's push service (REMIND-18): where it goes, how it collapses, and its
/// payload, the canonical JSON of an APNs `aps` dictionary.
public struct Push: Hashable, Sendable {
    /// The device's token.
    public let token: String
    /// The device's person.
    public let person: String
    /// `friend/P` or `item/I` (REMIND-16), `proof` (REMIND-14), or `sync` (REMIND-20).
    public let topic: String
    /// `glow-` and 32 hexadecimal digits: a later push of the topic replaces this one on the device;
    /// `glow-proof` for a proof push, `glow-sync` for a background push.
    public let collapseID: String
    /// `alert`; `background` for a proof push and a background push, which show nothing.
    public var pushType = "alert"
    /// 10, shown at once; 5 for a proof push and a background push.
    public var priority = 10
    /// Seconds since 1970 after which the service drops it undelivered.
    public let expiration: Int64
    /// The text's key, for the app to put in the person's language.
    public let key: String
    /// The text's arguments.
    public let arguments: [String]
    /// The person's unread badge when it was sent (FEED-15).
    public let badge: Int
    /// The payload's bytes: at most 4,096.
    public let payload: [UInt8]
}

/// What a push service is to the relay: something that takes pushes. A sender that cannot send
/// throws, and the caller keeps what it could not send.
public protocol PushSender: Sendable {
    /// Sends `pushes`, in order.
    func send(_ pushes: [Push]) throws(PushError)
}

/// A push service's refusal.
public struct PushError: CodedError {
    /// A stable code.
    public typealias Code = ErrorCode<PushError>
    /// What kind of problem this is.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String

    /// An error of `code`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// No rule: the service's own failure.
    public var rule: String? { nil }
    /// No place in any input.
    public var location: String? { nil }
}

extension ErrorCode where Domain == PushError {
    /// The push service could not be reached or refused the pushes.
    public static var sendFailed: Self { Self("push_send_failed") }
    /// A row of a stored outbox that does not read.
    public static var unreadableRow: Self { Self("push_row_unreadable") }
}

/// The relay's outbox of pushes (REMIND-14 ... REMIND-18): the devices registered, the events
/// waiting in groups per device and topic, and when each topic last went to each device. The relay
/// keeps one in its state and feeds it in each write:
///
/// ```swift
/// try relay.register(PushDevice(token: token, person: person, timeZone: zone), now: now)
/// try relay.submit(delta, from: person, now: now)       // its events wait in the outbox
/// try sender.send(relay.duePushes(at: now) { names[$0] })
/// ```
public struct PushOutbox: Sendable {
    /// The window unless a relay is set otherwise: 15 minutes, in ms (REMIND-16).
    public static let standardWindow: Int64 = 15 * 60_000
    /// The devices, by token.
    public private(set) var devices: [String: PushDevice] = [:]
    /// The tokens of each person's devices.
    private var tokens: [String: Set<String>] = [:]
    private var groups: [GroupKey: Group] = [:]
    private var lastPush: [GroupKey: Int64] = [:]
    /// The proofs waiting for tokens another person holds, by token and caller (REMIND-14).
    private var proofs: [GroupKey: Proof] = [:]
    /// The collapse id of each topic seen, made once.
    private var collapseIDs: [String: String] = [:]
    /// The rows changed since the last ``keepChanges()``: what a store writes.
    public private(set) var changedRows: Set<Row.Key> = []

    struct GroupKey: Hashable, Sendable {
        let token: String
        let topic: String
    }

    /// Events waiting for one device and topic.
    struct Group: Sendable, Hashable {
        var sendAt: Int64
        /// Items of a `friend/` topic, in arrival order, each once.
        var items: [FeedItemID] = []
        /// Reactions of an `item/` topic, in arrival order of each one's latest event.
        var reactions: [FeedReplica.ReactionKey] = []
    }

    /// A code sent to a token for a caller who registered it while another person held it
    /// (REMIND-14): the caller proves with it that their device gets the token's pushes.
    struct Proof: Sendable, Hashable {
        var code: String
        var queuedAt: Int64
        var sent = false
    }

    /// How long a proof's code is taken, in ms: 10 minutes (REMIND-14).
    public static let proofLife: Int64 = 10 * 60_000
    /// The most devices a person registers (REMIND-14): a further one takes the place of the one
    /// registered longest ago, so one account cannot make a friend's check-in a flood of pushes.
    public static let maximumDevices = 10
    /// The most proof pushes a token has waiting at once, for different callers (REMIND-14), so
    /// that accounts naming someone's token cannot keep waking their phone.
    public static let maximumProofs = 3
    /// When each token was last registered, at the relay's time: which device gives way to a
    /// person's eleventh.
    private var registeredAt: [String: Int64] = [:]

    /// An empty outbox.
    public init() {}

    /// The groups waiting.
    public var pending: Int { groups.count }

    /// Registers `device` at the relay's time `now` (REMIND-14), replacing its person's own
    /// registration of the token. A token another person holds moves only with `proof`, a code the
    /// outbox sent to the token for this caller in the last ``proofLife`` ms: then what waited for
    /// the token is dropped and the code used up. Without it nothing of the holder's changes, and
    /// a proof push is queued for the token, unless one for the same caller is already waiting.
    ///
    /// - Returns: whether the device is registered; false when the token stays another's.
    @discardableResult
    public mutating func register(_ device: PushDevice, proof: String? = nil, now: Int64) -> Bool {
        if let held = devices[device.token], held.person != device.person {
            let key = GroupKey(token: device.token, topic: device.person)
            dropOldProofs(now: now)
            guard let proof, let waiting = proofs[key], Self.same(proof, waiting.code) else {
                let waitingForToken = proofs.keys.count { $0.token == device.token }
                if proofs[key] == nil, waitingForToken < Self.maximumProofs {
                    proofs[key] = Proof(code: Self.newCode(), queuedAt: now)
                    changedRows.insert(Row.Key(.proof, key))
                }
                return false
            }
            proofs[key] = nil
            changedRows.insert(Row.Key(.proof, key))
            forget(device.token)
        }
        guard devices[device.token] != device || registeredAt[device.token] != now else { return true }
        put(device, token: device.token)
        registeredAt[device.token] = now
        changedRows.insert(Row.Key(.device, device.token))
        // A person's eleventh device takes the place of the one registered longest ago (the
        // token's text breaking a tie), with what waited for it.
        let held = tokens[device.person] ?? []
        if held.count > Self.maximumDevices {
            let oldest = held.filter { $0 != device.token }.min { a, b in
                let (first, second) = (registeredAt[a] ?? 0, registeredAt[b] ?? 0)
                return first != second ? first < second : a.precedesInUTF8(b)
            }
            if let oldest { remove(token: oldest) }
        }
        return true
    }

    /// 128 random bits as 32 lower-case hexadecimal digits.
    private static func newCode() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }

    /// Whether two codes are equal, in time that does not depend on where they differ.
    private static func same(_ given: String, _ code: String) -> Bool {
        let (a, b) = (Array(given.utf8), Array(code.utf8))
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Forgets the proofs older than ``proofLife`` at `now` (a clock gone back keeps them).
    private mutating func dropOldProofs(now: Int64) {
        for (key, proof) in proofs {
            let (age, overflow) = now.subtractingReportingOverflow(proof.queuedAt)
            guard overflow || age > Self.proofLife else { continue }
            proofs[key] = nil
            changedRows.insert(Row.Key(.proof, key))
        }
    }

    /// Removes the device of `token`, with everything waiting for it.
    public mutating func remove(token: String) {
        guard devices[token] != nil else { return }
        put(nil, token: token)
        registeredAt[token] = nil
        changedRows.insert(Row.Key(.device, token))
        forget(token)
    }

    /// Removes every device of `person` (an account deleted), with everything waiting for them.
    public mutating func removeDevices(of person: String) {
        for token in tokens[person] ?? [] { remove(token: token) }
    }

    /// The persons erased (FEED-31): their accounts are deleted, so no device of theirs may
    /// register and the relay takes nothing more from them. Kept here, as rows of the outbox's
    /// kind `closed`, so every store that keeps the outbox keeps them in the same transaction.
    public private(set) var closed: Set<String> = []

    /// Closes `person`: removes their devices, with everything waiting for them, and notes them
    /// as erased (FEED-31). Closing a closed person changes nothing.
    public mutating func close(_ person: String) {
        removeDevices(of: person)
        guard closed.insert(person).inserted else { return }
        changedRows.insert(Row.Key(.closed, person))
    }

    /// Holds `device` (nil: none) for `token`, keeping the index by person.
    private mutating func put(_ device: PushDevice?, token: String) {
        if let held = devices[token] {
            tokens[held.person]?.remove(token)
            if tokens[held.person]?.isEmpty == true { tokens[held.person] = nil }
        }
        devices[token] = device
        if let device { tokens[device.person, default: []].insert(token) }
    }

    private mutating func forget(_ token: String) {
        // A removed or moved token gets nothing more that waited for it (REMIND-14), proof pushes
        // for other callers included.
        for key in proofs.keys where key.token == token {
            proofs[key] = nil
            changedRows.insert(Row.Key(.proof, key))
        }
        for key in groups.keys where key.token == token {
            groups[key] = nil
            changedRows.insert(Row.Key(.group, key))
        }
        for key in lastPush.keys where key.token == token {
            lastPush[key] = nil
            changedRows.insert(Row.Key(.last, key))
        }
    }

    /// Takes the events of one accepted delta (REMIND-15) at the relay's time `now`: `items`
    /// received for the first time and `reactions` changed, as ``replica`` holds them after it.
    /// Pushes of one topic to one device are at least `window` ms apart (REMIND-16; 0 sends every
    /// group when asked).
    ///
    /// - Complexity: for each item, one look at each person with a registered device; for each
    /// reaction, the item owner's devices.
    public mutating func accept(
        items: [FeedItemID], reactions: [FeedReplica.ReactionKey], replica: FeedReplica, now: Int64,
        window: Int64 = standardWindow, background: Bool = false
    ) {
        let window = Swift.max(0, window)
        // REMIND-19: each event also wakes its device, when the relay sends background pushes.
        func wake(_ device: PushDevice) {
            if background { join(device, topic: Self.backgroundTopic, now: now, window: window, quiet: false) { _ in } }
        }
        for id in items {
            guard let item = replica.item(id) else { continue }
            for (person, held) in tokens
            where person != item.owner && replica.friendState(person, item.owner) == .friends
                && replica.canSee(person, item)
            {
                for token in held {
                    guard let device = devices[token] else { continue }
                    join(device, topic: "friend/" + item.owner, now: now, window: window) { group in
                        if !group.items.contains(id) { group.items.append(id) }
                    }
                    wake(device)
                }
            }
        }
        for key in reactions where replica.isOn(key.kind, on: key.item, by: key.reactor) {
            guard let item = replica.item(key.item), replica.canSee(key.reactor, item) else { continue }
            for token in tokens[item.owner] ?? [] {
                guard let device = devices[token] else { continue }
                join(device, topic: "item/" + key.item.text, now: now, window: window) { group in
                    group.reactions.removeAll { $0 == key }
                    group.reactions.append(key)
                }
                wake(device)
            }
        }
    }

    /// The topic of background pushes (REMIND-20).
    public static let backgroundTopic = "sync"

    /// Takes a push of `records` records to `person`'s sync log, kept at the relay's time `now`
    /// from `session` (REMIND-19): every device of the person registered in another session, or in
    /// none, gets a background event. Background pushes to one device are at least `window` ms
    /// apart (REMIND-20).
    public mutating func acceptSync(person: String, session: String?, records: Int, now: Int64, window: Int64) {
        guard records > 0 else { return }
        for token in (tokens[person] ?? []).sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            guard let device = devices[token], session == nil || device.session != session else { continue }
            join(device, topic: Self.backgroundTopic, now: now, window: Swift.max(0, window), quiet: false) { _ in }
        }
    }

    /// Adds an event to `device`'s group of `topic`, opening the group when none waits (REMIND-16):
    /// its send time moved out of the device's quiet hours unless `quiet` is false (REMIND-20).
    private mutating func join(
        _ device: PushDevice, topic: String, now: Int64, window: Int64, quiet: Bool = true,
        _ add: (inout Group) -> Void
    ) {
        let key = GroupKey(token: device.token, topic: topic)
        if groups[key] == nil {
            var at = now
            if let last = lastPush[key] {
                let (next, overflow) = last.addingReportingOverflow(window)
                at = Swift.max(now, overflow ? Int64.max : next)
            }
            groups[key] = Group(sendAt: quiet ? Self.outOfQuiet(at, device) : at)
        }
        add(&groups[key]!)
        changedRows.insert(Row.Key(.group, key))
    }

    /// `at`, or when its wall-clock minute in the device's zone is quiet, the first instant after
    /// it that reads the quiet hours' end (REMIND-16, REMIND-4).
    static func outOfQuiet(_ at: Int64, _ device: PushDevice) -> Int64 {
        guard let quiet = device.quietHours else { return at }
        let limits = Instant.min.millisecondsSince1970...Instant.max.millisecondsSince1970
        let instant = Instant(unchecked: Swift.min(Swift.max(at, limits.lowerBound), limits.upperBound))
        let (date, minute) = device.boundary.wallClock(at: instant)
        guard quiet.contains(minute) else { return at }
        let same = device.boundary.instant(atOrAfter: quiet.end, on: date)
        if same > instant { return same.millisecondsSince1970 }
        guard date < Day.max else { return at }
        return device.boundary.instant(atOrAfter: quiet.end, on: date.advanced(by: 1)).millisecondsSince1970
    }

    /// The pushes due at `now` (REMIND-17), judged against `replica` as it is now, in order of
    /// send time, token and topic; they leave the outbox. `names` gives the name the relay knows
    /// for a person, nil for none. A topic's last push is forgotten once `window` has passed
    /// since it (it no longer holds anything back), so the outbox keeps what can still matter.
    public mutating func due(
        at now: Int64, replica: FeedReplica, window: Int64 = standardWindow, names: (String) -> String?
    ) -> [Push] {
        let (horizon, overflow) = now.subtractingReportingOverflow(Swift.max(0, window))
        if !overflow {
            for (key, last) in lastPush where last <= horizon {
                lastPush[key] = nil
                changedRows.insert(Row.Key(.last, key))
            }
        }
        let ready = groups.filter { $0.value.sendAt <= now }.sorted { a, b in
            if a.value.sendAt != b.value.sendAt { return a.value.sendAt < b.value.sendAt }
            if a.key.token != b.key.token { return a.key.token.utf8.lexicographicallyPrecedes(b.key.token.utf8) }
            return a.key.topic.utf8.lexicographicallyPrecedes(b.key.topic.utf8)
        }
        // Proof pushes first, by token and caller: each goes once, and shows nothing (REMIND-18).
        dropOldProofs(now: now)
        var pushes: [Push] = []
        for (key, proof) in proofs.filter({ !$0.value.sent }).sorted(by: { a, b in
            a.key.token != b.key.token
                ? a.key.token.utf8.lexicographicallyPrecedes(b.key.token.utf8)
                : a.key.topic.utf8.lexicographicallyPrecedes(b.key.topic.utf8)
        }) {
            proofs[key]?.sent = true
            changedRows.insert(Row.Key(.proof, key))
            pushes.append(Self.proofPush(token: key.token, caller: key.topic, proof: proof))
        }
        for (key, group) in ready {
            groups[key] = nil
            changedRows.insert(Row.Key(.group, key))
            if key.topic == Self.backgroundTopic, let device = devices[key.token] {
                // REMIND-21: never judged empty, and carries nothing.
                lastPush[key] = now
                changedRows.insert(Row.Key(.last, key))
                pushes.append(Self.backgroundPush(device, now: now))
                continue
            }
            guard let device = devices[key.token],
                let (textKey, arguments) = Self.text(group, for: device.person, replica: replica, names: names)
            else { continue }
            lastPush[key] = now
            changedRows.insert(Row.Key(.last, key))
            pushes.append(push(key, device, textKey, arguments, badge: replica.badge(device.person), now: now))
        }
        return pushes
    }

    /// What a group says (REMIND-18), from what its person may still see; nil when nothing.
    static func text(_ group: Group, for viewer: String, replica: FeedReplica, names: (String) -> String?)
        -> (key: String, arguments: [String])?
    {
        func name(_ person: String) -> String { names(person) ?? person }
        let items = group.items.compactMap { replica.item($0) }.filter { replica.canSee(viewer, $0) }
        if let first = items.first {
            if items.count > 1 { return ("push.items", [name(first.owner), "\(items.count)"]) }
            let number = first.milestone ?? first.streak
            return (
                "push.item.\(first.kind.rawValue)",
                [name(first.owner), first.title, first.emoji, number.map { "\($0)" } ?? ""]
            )
        }
        let reactions = group.reactions.filter { key in
            guard let item = replica.item(key.item) else { return false }
            return replica.canSee(viewer, item) && replica.isOn(key.kind, on: key.item, by: key.reactor)
                && replica.canSee(key.reactor, item)
        }
        guard let latest = reactions.last, let item = replica.item(latest.item) else { return nil }
        let others = Set(reactions.map(\.reactor)).subtracting([latest.reactor]).count
        return ("push.reaction", [name(latest.reactor), latest.kind.symbol, item.title, "\(others)"])
    }

    private mutating func push(
        _ key: GroupKey, _ device: PushDevice, _ textKey: String, _ arguments: [String], badge: Int, now: Int64
    ) -> Push {
        let collapse = collapseID(key.topic)
        let cut = arguments.map { String(String.UnicodeScalarView($0.unicodeScalars.prefix(64))) }
        let payload = Payload(
            aps: .init(
                alert: .init(locKey: textKey, locArgs: cut), badge: badge, sound: "default", threadID: collapse))
        let (seconds, _) = Instant.floorDivide(now, 1000)
        return Push(
            token: device.token, person: device.person, topic: key.topic, collapseID: collapse,
            expiration: seconds.addingReportingOverflow(86_400).overflow ? Int64.max : seconds + 86_400,
            key: textKey, arguments: cut, badge: badge, payload: CanonicalJSON.bytes(payload))
    }

    /// The payload of `push` as people may read it (a log, a terminal): a proof push's code
    /// withheld, since whoever reads it could move the token (REMIND-14); any other payload as it
    /// is, which holds only what its device's person may see.
    public static func readablePayload(of push: Push) -> [UInt8] {
        guard push.topic == "proof" else { return push.payload }
        return CanonicalJSON.bytes(ProofPayload(aps: .init(), proof: "[withheld]"))
    }

    /// A proof push (REMIND-14, REMIND-18): to the token, for the caller, carrying the code and
    /// nothing of the holder; a background push that expires with the code.
    private static func proofPush(token: String, caller: String, proof: Proof) -> Push {
        let code = proof.code
        let (seconds, _) = Instant.floorDivide(proof.queuedAt, 1000)
        let life = proofLife / 1000
        var push = Push(
            token: token, person: caller, topic: "proof", collapseID: "glow-proof",
            expiration: seconds.addingReportingOverflow(life).overflow ? Int64.max : seconds + life, key: "",
            arguments: [], badge: 0, payload: CanonicalJSON.bytes(ProofPayload(aps: .init(), proof: code)))
        push.pushType = "background"
        push.priority = 5
        return push
    }

    /// A background push (REMIND-21): `{"aps": {"content-available": 1}}` and nothing else.
    private static func backgroundPush(_ device: PushDevice, now: Int64) -> Push {
        let (seconds, _) = Instant.floorDivide(now, 1000)
        var push = Push(
            token: device.token, person: device.person, topic: backgroundTopic, collapseID: "glow-sync",
            expiration: seconds.addingReportingOverflow(3_600).overflow ? Int64.max : seconds + 3_600, key: "",
            arguments: [], badge: 0, payload: CanonicalJSON.bytes(BackgroundPayload(aps: .init())))
        push.pushType = "background"
        push.priority = 5
        return push
    }

    /// `glow-` and the first 16 bytes of the topic's SHA-256 in hexadecimal (REMIND-18).
    private mutating func collapseID(_ topic: String) -> String {
        if let made = collapseIDs[topic] { return made }
        let digest = Crypto.sha256(Array(topic.utf8)).prefix(16)
        let made = "glow-" + digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        collapseIDs[topic] = made
        return made
    }

    // MARK: Rows, for a store

    /// One record of the outbox as a store keeps it: a device by its token, a group or a last
    /// push by token and topic, or a closed person by their id, with its JSON.
    public enum Row {
        /// What a row holds.
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            /// A registered device, by its token.
            case device
            /// The events waiting for a device, in its group of a topic.
            case group
            /// When a topic last went to a device.
            case last
            /// A person erased (FEED-31): their account is deleted, and no device of theirs may register.
            case closed
            /// A proof push and its code, by token (REMIND-14).
            case proof
        }

        /// A row's identity: its kind and its key (the token; the token, a line feed and the
        /// topic; or the person).
        public struct Key: Sendable, Hashable {
            /// What the row holds.
            public let kind: Kind
            /// The token, or the token and topic.
            public let key: String

            /// The key of a row of `kind`.
            public init(_ kind: Kind, _ key: String) {
                self.kind = kind
                self.key = key
            }

            init(_ kind: Kind, _ group: GroupKey) {
                self.init(kind, group.token + "\n" + group.topic)
            }

            /// The token of a group, last push or proof row; nil for a key with no topic.
            public var token: String? { group?.token }

            var group: GroupKey? {
                guard let cut = key.firstIndex(of: "\n") else { return nil }
                return GroupKey(token: String(key[..<cut]), topic: String(key[key.index(after: cut)...]))
            }
        }
    }

    /// Whether anything changed since the last ``keepChanges()``.
    public var hasChanges: Bool { !changedRows.isEmpty }

    /// Forgets which rows changed, once a store has written them.
    public mutating func keepChanges() { changedRows.removeAll(keepingCapacity: true) }

    /// The JSON of row `key` as the outbox holds it now; nil when it holds none (removed).
    public func value(of key: Row.Key) -> [UInt8]? {
        switch key.kind {
        case .device:
            return devices[key.key].map { device in
                CanonicalJSON.bytes(
                    DeviceRow(
                        person: device.person, timeZone: device.boundary.timeZone.identifier,
                        quietStart: device.quietHours?.start, quietEnd: device.quietHours?.end,
                        registeredAt: registeredAt[key.key], session: device.session))
            }
        case .group:
            return key.group.flatMap { groups[$0] }.map { group in
                CanonicalJSON.bytes(
                    GroupRow(
                        sendAt: group.sendAt, items: group.items.map(\.text),
                        reactions: group.reactions.map { [$0.item.text, $0.reactor, $0.kind.rawValue] }))
            }
        case .last:
            return key.group.flatMap { lastPush[$0] }.map { CanonicalJSON.bytes(LastRow(at: $0)) }
        case .closed:
            return closed.contains(key.key) ? Array("{}".utf8) : nil
        case .proof:
            return key.group.flatMap { proofs[$0] }.map {
                CanonicalJSON.bytes(ProofRow(code: $0.code, queuedAt: $0.queuedAt, sent: $0.sent))
            }
        }
    }

    /// Every row the outbox holds, with its JSON, in no particular order.
    public var rows: [(key: Row.Key, value: [UInt8])] {
        var keys = devices.keys.map { Row.Key(.device, $0) } + closed.map { Row.Key(.closed, $0) }
        keys += groups.keys.map { Row.Key(.group, $0) } + lastPush.keys.map { Row.Key(.last, $0) }
        keys += proofs.keys.map { Row.Key(.proof, $0) }
        return keys.compactMap { key in value(of: key).map { (key, $0) } }
    }

    /// The person of a device row's JSON, for a store's index.
    ///
    /// - Throws: ``PushError/Code/unreadableRow`` when the JSON does not read.
    public static func person(ofDeviceRow value: [UInt8]) throws(PushError) -> String {
        do {
            return try JSONDecoder().decode(DeviceRow.self, from: Data(value)).person
        } catch {
            throw PushError(.unreadableRow, "a push device row does not read: \(error)")
        }
    }

    /// The time a row's JSON holds, for a store's index: a group's send time, a last push's time, a
    /// proof's queueing time; nil for other kinds.
    ///
    /// - Throws: ``PushError/Code/unreadableRow`` when the JSON does not read.
    public static func time(ofRow kind: Row.Kind, _ value: [UInt8]) throws(PushError) -> Int64? {
        let decoder = JSONDecoder()
        do {
            switch kind {
            case .group: return try decoder.decode(GroupRow.self, from: Data(value)).sendAt
            case .last: return try decoder.decode(LastRow.self, from: Data(value)).at
            case .proof: return try decoder.decode(ProofRow.self, from: Data(value)).queuedAt
            case .device, .closed: return nil
            }
        } catch {
            throw PushError(.unreadableRow, "a push \(kind.rawValue) row does not read: \(error)")
        }
    }

    /// Takes in a row a store read: its JSON, or nil for a row removed. The change is not noted
    /// as one to write back.
    ///
    /// - Throws: ``PushError/Code/unreadableRow`` for a row that does not read.
    public mutating func apply(_ key: Row.Key, value: [UInt8]?) throws(PushError) {
        let decoder = JSONDecoder()
        func unreadable(_ reason: Any) -> PushError {
            PushError(
                .unreadableRow, "a push \(key.kind.rawValue) row '\(key.key.prefix(200))' does not read: \(reason)")
        }
        do {
            switch key.kind {
            case .device:
                guard let value else {
                    put(nil, token: key.key)
                    return
                }
                let row = try decoder.decode(DeviceRow.self, from: Data(value))
                let quiet = try row.quietStart.map { start in
                    try PersonReminders.QuietHours(start: start, end: row.quietEnd ?? start)
                }
                put(
                    try PushDevice(
                        token: key.key, person: row.person, timeZone: TimeZoneID(row.timeZone), quietHours: quiet,
                        session: row.session),
                    token: key.key)
                registeredAt[key.key] = row.registeredAt
            case .group:
                guard let group = key.group else { throw unreadable("its key names no topic") }
                guard let value else {
                    groups[group] = nil
                    return
                }
                let row = try decoder.decode(GroupRow.self, from: Data(value))
                groups[group] = Group(
                    sendAt: row.sendAt, items: row.items.map { FeedItemID($0) },
                    reactions: try row.reactions.map { parts in
                        guard parts.count == 3 else { throw unreadable("a reaction is not [item, reactor, kind]") }
                        return FeedReplica.ReactionKey(
                            item: FeedItemID(parts[0]), reactor: parts[1], kind: try ReactionKind(name: parts[2]))
                    })
            case .last:
                guard let group = key.group else { throw unreadable("its key names no topic") }
                lastPush[group] = try value.map { try decoder.decode(LastRow.self, from: Data($0)).at }
            case .closed:
                // A person once closed stays closed: a row without a value does not reopen them.
                guard let value else { throw unreadable("a closed person is never reopened") }
                guard value == Array("{}".utf8) else { throw unreadable("it is not {}") }
                closed.insert(key.key)
            case .proof:
                guard let proof = key.group else { throw unreadable("its key names no caller") }
                proofs[proof] = try value.map {
                    let row = try decoder.decode(ProofRow.self, from: Data($0))
                    return Proof(code: row.code, queuedAt: row.queuedAt, sent: row.sent)
                }
            }
        } catch let error as PushError {
            throw error
        } catch {
            throw unreadable(error)
        }
    }

    struct DeviceRow: Codable {
        let person: String
        let timeZone: String
        let quietStart: Int?
        let quietEnd: Int?
        /// When the token was last registered; absent in a row an older version wrote (then 0:
        /// the first to give way).
        let registeredAt: Int64?
        /// The session it was registered in (REMIND-19); absent for none, and in a row an older
        /// version wrote.
        let session: String?
    }

    struct GroupRow: Codable {
        let sendAt: Int64
        let items: [String]
        let reactions: [[String]]
    }

    struct LastRow: Codable {
        let at: Int64
    }

    struct ProofRow: Codable {
        let code: String
        let queuedAt: Int64
        let sent: Bool
    }

    /// The payload of a background push (REMIND-21): `{"aps": {"content-available": 1}}`.
    struct BackgroundPayload: Encodable {
        let aps: ProofPayload.APS
    }

    /// The payload of a proof push (REMIND-18): `{"aps": {"content-available": 1}, "glow-proof": CODE}`.
    struct ProofPayload: Encodable {
        struct APS: Encodable {
            let contentAvailable = 1
            enum CodingKeys: String, CodingKey {
                case contentAvailable = "content-available"
            }
        }
        let aps: APS
        let proof: String
        enum CodingKeys: String, CodingKey {
            case aps
            case proof = "glow-proof"
        }
    }

    /// The APNs payload (REMIND-18).
    struct Payload: Encodable {
        struct APS: Encodable {
            struct Alert: Encodable {
                let locKey: String
                let locArgs: [String]
                enum CodingKeys: String, CodingKey {
                    case locKey = "loc-key"
                    case locArgs = "loc-args"
                }
            }
            let alert: Alert
            let badge: Int
            let sound: String
            let threadID: String
            enum CodingKeys: String, CodingKey {
                case alert
                case badge
                case sound
                case threadID = "thread-id"
            }
        }
        let aps: APS
    }
}

/// A sender that sends nothing and keeps what it was given, for tests and development.
public final class RecordingPushSender: PushSender {
    private let sent = Locked<[Push]>([])

    /// A sender with nothing sent.
    public init() {}

    /// Keeps `pushes`.
    public func send(_ pushes: [Push]) throws(PushError) {
        sent.withLock { $0 += pushes }
    }

    /// Everything sent so far, in order.
    public var pushes: [Push] { sent.withLock { $0 } }
}
