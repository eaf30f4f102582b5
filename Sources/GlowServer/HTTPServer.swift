import CMicroHTTPD
import Dispatch
import Foundation
import GlowCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP/1.1 server on GNU libmicrohttpd: a pool of threads polling with epoll reads each
/// request, this type gathers its headers and body within ``HTTPLimits``, and `handler` answers
/// it. The project parses no HTTP itself. TLS belongs to a reverse proxy in front.
///
/// A body longer than ``HTTPLimits/maxBodyBytes`` is refused with `413` and none of it is kept.
/// A declared length past the limit is answered before a byte of the body is read when the
/// client waits for leave to send it (`Expect: 100-continue`) or the excess passes
/// ``HTTPLimits/drainedExcessBytes``; otherwise the body the client is already sending is dropped
/// as it comes and the `413` follows it, so the client reads the answer instead of a reset. A
/// chunked body is dropped from the moment it passes the limit.
///
/// One client holds at most ``HTTPLimits/connectionsPerClient`` connections, and a header, a body
/// or an answer that takes longer than its deadline loses its connection (``ConnectionGuard``),
/// so a client that sends a byte now and then holds nothing for long.
///
/// A whole request is handed to a pool of ``HTTPLimits/threads`` handler threads while its
/// connection is suspended, so a handler that waits (on a database) holds up no other connection:
/// the polling threads only move bytes. The handler runs on many threads at once, so it must be
/// safe to call concurrently.
public final class HTTPServer: Sendable {
    /// Where the server listens, with the port the system chose when `0` was asked for.
    public let address: ListenAddress
    private let daemon: Locked<Daemon?>
    private let context: Context

    /// Starts serving `address` with `handler`; `tooLarge` answers a body past the limit (the
    /// limit in bytes in, the answer out), `badRequest` a request HTTP/1.1 does not allow (why,
    /// in words, in: ``HTTPServer/framingProblem(_:)``), and `client` names the client a peer's address counts
    /// as for ``HTTPLimits/connectionsPerClient`` (SERVER-11's client, in glow-server). `screen`
    /// sees each request as soon as its headers are in (its body empty), on the thread that reads
    /// it: an answer it gives is the request's, before a byte of the body is kept or a handler
    /// thread is asked, so a client refused by a rate costs the server little (nil: go on).
    /// `connection` is asked for each new connection with its peer's address, once the client's
    /// cap (``HTTPLimits/connectionsPerClient``) has let it in: false closes it unanswered, so a
    /// client that opens connections faster than a rate allows is held to it, requests the
    /// library refuses on its own (each costing its connection) included. `caller` names the
    /// client a whole request counts as for ``HTTPLimits/callsPerClient`` (nil: not capped; by
    /// default its peer's address, a Unix socket's peers not capped).
    ///
    /// - Throws: ``ServerError`` `cannot_listen` (the address is taken, not ours, or not an
    ///   address) or `cannot_start` (the library refused its options).
    public init(
        listen address: ListenAddress, limits: HTTPLimits = HTTPLimits(),
        tooLarge: @escaping @Sendable (Int) -> HTTPResponse = { HTTPResponse.tooLarge(limit: $0) },
        badRequest: @escaping @Sendable (String) -> HTTPResponse = { HTTPResponse.badRequest($0) },
        client: @escaping @Sendable (String) -> String = { $0 },
        screen: @escaping @Sendable (HTTPRequest) -> HTTPResponse? = { _ in nil },
        connection: @escaping @Sendable (String) -> Bool = { _ in true },
        caller: @escaping @Sendable (HTTPRequest) -> String? = HTTPServer.peerCaller,
        handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) throws(ServerError) {
        let (socket, bound) = try Listener.open(address)
        let context = Context(
            limits: limits, tooLarge: tooLarge, badRequest: badRequest, screen: screen, admit: connection,
            caller: caller, handler: handler, connections: ConnectionGuard(limits: limits, client: client))
        context.workers.start()
        context.connections.start()
        let pointer = glow_mhd_start(
            accessCallback, completedCallback, admitCallback, connectionCallback,
            Unmanaged.passUnretained(context).toOpaque(), socket, UInt32(clamping: limits.threads),
            UInt32(clamping: limits.connectionLimit), UInt32(clamping: limits.timeoutSeconds),
            limits.connectionMemoryBytes)
        guard let pointer else {
            context.connections.stop()
            context.workers.stop()
            _ = close(socket)
            throw ServerError(.cannotStart, "libmicrohttpd refused to start on this socket", address: bound.description)
        }
        self.address = bound
        self.context = context
        self.daemon = Locked(Daemon(pointer: pointer))
    }

