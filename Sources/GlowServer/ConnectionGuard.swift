import CMicroHTTPD
import Dispatch
import Foundation
import GlowCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What keeps one client from holding the server's connections (SERVER-11): at most
/// ``HTTPLimits/connectionsPerClient`` open connections per client, and a deadline on every part
/// of an exchange the client controls, so that sending slowly buys no time. A header must arrive
/// whole within ``HTTPLimits/headerSeconds`` of the connection's start or of the end of its last
/// exchange; a body within ``HTTPLimits/bodySeconds`` of its header, and an answer must be taken
/// within as long again. The handler's own time has no deadline here. A connection past its
/// deadline is shut down from a watch thread, which the library sees as the peer leaving, and
/// closes.
///
/// Many clients, each within its cap, could still hold every connection the library takes by
/// sending slowly. So at most ``HTTPLimits/waitingConnections`` connections wait on their client
/// at once (for a header or a body): a new connection past that bound shuts down the one that has
/// waited longest among those that never carried a whole request, and only when there are none,
/// the one waiting longest of the others (a kept-alive client's idle connection). Trickling
/// connections give way to new ones, a client that sends its request promptly is served, and the
/// connections of clients already served stay.
final class ConnectionGuard: Sendable {
    /// An open connection: its client, its socket, and when its current part must be done.
    private struct Entry {
        let client: String?
        let socket: Int32
        var deadline: ContinuousClock.Instant?
        /// Whether the connection counts toward the bound on waiting ones: Unix socket peers,
        /// the host's own, do not.
        let counted: Bool
        /// Since when the connection waits on its client (its header or body), nil when it does
        /// not.
        var waitingSince: ContinuousClock.Instant?
        /// Whether it was shut down, and only waits for the library to close it.
        var shut = false
        /// Whether a whole request came on it: its client is one the server has served.
        var served = false
    }

    private struct State: ~Copyable {
        /// Open connections by the library's handle.
        var open: [Int: Entry] = [:]
        /// Open connections per capped client.
        var perClient: [String: Int] = [:]
        var stopping = false
    }

    private let limits: HTTPLimits
    private let client: @Sendable (String) -> String
    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// `client` gives the client an address counts as; the Unix socket's peers ("unix") are never
    /// capped, since they are the host's own (a proxy, say).
    init(limits: HTTPLimits, client: @escaping @Sendable (String) -> String) {
        self.limits = limits
        self.client = client
    }

    /// Starts the watch thread, which looks at the deadlines four times a second.
    func start() {
        let thread = Thread { [self] in
            while wake.wait(timeout: .now() + .milliseconds(250)) == .timedOut {
                sweep(now: .now)
            }
            finished.signal()
        }
        thread.stackSize = 1 << 18
        thread.start()
    }

    /// Ends the watch thread and waits for it; calling it again does nothing.
    func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        wake.signal()
        finished.wait()
    }

    /// The capped client of a peer's address text, or nil when the address is not capped.
    private func cappedClient(_ address: String) -> String? {
        guard limits.connectionsPerClient > 0, !address.isEmpty, address != "unix" else { return nil }
        return client(address)
    }

    /// Whether a connection from `address` may be taken in: its client holds fewer than the cap.
    func admits(_ address: String) -> Bool {
        guard let key = cappedClient(address) else { return true }
        return state.withLock { $0.perClient[key, default: 0] < limits.connectionsPerClient }
    }

    /// A connection started: counted for its client, its header's deadline set. When more than
    /// ``HTTPLimits/waitingConnections`` then wait on their clients, the one waiting longest is
    /// shut down.
    func started(_ connection: OpaquePointer, address: String, socket: Int32) {
        let key = cappedClient(address)
        let now = ContinuousClock.now
        let counted = address != "unix"
        state.withLock { state in
            state.open[Int(bitPattern: connection)] = Entry(
                client: key, socket: socket, deadline: now + .seconds(limits.headerSeconds), counted: counted,
                waitingSince: now)
            if let key { state.perClient[key, default: 0] += 1 }
            if counted { shedLongestWaiting(&state) }
        }
    }

    /// Shuts down the connections that have waited longest on their clients until at most
    /// ``HTTPLimits/waitingConnections`` wait.
    private func shedLongestWaiting(_ state: inout State) {
        var waiting = state.open.compactMap { key, entry in
            entry.counted && !entry.shut ? entry.waitingSince.map { (key, entry.served, $0) } : nil
        }
        guard waiting.count > limits.waitingConnections else { return }
        // Never served first, then by how long each has waited.
        waiting.sort { a, b in a.1 != b.1 ? !a.1 : a.2 < b.2 }
        for (key, _, _) in waiting.prefix(waiting.count - max(limits.waitingConnections, 0)) {
            shut(key, in: &state)
        }
    }

    /// Shuts down the connection of `key`. The socket stays the library's: it is closed by the
    /// library after it tells ``closed(_:)``, which takes the state's lock, so the number shut
    /// down here is never one that another connection has taken since.
    private func shut(_ key: Int, in state: inout State) {
        guard let entry = state.open[key], !entry.shut else { return }
        _ = shutdown(entry.socket, Int32(SHUT_RDWR))
        state.open[key]?.shut = true
    }

    /// A connection closed, before the library closes its socket: forgotten.
    func closed(_ connection: OpaquePointer) {
        state.withLock { state in
            guard let entry = state.open.removeValue(forKey: Int(bitPattern: connection)) else { return }
            if let key = entry.client {
                let left = state.perClient[key, default: 1] - 1
                state.perClient[key] = left > 0 ? left : nil
            }
        }
    }

    /// The parts of an exchange, each with the deadline it starts.
    enum Part {
        /// Waiting for a request's header: a new connection's, or after an exchange ended.
        case header
        /// The header came; the body is arriving.
        case body
        /// The handler has the request: no deadline.
        case handled
        /// The answer is queued; the client is taking it.
        case answer
    }

    /// `connection` moved on to `part`.
    func entered(_ part: Part, _ connection: OpaquePointer?) {
        guard let connection else { return }
        let deadline: ContinuousClock.Instant? =
            switch part {
            case .header: .now + .seconds(limits.headerSeconds)
            case .body, .answer: .now + .seconds(limits.bodySeconds)
            case .handled: nil
            }
        state.withLock { state in
            let key = Int(bitPattern: connection)
            guard let entry = state.open[key], !entry.shut else { return }
            state.open[key]?.deadline = deadline
            // A body keeps the place in line its header had, so a request sent slowly, header
            // and body, ages as one; a kept-alive connection's next header joins at the end.
            switch part {
            case .header: state.open[key]?.waitingSince = .now
            case .body: state.open[key]?.waitingSince = entry.waitingSince ?? .now
            case .handled:
                state.open[key]?.waitingSince = nil
                state.open[key]?.served = true
            case .answer: state.open[key]?.waitingSince = nil
            }
        }
    }

    /// Shuts down every connection past its deadline.
    func sweep(now: ContinuousClock.Instant) {
        state.withLock { state in
            for (key, entry) in state.open {
                guard let deadline = entry.deadline, deadline <= now else { continue }
                shut(key, in: &state)
            }
        }
    }
}
