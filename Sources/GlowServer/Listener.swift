#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opens the listening socket a server hands to libmicrohttpd, so that a Unix socket works as
/// an address does and the port the system chose for `0` is known.
enum Listener {
    /// A socket bound to `address` and listening, and the address with its real port.
    static func open(_ address: ListenAddress) throws(ServerError) -> (socket: Int32, bound: ListenAddress) {
        switch address {
        case .tcp(let host, let port):
            var v4 = sockaddr_in()
            var v6 = sockaddr_in6()
            let family: Int32
            if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
                family = AF_INET
                v4.sin_family = sa_family_t(AF_INET)
                v4.sin_port = in_port_t(UInt16(port).bigEndian)
            } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
                family = AF_INET6
                v6.sin6_family = sa_family_t(AF_INET6)
                v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            } else {
                throw ServerError(
                    .invalidAddress, "the host must be a numeric IPv4 or IPv6 address", address: address.description)
            }
            let socket = try make(family, address)
            var one: Int32 = 1
            _ = setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            let bound =
                family == AF_INET
                ? withUnsafePointer(to: &v4) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                : withUnsafePointer(to: &v6) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                    }
                }
            try check(bound, socket, address)
            try check(listen(socket, 128), socket, address)
            // The port the system chose for 0.
            var name = sockaddr_in6()
            var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            _ = withUnsafeMutablePointer(to: &name) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
            }
            let chosen = Int(UInt16(bigEndian: name.sin6_port))
            return (socket, .tcp(host: host, port: chosen))
        case .unix(let path):
            var name = sockaddr_un()
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: name.sun_path), !bytes.contains(0) else {
                throw ServerError(
                    .invalidAddress, "a Unix socket path is at most 107 bytes with no NUL", address: address.description
                )
            }
            name.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &name.sun_path) { buffer in
                for (index, byte) in bytes.enumerated() { buffer[index] = byte }
            }
            let socket = try make(AF_UNIX, address)
            let bound = withUnsafePointer(to: &name) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            try check(bound, socket, address)
            try check(listen(socket, 128), socket, address)
            return (socket, address)
        }
    }

    private static func make(_ family: Int32, _ address: ListenAddress) throws(ServerError) -> Int32 {
        #if canImport(Glibc)
            let socket = Glibc.socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let socket = Darwin.socket(family, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else {
            throw ServerError(
                .cannotListen, "no socket: \(String(cString: strerror(errno)))", address: address.description)
        }
        return socket
    }

    private static func check(_ result: Int32, _ socket: Int32, _ address: ListenAddress) throws(ServerError) {
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            _ = close(socket)
            throw ServerError(.cannotListen, "cannot listen here: \(reason)", address: address.description)
        }
    }
}