    /// The default `caller`: a request's peer address, nil for a Unix socket's peers (the host's
    /// own, a proxy, say) and when the library knows none.
    public static let peerCaller: @Sendable (HTTPRequest) -> String? = { request in
        request.peer.isEmpty || request.peer == "unix" ? nil : request.peer
    }

    /// Stops accepting, lets the requests in progress end, and closes the listening socket.
    /// Calling it again does nothing.
    public func stop() {
        daemon.withLock { daemon in
            if let running = daemon {
                // The requests being answered finish and resume their connections first: the
                // library must hold no suspended connection when it stops.
                context.workers.stop()
                MHD_stop_daemon(running.pointer)
                context.connections.stop()
            }
            daemon = nil
        }
        if case .unix(let path) = address { _ = unlink(path) }
    }

    deinit { stop() }

    /// The library's handle; only ever used under the server's lock.
    private struct Daemon: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// What the callbacks reach through their context pointer.
    final class Context: Sendable {
        let limits: HTTPLimits
        let tooLarge: @Sendable (Int) -> HTTPResponse
        let badRequest: @Sendable (String) -> HTTPResponse
        let screen: @Sendable (HTTPRequest) -> HTTPResponse?
        /// Whether a new connection from an address may be taken in (a rate of connections).
        let admit: @Sendable (String) -> Bool
        /// The client a request counts as for ``HTTPLimits/callsPerClient``, nil when not capped.
        let caller: @Sendable (HTTPRequest) -> String?
        let handler: @Sendable (HTTPRequest) -> HTTPResponse
        let workers: Workers
        let connections: ConnectionGuard

        init(
            limits: HTTPLimits, tooLarge: @escaping @Sendable (Int) -> HTTPResponse,
            badRequest: @escaping @Sendable (String) -> HTTPResponse,
            screen: @escaping @Sendable (HTTPRequest) -> HTTPResponse?, admit: @escaping @Sendable (String) -> Bool,
            caller: @escaping @Sendable (HTTPRequest) -> String?,
            handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse, connections: ConnectionGuard
        ) {
            self.limits = limits
            self.tooLarge = tooLarge
            self.badRequest = badRequest
            self.screen = screen
            self.admit = admit
            self.caller = caller
            self.handler = handler
            self.connections = connections
            workers = Workers(count: max(limits.threads, 1), perClient: limits.callsPerClient)
        }
    }

    /// One request's state between the library's calls: its headers, its body so far, whether
    /// the body passed the limit, and the handler's answer once it is there.
    final class Exchange: @unchecked Sendable {
        // The polling thread writes the request before the exchange goes to a handler thread,
        // which writes `answer` before it resumes the connection; the library orders the two
        // (MHD_resume_connection), so no field is used by two threads at once.
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        var tooLarge = false
        /// Why the request's headers are not allowed, when they are not.
        var malformed: String?
        /// How many times the request names each header (by lower-case name), for the ones a
        /// request may name once: `host`, `transfer-encoding`.
        var counts: [String: Int] = [:]
        /// The peer's address as text, empty when the library knows none.
        var peer = ""
        var handed = false
        var answer: HTTPResponse?
    }

    /// The threads that run the handler: a fixed number, taking requests in the order they came.
    /// The handler threads, and the requests waiting for one. A client (``HTTPServer``'s `caller`)
    /// has at most ``HTTPLimits/callsPerClient`` requests handled at once: its others wait while
    /// other clients' requests, in the order they came, take the free threads, so one client
    /// sending slow calls on many connections never holds every thread (SERVER-11).
    final class Workers: Sendable {
        private struct Job {
            let client: String?
            let run: @Sendable () -> Void
        }
        private struct Queue: ~Copyable {
            var jobs: [Job] = []
            /// Requests being handled, per capped client.
            var running: [String: Int] = [:]
            var stopping = false
        }
        private let count: Int
        private let perClient: Int
        private let queue = Locked(Queue())
        private let condition = NSCondition()
        private let finished = DispatchSemaphore(value: 0)

