import Foundation
import GlowModel

/// A model value with a binary form in the Glow record format (`Spec/glow.proto`).
///
/// Encoding is deterministic: one canonical byte string per value (WIRE-1 ... WIRE-4). Decoding
/// accepts any valid Protocol Buffers encoding of the message (WIRE-5, WIRE-6), keeps unknown
/// fields (WIRE-7) and enforces ``WireLimits`` (WIRE-9 ... WIRE-16).
public protocol WireMessage: Sendable {
    /// The canonical bytes of the value.
    func wireEncoded() -> [UInt8]

    /// Decodes a value from borrowed bytes.
    ///
    /// - Throws: ``WireError`` with the byte offset of the problem.
    init(wireBuffer: UnsafeRawBufferPointer, limits: WireLimits) throws(WireError)
}

extension WireMessage {
    /// Decodes a value from bytes.
    ///
    /// - Complexity: O(n) in the size of the input.
    public init(wire bytes: [UInt8], limits: WireLimits = .default) throws(WireError) {
        self = try bytes.withUnsafeBytes { buffer in Self.result(buffer, limits) }.get()
    }

    /// Decodes a value from `Data`.
    public init(wire data: Data, limits: WireLimits = .default) throws(WireError) {
        self = try data.withUnsafeBytes { buffer in Self.result(buffer, limits) }.get()
    }

    /// Decodes a value from a span of bytes.
    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    public init(wire span: Span<UInt8>, limits: WireLimits = .default) throws(WireError) {
        self = try span.withUnsafeBytes { buffer in Self.result(buffer, limits) }.get()
    }

    private static func result(_ buffer: UnsafeRawBufferPointer, _ limits: WireLimits) -> Result<Self, WireError> {
        Result { () throws(WireError) in try Self(wireBuffer: buffer, limits: limits) }
    }

    /// The canonical bytes as `Data`.
    public func wireData() -> Data {
        Data(wireEncoded())
    }
}

/// The record types share one shape: write fields, read fields.
package protocol WireRecord: WireMessage {
    func encodeFields(to writer: inout WireWriter)
    static func decodeFields(from reader: inout WireReader) throws(WireError) -> Self
}

extension WireRecord {
    /// The canonical bytes: fields in number order, defaults omitted, unknown fields last.
    public func wireEncoded() -> [UInt8] {
        var writer = WireWriter()
        encodeFields(to: &writer)
        return writer.bytes
    }

    /// Decodes the message from borrowed bytes, within `limits`.
    public init(wireBuffer: UnsafeRawBufferPointer, limits: WireLimits) throws(WireError) {
        self = try WireReader.read(wireBuffer, limits: limits) { (reader) throws(WireError) in
            try Self.decodeFields(from: &reader)
        }
    }
}

extension WireReader {
    /// Builds a model value, turning the model's refusal into ``WireError/Code/invalidValue`` at
    /// the message's start (WIRE-16).
    package func validated<T>(at start: Int, _ make: () throws(ModelError) -> T) throws(WireError) -> T {
        do {
            return try make()
        } catch {
            throw WireError(.invalidValue, at: start, error.description, rule: "WIRE-16")
        }
    }
}
