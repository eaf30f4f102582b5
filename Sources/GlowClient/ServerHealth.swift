/// What a server's `health` answers (SERVER-7): that it serves, the protocol it speaks, and
/// what it is.
public struct ServerHealth: Hashable, Sendable {
    /// `ok` once the server has read from its database.
    public let status: String
    /// The protocol's version (``GlowProtocol/ServiceCalls/protocolVersion``).
    public let protocolVersion: UInt64
    /// The implementation and its version.
    public let server: String
}