        init(count: Int, perClient: Int) {
            self.count = count
            self.perClient = max(perClient, 1)
        }

        func start() {
            for _ in 0..<count {
                let thread = Thread { [self] in work() }
                thread.stackSize = 1 << 20
                thread.start()
            }
        }

        /// Queues `job` for `client` (nil: not capped); false once the pool is stopping.
        func submit(client: String?, _ job: @escaping @Sendable () -> Void) -> Bool {
            let taken = queue.withLock { queue -> Bool in
                guard !queue.stopping else { return false }
                queue.jobs.append(Job(client: client, run: job))
                return true
            }
            if taken { wake() }
            return taken
        }

        /// Runs the jobs queued, then ends every thread and waits for them.
        func stop() {
            let started = queue.withLock { queue -> Bool in
                guard !queue.stopping else { return false }
                queue.stopping = true
                return true
            }
            guard started else { return }
            wake()
            for _ in 0..<count { finished.wait() }
        }

        private func wake() {
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }

        /// What a free thread does next: the first job in line whose client has fewer than its
        /// cap handled, nil with nothing to take; `done` once the pool stops with nothing left.
        private func next() -> (job: Job?, done: Bool) {
            queue.withLock { queue in
                let index = queue.jobs.firstIndex { job in
                    job.client.map { queue.running[$0, default: 0] < perClient } ?? true
                }
                guard let index else { return (nil, queue.stopping && queue.jobs.isEmpty) }
                let job = queue.jobs.remove(at: index)
                if let client = job.client { queue.running[client, default: 0] += 1 }
                return (job, false)
            }
        }

        private func work() {
            while true {
                condition.lock()
                var taken = next()
                while taken.job == nil, !taken.done {
                    // A job's end, a new job or the stop wakes every waiting thread to look again.
                    condition.wait()
                    taken = next()
                }
                condition.unlock()
                guard let job = taken.job else { break }
                job.run()
                if let client = job.client {
                    queue.withLock { queue in
                        let left = queue.running[client, default: 1] - 1
                        queue.running[client] = left > 0 ? left : nil
                    }
                    wake()
                }
            }
            finished.signal()
        }
    }
}

