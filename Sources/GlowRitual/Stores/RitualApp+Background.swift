import Dispatch
import Foundation
import GlowClient
import GlowCore
import GlowModel
import GlowStorage
import GlowSync

/// What ``RitualApp/sync(within:now:)`` did inside its budget, and what it left for the next sync.
public struct SyncReport: Hashable, Sendable {
    /// A part of a sync.
    public enum Work: String, Hashable, Sendable, CaseIterable {
        /// This device's changes sent to the person's other devices (the outbox's records).
        case push
        /// The other devices' records brought here and merged.
        case pull
        /// The person's items published, and the feed's writes exchanged with the server.
        case feed
    }

    /// The parts done whole.
    public internal(set) var done: Set<Work> = []
    /// The parts not done, or not done whole: the next sync does them. Empty when the sync was
    /// complete.
    public internal(set) var left: Set<Work> = []
    /// How many of the outbox's records the server kept.
    public internal(set) var pushed = 0
    /// What the pulls brought, or nil when none was answered.
    public internal(set) var pulled: SyncProgress?
    /// The records still waiting in the outbox when the sync returned, or nil when the outbox was
    /// not read before the budget ran out. They stay there until a server keeps them.
    public internal(set) var waiting: Int?
    /// Why the sync stopped before the budget ran out, or nil.
    public internal(set) var failure: RitualAppError?
    /// Whether the budget ran out first: the sync was cancelled and returned at its deadline.
    public internal(set) var overBudget = false

    /// Whether every part was done.
    public var isComplete: Bool { left.isEmpty }
}

/// A sync's report as it goes, shared by the work and the caller that stops waiting at the
/// deadline.
final class SyncRoundLog: Sendable {
    private let report: Locked<SyncReport>

    init(_ parts: Set<SyncReport.Work>) { report = Locked(SyncReport(left: parts)) }

    func update(_ body: (inout SyncReport) -> Void) { report.withLock { body(&$0) } }

    func finish(_ part: SyncReport.Work) {
        update {
            $0.left.remove(part)
            $0.done.insert(part)
        }
    }

    /// The report as it stands; `overBudget` when the deadline came first.
    func taken(overBudget: Bool) -> SyncReport {
        report.withLock {
            $0.overBudget = overBudget
            return $0
        }
    }
}

@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
extension RitualApp {
    /// Syncs what it can within `budget` and stops: this device's changes pushed, the other
    /// devices' pulled (when this device syncs the person's own data), then the person's items
    /// published and the feed's writes exchanged; what a `BGAppRefreshTask` or a background push's
    /// 30 seconds need. It returns by the deadline, a server that stalls included: every call to
    /// the server waits no longer than the time left and is not tried again past it
    /// (``ServiceClient/deadline``), and what still runs at the deadline is cancelled.
    ///
    /// Nothing is lost when it stops early: a change leaves the outbox only once the server kept it,
    /// and each page pulled is kept before the next; the next sync goes on from there.
    ///
    /// - Returns: what was done and what is left; a failure (signed out, the server's refusal, the
    ///   store's) is in the report's `failure`, and also in ``syncFailure`` or ``sessionFailure`` as
    ///   ``sync(now:)``'s would be.
    @discardableResult
    public func sync(within budget: Duration, now: Instant = .now) async -> SyncReport {
        let deadline = ContinuousClock.now + budget
        let log = SyncRoundLog(syncsData ? [.push, .pull, .feed] : [.feed])
        let work = Task { @MainActor in
            await ServiceClient.$deadline.withValue(deadline) { await self.syncRound(now: now, log: log) }
        }
        let finished = await Self.finished(work, by: deadline)
        if !finished { work.cancel() }
        return log.taken(overBudget: !finished)
    }

