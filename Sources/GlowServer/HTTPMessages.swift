import GlowCore

/// A request as the server's handler sees it: the method and path, the headers with
/// their names in ASCII lower case, and the whole body.
public struct HTTPRequest: Sendable, Hashable {
    /// `GET`, `POST`, ...
    public let method: String
    /// The path as sent, without its query (the protocol carries everything in bodies).
    public let path: String
    /// The headers by lower-case name; a repeated one holds its values joined by `, `.
    public let headers: [String: String]
    /// The body, at most ``HTTPLimits/maxBodyBytes``.
    public let body: [UInt8]
    /// The peer's address as text (`127.0.0.1`, `::1`), `unix` for a Unix socket's peer, or
    /// empty when it is not known.
    public let peer: String

    /// A request; the header names are put in ASCII lower case.
    public init(method: String, path: String, headers: [String: String] = [:], body: [UInt8] = [], peer: String = "") {
        self.method = method
        self.path = path
        self.headers = Dictionary(
            headers.map { ($0.key.asciiLowercased, $0.value) },
            uniquingKeysWith: { first, second in first + ", " + second })
        self.body = body
        self.peer = peer
    }

    /// The value of the header `name`, in any case.
    public func header(_ name: String) -> String? {
        headers[name.asciiLowercased]
    }
}

/// A header of an answer.
public struct HTTPHeader: Sendable, Hashable {
    /// Its name, as written.
    public let name: String
    /// Its value.
    public let value: String

    /// `name: value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// An answer: a status, headers and a body.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The headers, in order; the library adds `Content-Length` and `Date`.
    public var headers: [HTTPHeader]
    /// The body.
    public var body: [UInt8]

    /// An answer of `status` with `body` of `contentType`.
    public init(status: Int, contentType: String? = nil, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = (contentType.map { [HTTPHeader("Content-Type", $0)] } ?? []) + headers
        self.body = body
    }

    /// `400` for a request HTTP/1.1 does not allow (`reason` says why), closing the connection.
    public static func badRequest(_ reason: String) -> HTTPResponse {
        HTTPResponse(
            status: 400, contentType: "text/plain; charset=utf-8", headers: [HTTPHeader("Connection", "close")],
            body: Array((reason + "\n").utf8))
    }

    /// `413`, naming the limit: what a server answers a body past it unless told otherwise.
    public static func tooLarge(limit: Int) -> HTTPResponse {
        HTTPResponse(
            status: 413, contentType: "text/plain; charset=utf-8", headers: [HTTPHeader("Connection", "close")],
            body: Array("the body is longer than this server takes (\(limit) bytes)\n".utf8))
    }
}

/// The bounds a server keeps, with defaults a small deployment can keep.
public struct HTTPLimits: Sendable, Hashable {
    /// The longest body read, in bytes: 1 MiB.
    public var maxBodyBytes = 1 << 20
    /// Threads in the pool that serves requests: 4.
    public var threads = 4
    /// Requests of one client handled at once: 2, half the handler threads. Its others wait while
    /// other clients' requests take the free threads (SERVER-11).
    public var callsPerClient = 2
    /// Connections open at once: 1,000.
    public var connectionLimit = 1_000
    /// Seconds a connection may stay idle, a slow client's included, before it is closed: 30.
    public var timeoutSeconds = 30
    /// Connections one client may hold open at once: 32; 0 lifts the cap (behind a proxy, whose
    /// address every connection shares). Peers on a Unix socket are the host's own, never capped.
    public var connectionsPerClient = 32
    /// Connections that may wait on their clients at once, for a request's header or body (a
    /// kept-alive connection's idle wait included): 875, seven eighths of ``connectionLimit``'s
    /// default, so that the library's own limit is never reached by waiting connections. A new
    /// connection past it closes the one that has waited longest, so many clients sending slowly
    /// cannot hold every connection (SERVER-11). Peers on a Unix socket are not counted.
    public var waitingConnections = 875
    /// Seven eighths of `connections`, at least one: the waiting connections a server of
    /// `connections` keeps by default.
    public static func waiting(of connections: Int) -> Int { max(1, connections - connections / 8) }
    /// Seconds a request's whole header may take to arrive, from the connection's start or the
    /// end of its previous exchange (so also how long a kept-alive connection may wait idle): 10.
    public var headerSeconds = 10
    /// Seconds a request's whole body may take to arrive after its header, and an answer to be
    /// taken after it is queued: 30.
    public var bodySeconds = 30
    /// Memory for one connection's headers and buffers, in bytes: 64 KiB.
    public var connectionMemoryBytes = 64 << 10
    /// How far past ``maxBodyBytes`` a declared body may go and still be taken in and dropped
    /// unread before the `413` goes out, in bytes: 4 MiB. A client that sends its body without
    /// waiting (no `Expect: 100-continue`) then reads the answer, where a connection closed under
    /// it would lose it to a reset; a longer body, or one whose client waits, is answered at once.
    public var drainedExcessBytes = 4 << 20

    /// The defaults.
    public init() {}
}

/// Where a server listens: a numeric IPv4 or IPv6 address and a port, or a Unix socket.
public enum ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// `127.0.0.1:8080`, `[::1]:8080`; port 0 asks the system for a free one.
    case tcp(host: String, port: Int)
    /// A Unix socket at a path.
    case unix(path: String)

    /// `HOST:PORT` (`[HOST]:PORT` for IPv6) or `unix:PATH`.
    ///
    /// - Throws: ``ServerError`` `invalid_address`, quoting the text.
    public init(parsing text: String) throws(ServerError) {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty else {
                throw ServerError(.invalidAddress, "a Unix socket needs a path after 'unix:'", address: text.quoted())
            }
            self = .unix(path: path)
            return
        }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else {
            throw ServerError(
                .invalidAddress, "a listen address is HOST:PORT with a port 0 to 65535, or unix:PATH",
                address: text.quoted())
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self = .tcp(host: host, port: port)
    }

    /// `127.0.0.1:8080`, `[::1]:8080` or `unix:/path`.
    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:" + path
        }
    }
}

/// Why a server could not start.
public struct ServerError: CodedError {
    /// A stable code.
    public typealias Code = ErrorCode<ServerError>

    /// What kind of problem this is.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The address it was about.
    public let address: String

    package init(_ code: Code, _ message: String, address: String) {
        self.code = code
        self.message = message
        self.address = address
    }

    /// No spec rule: these are the platform's.
    public var rule: String? { nil }
    /// `at 127.0.0.1:8080`.
    public var location: String? { "at \(address)" }
}

extension ErrorCode where Domain == ServerError {
    /// Text that is not a listen address.
    public static var invalidAddress: Self { Self("invalid_address") }
    /// The address cannot be listened on: taken, not this machine's, or not allowed.
    public static var cannotListen: Self { Self("cannot_listen") }
    /// The HTTP library refused to start.
    public static var cannotStart: Self { Self("cannot_start") }
}