/// Called by the library for each request: first with its headers, then once per piece of
/// its body, then once more with nothing, when the answer is queued.
private let accessCallback: MHD_AccessHandlerCallback = {
    context, connection, url, method, version, uploadData, uploadDataSize, requestContext in
    guard let context, let requestContext, let uploadDataSize else { return glow_mhd_no() }
    let server = Unmanaged<HTTPServer.Context>.fromOpaque(context).takeUnretainedValue()
    guard let stored = requestContext.pointee else {
        let exchange = HTTPServer.Exchange()
        server.connections.entered(.body, connection)
        _ = glow_mhd_headers_n(connection, headerCallback, Unmanaged.passUnretained(exchange).toOpaque())
        requestContext.pointee = Unmanaged.passRetained(exchange).toOpaque()
        var peer = [CChar](repeating: 0, count: 64)
        if glow_mhd_peer(connection, &peer, peer.count) != 0 { exchange.peer = addressText(peer) }
        let head = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "",
            headers: exchange.headers, body: [], peer: exchange.peer)
        if let answer = server.screen(head) { return queue(answer, on: connection, of: server) }
        // A request two readers could frame differently is answered and its connection closed,
        // so whatever follows it on the connection is never read as a request of its own.
        let version = version.map { String(cString: $0) } ?? ""
        if let problem = exchange.malformed
            ?? HTTPServer.framingProblem(exchange.headers, counts: exchange.counts, version: version)
        {
            return queue(server.badRequest(problem), on: connection, of: server)
        }
        // A declared length past the limit is refused without a byte of the body kept. A client
        // already sending a body a little too long is let finish, the bytes dropped as they come,
        // so it reads the 413 rather than a reset; any other is answered at once.
        if let length = exchange.headers["content-length"].flatMap(Int.init), length > server.limits.maxBodyBytes {
            exchange.tooLarge = true
            let waits = exchange.headers["expect"].map { $0.lowercased().contains("100-continue") } ?? false
            let excess = length.subtractingReportingOverflow(server.limits.maxBodyBytes)
            if waits || excess.overflow || excess.partialValue > server.limits.drainedExcessBytes {
                return queue(server.tooLarge(server.limits.maxBodyBytes), on: connection, of: server)
            }
        }
        return glow_mhd_yes()
    }
    let exchange = Unmanaged<HTTPServer.Exchange>.fromOpaque(stored).takeUnretainedValue()
    if uploadDataSize.pointee > 0 {
        let count = uploadDataSize.pointee
        if !exchange.tooLarge, let uploadData {
            if exchange.body.count + count > server.limits.maxBodyBytes {
                exchange.tooLarge = true
                exchange.body = []
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: count) {
                    exchange.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
                }
            }
        }
        uploadDataSize.pointee = 0
        return glow_mhd_yes()
    }
    if exchange.tooLarge { return queue(server.tooLarge(server.limits.maxBodyBytes), on: connection, of: server) }
    // Called again after the handler resumed the connection: its answer is ready.
    if let answer = exchange.answer { return queue(answer, on: connection, of: server) }
    guard !exchange.handed else { return glow_mhd_yes() }
    // A chunked body's trailers are fields as headers are: held to the same rules.
    _ = glow_mhd_trailers_n(connection, headerCallback, Unmanaged.passUnretained(exchange).toOpaque())
    if let problem = exchange.malformed { return queue(server.badRequest(problem), on: connection, of: server) }
    let request = HTTPRequest(
        method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "",
        headers: exchange.headers, body: exchange.body, peer: exchange.peer)
    exchange.body = []
    exchange.handed = true
    server.connections.entered(.handled, connection)
    let suspended = Suspended(connection: connection)
    MHD_suspend_connection(connection)
    let queued = server.workers.submit(client: server.caller(request)) {
        exchange.answer = server.handler(request)
        MHD_resume_connection(suspended.connection)
    }
    if !queued {
        // The server is stopping: the request is answered here, as it was before it stopped.
        exchange.answer = server.handler(request)
        MHD_resume_connection(connection)
    }
    return glow_mhd_yes()
}

/// A suspended connection, handed to the handler thread that resumes it.
private struct Suspended: @unchecked Sendable {
    let connection: OpaquePointer?
}

/// Gathers a request's headers, names in ASCII lower case; a repeated header keeps its values
/// joined by `, `, as RFC 9110 allows. A name or value holding a control byte (CR, LF, DEL or
/// another below space but tab), which RFC 9110 section 5.5 forbids, makes the request malformed.
/// (A NUL cannot be seen here: libmicrohttpd 0.9.75 ends the value at it.)
private let headerCallback: MHD_KeyValueIteratorN = { context, kind, key, keySize, value, valueSize in
    guard let context, let key else { return glow_mhd_yes() }
    let exchange = Unmanaged<HTTPServer.Exchange>.fromOpaque(context).takeUnretainedValue()
    let nameBytes = UnsafeRawBufferPointer(start: key, count: keySize)
    let valueBytes = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
    let forbidden = { (byte: UInt8) in (byte < 0x20 && byte != 0x09) || byte == 0x7F }
    let trailer = glow_mhd_is_trailer(kind) != 0
    let field = trailer ? "a trailer" : "a header"
    if exchange.malformed == nil, nameBytes.contains(where: forbidden) || valueBytes.contains(where: forbidden) {
        exchange.malformed = "\(field) holds a control character, which HTTP forbids"
    }
    // RFC 9110 section 5.1: a field name is a token. `Content-Length : 46`, a space before the
    // colon, names no field a reader agrees on: one frames by it and another does not.
    if exchange.malformed == nil, nameBytes.isEmpty || !nameBytes.allSatisfy(HTTPServer.isTokenByte) {
        exchange.malformed = "\(field) name is not a token (RFC 9110 section 5.1): no spaces, no separators"
    }
    guard !trailer else { return glow_mhd_yes() }
    let name = String(decoding: nameBytes, as: UTF8.self).asciiLowercased
    let text = String(decoding: valueBytes, as: UTF8.self)
    exchange.headers[name] = exchange.headers[name].map { $0 + ", " + text } ?? text
    exchange.counts[name, default: 0] += 1
    return glow_mhd_yes()
}

