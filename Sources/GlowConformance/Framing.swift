import Foundation

/// Frames of the conformance protocol: a 4-byte little-endian length, then that many bytes of
/// UTF-8 JSON (CONF-2).
package enum Framing {
    /// The largest frame either side accepts: 64 MiB.
    package static let maxFrame = 64 << 20

    package static func encode(_ message: JSONValue) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = Array((try? encoder.encode(message)) ?? Data("null".utf8))
        let length = UInt32(body.count)
        return [UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 24)] + body
    }

    /// What reading a frame from a buffer found.
    package enum Parsed: Equatable {
        case needMore
        case frame(JSONValue, consumed: Int)
        case malformed(String)
    }

    package static func parse(_ buffer: ArraySlice<UInt8>) -> Parsed {
        guard buffer.count >= 4 else { return .needMore }
        let start = buffer.startIndex
        let length =
            Int(buffer[start]) | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3])
            << 24
        guard length <= maxFrame else {
            return .malformed("a frame of \(length) bytes is larger than the 64 MiB limit")
        }
        guard buffer.count >= 4 + length else { return .needMore }
        let body = Data(buffer[(start + 4)..<(start + 4 + length)])
        guard let message = try? JSONValue.parse(body) else {
            return .malformed("the frame is not JSON: \(String(decoding: body.prefix(80), as: UTF8.self))")
        }
        return .frame(message, consumed: 4 + length)
    }
}

/// The SDK's testee: answers requests on standard input until it ends (CONF-1, `glow-tool testee`).
package enum Testee {
    package static func serve(input: FileHandle = .standardInput, output: FileHandle = .standardOutput) {
        var buffer: [UInt8] = []
        while true {
            switch Framing.parse(buffer[...]) {
            case .frame(let request, let consumed):
                buffer.removeFirst(consumed)
                let response = Conformance.respond(to: request)
                do {
                    try output.write(contentsOf: Framing.encode(response))
                } catch {
                    return  // the runner went away
                }
            case .malformed:
                return  // a runner that sends garbage gets no answer; it will restart us
            case .needMore:
                let data = input.availableData
                if data.isEmpty { return }
                buffer += data
            }
        }
    }
}
