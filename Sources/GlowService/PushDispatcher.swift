import Dispatch
import Foundation
import GlowAuth
import GlowCore
import GlowModel
import GlowRelay
import GlowReminders

/// Sends the relay's due pushes (REMIND-17, SERVER-12) to a push service once every `interval`
/// seconds, away from any request. Each round takes the pushes due out of the relay's outbox in
/// one write, so of several processes each push goes out from one, and hands them to `sender`.
/// A push the sender refuses is reported and not sent again: a push is news, and stale news is
/// worse than none.
public final class PushDispatcher: Sendable {
    private let relay: FeedRelay
    private let sender: any PushSender
    private let clock: any AuthClock
    private let rounds: Rounds

    /// A dispatcher of `relay`'s pushes to `sender` every `interval` seconds (0.01 ... 3,600);
    /// `report` hears of each round that failed.
    public init(
        relay: FeedRelay, sender: any PushSender, interval: Double = 1, clock: any AuthClock = SystemAuthClock(),
        report: @escaping @Sendable (String) -> Void
    ) {
        self.relay = relay
        self.sender = sender
        self.clock = clock
        rounds = Rounds(label: "glow-server.push", interval: interval) {
            do { _ = try Self.sendDue(relay, sender, clock) } catch { report("pushes not sent: \(error)") }
        }
    }

    /// Starts the rounds; a second start changes nothing.
    public func start() { rounds.start() }

    /// Stops the rounds, after the one under way.
    public func stop() { rounds.stop() }

    /// One round: the pushes due now, sent. Returns how many were handed to the sender.
    ///
    /// - Throws: ``FeedError`` when the outbox cannot be read or kept (nothing was taken out),
    ///   or ``PushError`` when the sender refused the pushes (they were taken out).
    @discardableResult
    public func sendDue() throws -> Int { try Self.sendDue(relay, sender, clock) }

    private static func sendDue(_ relay: FeedRelay, _ sender: any PushSender, _ clock: any AuthClock) throws -> Int {
        let now = Int64(ServiceHandler.milliseconds(clock.now()))
        let pushes = try relay.duePushes(at: now) { _ in nil }
        guard !pushes.isEmpty else { return 0 }
        try sender.send(pushes)
        return pushes.count
    }
}

/// The text of a push as the push command and standard error take it: one JSON object on a line,
/// `{"collapseId", "expiration", "payload", "priority", "pushType", "token", "topic"}` with the
/// payload as the object it is.
enum PushLine {
    /// The push as one JSON line; with the device's token and a proof push's code withheld when
    /// the line is for people to read rather than for the push service (REMIND-14, SERVER-8): a
    /// token is what a push is sent to, and a code moves the token to whoever gives it.
    static func text(_ push: Push, withholdingToken: Bool = false) -> String {
        let token = withholdingToken ? "[withheld]" : push.token
        let payload = withholdingToken ? PushOutbox.readablePayload(of: push) : push.payload
        return "{\"collapseId\":\(quoted(push.collapseID)),\"expiration\":\(push.expiration),\"payload\":"
            + String(decoding: payload, as: UTF8.self) + ",\"priority\":\(push.priority),\"pushType\":"
            + quoted(push.pushType) + ",\"token\":\(quoted(token)),\"topic\":\(quoted(push.topic))}"
    }

    /// `text` as a JSON string, as the model's canonical JSON writes one (MODEL-51).
    static func quoted(_ text: String) -> String {
        String(decoding: CanonicalJSON.bytes(text), as: UTF8.self)
    }
}

/// Hands each round's pushes to `/bin/sh -c COMMAND`, one JSON line each on its standard input
/// (``PushLine``): the command speaks to the platform's push service (APNs, FCM).
public struct CommandPushSender: PushSender {
    /// The command.
    public let command: String

    /// A sender through `command`.
    public init(command: String) { self.command = command }

    /// Runs the command once with `pushes` on its standard input.
    ///
    /// - Throws: ``PushError/Code/sendFailed`` when it cannot start, does not take its input or
    ///   exits with a status other than 0.
    public func send(_ pushes: [Push]) throws(PushError) {
        let text = pushes.map { PushLine.text($0) + "\n" }.joined()
        if let problem = ServiceMailer.run(command, input: Array(text.utf8), what: "push") {
            throw PushError(.sendFailed, problem)
        }
    }
}

/// Prints each push on standard error, for development.
public struct StandardErrorPushSender: PushSender {
    /// The sender.
    public init() {}

    /// Prints `pushes`, one line each, their device tokens and proof codes withheld.
    public func send(_ pushes: [Push]) throws(PushError) {
        let text = pushes.map { "push " + PushLine.text($0, withholdingToken: true) + "\n" }.joined()
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// Forgets the account records that can no longer matter (``AccountService/purgeExpired()``)
/// once every `interval` seconds, away from any request: expired sign-ups, resets, nonces and
/// address changes, idle sessions, and throttles and mail windows past their memory, each found by
/// its expiry index. So what strangers make the server keep (a sign-up never confirmed, a guess
/// at a password) is reclaimed by itself; a server runs one, and several processes may each run
/// theirs.
public final class AccountPurger: Sendable {
    private let accounts: AccountService
    private let report: @Sendable (String) -> Void
    private let rounds: Rounds

    /// A purger of `accounts` every `interval` seconds (0.01 ... 3,600); `report` hears of each
    /// round that failed.
    public init(accounts: AccountService, interval: Double = 60, report: @escaping @Sendable (String) -> Void) {
        self.accounts = accounts
        self.report = report
        rounds = Rounds(label: "glow-server.purge", interval: interval) {
            do { try accounts.purgeExpired() } catch { report("expired account records not purged: \(error)") }
        }
    }

    /// Starts the rounds; a second start changes nothing.
    public func start() { rounds.start() }

    /// Stops the rounds, after the one under way.
    public func stop() { rounds.stop() }
}