extension HTTPServer {
    /// Whether `byte` may stand in a token (RFC 9110 section 5.6.2): a letter, a digit, or one of
    /// ``!#$%&'*+-.^_`|~``.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Why a request's framing is not one every reader agrees on (RFC 9112 sections 3.2 and 6), or
    /// nil: both `Content-Length` and `Transfer-Encoding`; a `Content-Length` that is not one
    /// decimal number (two headers, a list, a sign); `Transfer-Encoding` named twice, or with any
    /// coding but `chunked` (glow-server decodes no other, and a body it cannot frame would be read
    /// to the connection's end); an HTTP/1.1 request without exactly one `Host`. `counts` is how
    /// many times each header was named.
    static func framingProblem(_ headers: [String: String], counts: [String: Int], version: String) -> String? {
        if headers["transfer-encoding"] != nil, headers["content-length"] != nil {
            return "a request has Content-Length or Transfer-Encoding, not both"
        }
        if let coding = headers["transfer-encoding"] {
            guard counts["transfer-encoding"] == 1 else { return "a request names Transfer-Encoding once" }
            let codings = coding.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).asciiLowercased }
            guard codings == ["chunked"] else {
                return "the one Transfer-Encoding this server takes is chunked, alone"
            }
        }
        if version == "HTTP/1.1", counts["host"] != 1 {
            return "an HTTP/1.1 request has one Host header (RFC 9112 section 3.2)"
        }
        if let length = headers["content-length"],
            length.isEmpty || !length.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        {
            return "Content-Length is one decimal number"
        }
        return nil
    }
}

/// Releases a request's state when the library is done with it, however it ended; the connection
/// waits for its next header.
private let completedCallback: MHD_RequestCompletedCallback = { context, connection, requestContext, _ in
    if let context {
        Unmanaged<HTTPServer.Context>.fromOpaque(context).takeUnretainedValue().connections.entered(.header, connection)
    }
    guard let requestContext, let stored = requestContext.pointee else { return }
    Unmanaged<HTTPServer.Exchange>.fromOpaque(stored).release()
    requestContext.pointee = nil
}

/// Asked before a connection is taken in: refused when its client holds its share already, or
/// opens connections faster than the server's rate of them allows.
private let admitCallback: MHD_AcceptPolicyCallback = { context, address, _ in
    guard let context else { return glow_mhd_yes() }
    let server = Unmanaged<HTTPServer.Context>.fromOpaque(context).takeUnretainedValue()
    var text = [CChar](repeating: 0, count: 64)
    guard glow_mhd_address_text(address, &text, text.count) != 0 else { return glow_mhd_yes() }
    let peer = addressText(text)
    return server.connections.admits(peer) && server.admit(peer) ? glow_mhd_yes() : glow_mhd_no()
}

/// Told when a connection starts and when it closes (before its socket is closed).
private let connectionCallback: MHD_NotifyConnectionCallback = { context, connection, _, code in
    guard let context, let connection else { return }
    let server = Unmanaged<HTTPServer.Context>.fromOpaque(context).takeUnretainedValue()
    guard glow_mhd_started(code) != 0 else {
        server.connections.closed(connection)
        return
    }
    var text = [CChar](repeating: 0, count: 64)
    let known = glow_mhd_peer(connection, &text, text.count) != 0
    server.connections.started(connection, address: known ? addressText(text) : "", socket: glow_mhd_socket(connection))
}

/// The text of a NUL-ended C buffer.
private func addressText(_ text: [CChar]) -> String {
    String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Hands `response` to the library, which copies it; the client's time to take it starts.
private func queue(_ response: HTTPResponse, on connection: OpaquePointer?, of server: HTTPServer.Context) -> MHD_Result
{
    server.connections.entered(.answer, connection)
    let made = response.body.withUnsafeBytes { bytes in glow_mhd_copied_response(bytes.count, bytes.baseAddress) }
    guard let made else { return glow_mhd_no() }
    for header in response.headers { MHD_add_response_header(made, header.name, header.value) }
    let result = MHD_queue_response(connection, UInt32(clamping: response.status), made)
    MHD_destroy_response(made)
    return result
}
