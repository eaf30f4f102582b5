import Dispatch
import GlowCore

/// Work done once every `interval` seconds on a queue of its own, away from any request: the
/// rounds of the server's background jobs (pushes, purges). A round runs to its end before the
/// next begins; stopping waits for the one under way.
final class Rounds: Sendable {
    private let interval: Double
    private let work: @Sendable () -> Void
    private let timer: Locked<(any DispatchSourceTimer)?> = Locked(nil)
    private let queue: DispatchQueue

    /// Rounds of `work` every `interval` seconds (0.01 ... 3,600), on a queue named `label`.
    init(label: String, interval: Double, work: @escaping @Sendable () -> Void) {
        self.interval = min(max(interval, 0.01), 3_600)
        self.work = work
        queue = DispatchQueue(label: label)
    }

    /// Starts the rounds; a second start changes nothing.
    func start() {
        timer.withLock { timer in
            guard timer == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(deadline: .now() + interval, repeating: interval)
            source.setEventHandler { [work] in work() }
            source.resume()
            timer = source
        }
    }

    /// Stops the rounds, after the one under way.
    func stop() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
        queue.sync {}
    }
}
