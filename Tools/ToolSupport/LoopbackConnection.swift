import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failure of a loopback connection: the call is counted as failed, the connection closed.
public struct LoopbackFailure: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
}

/// One keep-alive HTTP/1.1 connection to a glow-server on loopback, blocking: glow-load's and
/// glow-bench's devices. It reads the
/// answers libmicrohttpd gives (a status line, headers, a body of `Content-Length` bytes) and
/// nothing else; it is a measuring instrument, not a client for apps (those use GlowClient).
public final class LoopbackConnection {
    private var descriptor: Int32 = -1
    private let port: UInt16
    private let source: String?
    private var buffer: [UInt8] = []

    /// A connection to `port` on 127.0.0.1, opened at the first request; from the loopback
    /// address `source` when given (all of 127.0.0.0/8 is this host's, so each is a client of its
    /// own to a server that trusts no proxy).
    public init(port: UInt16, source: String? = nil) {
        self.port = port
        self.source = source
    }

    deinit { close() }

    /// Closes the connection; the next request opens another.
    public func close() {
        if descriptor >= 0 { closeDescriptor(descriptor) }
        descriptor = -1
        buffer.removeAll()
    }

    private func open() throws {
        let fd = try Self.socket(to: port, from: source)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        descriptor = fd
    }

    /// A blocking TCP socket connected to `port` on 127.0.0.1, from the loopback address `source`
    /// when given (its port taken only as it connects, ``bindLater(_:)``): the caller closes it.
    ///
    /// - Throws: ``LoopbackFailure`` naming the call that failed; no socket is left open.
    package static func socket(to port: UInt16, from source: String? = nil) throws(LoopbackFailure) -> Int32 {
        #if canImport(Glibc)
            let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw LoopbackFailure(description: "socket: \(String(cString: strerror(errno)))") }
        func attempt(_ what: String, _ call: (UnsafePointer<sockaddr>, socklen_t) -> Int32, _ address: sockaddr_in)
            throws(LoopbackFailure)
        {
            var address = address
            let done = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    call($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard done == 0 else {
                let reason = String(cString: strerror(errno))
                closeDescriptor(fd)
                throw LoopbackFailure(description: "\(what): \(reason)")
            }
        }
        if let source {
            bindLater(fd)
            try attempt("bind \(source)", { bind(fd, $0, $1) }, loopback(inet_addr(source), port: 0))
        }
        try attempt(
            "connect to port \(port)", { connect(fd, $0, $1) }, loopback(UInt32(0x7f00_0001).bigEndian, port: port))
        return fd
    }

    /// An IPv4 socket address: `address` in network order, and `port`.
    private static func loopback(_ address: in_addr_t, port: UInt16) -> sockaddr_in {
        var name = sockaddr_in()
        name.sin_family = sa_family_t(AF_INET)
        name.sin_port = port.bigEndian
        name.sin_addr.s_addr = address
        return name
    }

    /// POSTs `body` to `path` as `token`'s caller (none when empty): the answer's status and body.
    public func post(_ path: String, token: String, from client: String, body: [UInt8]) throws -> (Int, [UInt8]) {
        let head =
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + (token.isEmpty ? "" : "Authorization: Bearer \(token)\r\n")
            + "Content-Type: \("application/x-protobuf")\r\nX-Forwarded-For: \(client)\r\n"
            + "Content-Length: \(body.count)\r\n\r\n"
        return try exchange(Array(head.utf8) + body)
    }

    /// GETs `path`, as `client` when one is given (the `X-Forwarded-For` a proxy adds): the
    /// answer's status and body.
    public func get(_ path: String, from client: String? = nil) throws -> (Int, [UInt8]) {
        let forwarded = client.map { "X-Forwarded-For: \($0)\r\n" } ?? ""
        return try exchange(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(forwarded)\r\n".utf8))
    }

    /// Sends `request` whole and reads its answer.
    private func exchange(_ request: [UInt8]) throws -> (Int, [UInt8]) {
        if descriptor < 0 { try open() }
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw failure("send") }
            sent += count
        }
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var end: Int?
        while true {
            if buffer.count >= 4 {
                end = (0...(buffer.count - 4)).first { buffer[$0..<($0 + 4)].elementsEqual(separator) }
                if end != nil { break }
            }
            try receive()
        }
        guard let end else { throw failure("headers") }
        let lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines.first?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first
        guard let status, let length, length >= 0, length <= 16 << 20 else {
            close()
            throw LoopbackFailure(description: "an answer without a status or a Content-Length: \(lines.first ?? "")")
        }
        buffer.removeFirst(end + 4)
        while buffer.count < length { try receive() }
        let answer = Array(buffer[..<length])
        buffer.removeFirst(length)
        return (status, answer)
    }

    private func receive() throws {
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw failure(count == 0 ? "the server closed the connection" : "recv") }
        buffer += chunk[..<count]
    }

    private func failure(_ what: String) -> LoopbackFailure {
        let reason = String(cString: strerror(errno))
        close()
        return LoopbackFailure(description: "\(what): \(reason)")
    }
}

/// Lets a socket bound to a source address take its port only when it connects
/// (IP_BIND_ADDRESS_NO_PORT, Linux): a bind with port 0 would search the address's ports then,
/// which after many thousands of connections from one address costs the whole machine's kernel.
package func bindLater(_ descriptor: Int32) {
    #if canImport(Glibc)
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_IP), IP_BIND_ADDRESS_NO_PORT, &one, socklen_t(MemoryLayout<Int32>.size))
    #endif
}

/// Closes a descriptor (the C library's `close`, which the connection's own method hides).
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