    /// Handles a push the platform woke the app with (`application(_:didReceiveRemoteNotification:
    /// fetchCompletionHandler:)`'s `userInfo`): a Glow background push, which carries nothing but
    /// `content-available` (REMIND-21) and says that another device of the person synced or a
    /// friend's item arrived, is answered by ``sync(within:now:)`` within `budget` (keep it under the
    /// system's 30 seconds). A proof push (its `glow-proof`, ``SessionKeeper/proofCode(inPushPayload:)``)
    /// and any other push are not Glow's to sync for.
    ///
    /// - Returns: the sync's report, or nil when the push was not a Glow background push (then
    ///   nothing ran; tell the system there was no new data).
    public func handleBackgroundPush(_ payload: [AnyHashable: Any], within budget: Duration, now: Instant = .now)
        async -> SyncReport?
    {
        guard Self.isBackgroundPush(payload) else { return nil }
        return await sync(within: budget, now: now)
    }

    /// Whether `payload` is REMIND-21's: `aps` holding `content-available` 1 and nothing else, and
    /// nothing beside `aps` (a proof push carries its `glow-proof`).
    nonisolated static func isBackgroundPush(_ payload: [AnyHashable: Any]) -> Bool {
        guard payload.count == 1, let aps = payload["aps"] as? [AnyHashable: Any], aps.count == 1 else { return false }
        switch aps["content-available"] {
        case let flag as Int: return flag == 1
        case let flag as NSNumber: return flag.intValue == 1
        default: return false
        }
    }

    /// One sync of every part, told to `log` as it goes.
    private func syncRound(now: Instant, log: SyncRoundLog) async {
        guard let session, let activity, session.session != nil else {
            let failure = ServiceFailure(.signedOut, "no one is signed in on this device", call: "relay")
            log.update { $0.failure = .service(failure) }
            return
        }
        if syncsData {
            let before: Int
            do { before = try await database.sync?.state.outbox.pending.count ?? 0 } catch {
                log.update { $0.failure = .store(error) }
                return
            }
            log.update { $0.waiting = before }
            do {
                try await syncData(now: now) { seen in
                    // Pages come after the push: this device's changes were kept.
                    log.update {
                        $0.pulled = seen
                        if $0.left.remove(.push) != nil {
                            $0.done.insert(.push)
                            $0.pushed = before
                            $0.waiting = 0
                        }
                    }
                }
            } catch {
                log.update { $0.failure = error }
                return
            }
            let after: Int
            do { after = try await database.sync?.state.outbox.pending.count ?? 0 } catch {
                log.update { $0.failure = .store(error) }
                return
            }
            log.update {
                $0.pushed = Swift.max(0, before - after)
                $0.waiting = after
            }
            log.finish(.push)
            log.finish(.pull)
        }
        do {
            try await activity.publish(now: now)
            try await activity.sync(through: session.relayTransport, now: now)
        } catch {
            await noteSessionEnd(.activity(error))
            log.update { $0.failure = .activity(error) }
            return
        }
        log.finish(.feed)
    }

    /// Whether `task` finished by `deadline`; returns at the deadline when it did not (the task
    /// goes on until it sees its cancellation).
    nonisolated static func finished(_ task: Task<Void, Never>, by deadline: ContinuousClock.Instant) async -> Bool {
        let waiting = Locked<CheckedContinuation<Bool, Never>?>(nil)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            waiting.withLock { $0 = continuation }
            // A dispatch timer, not a task: the deadline comes even when every thread of the task
            // pool is busy.
            DispatchQueue.global().asyncAfter(deadline: dispatchTime(of: deadline)) {
                waiting.withLock { $0.take() }?.resume(returning: false)
            }
            Task {
                await task.value
                waiting.withLock { $0.take() }?.resume(returning: true)
            }
        }
    }
}

/// The dispatch time of `instant` (at most a million seconds away).
private func dispatchTime(of instant: ContinuousClock.Instant) -> DispatchTime {
    let left = ContinuousClock.now.duration(to: instant)
    let seconds = Swift.min(left.components.seconds, 1_000_000)
    let nanoseconds = seconds * 1_000_000_000 + left.components.attoseconds / 1_000_000_000
    return .now() + .nanoseconds(Int(clamping: Swift.max(0, nanoseconds)))
}
