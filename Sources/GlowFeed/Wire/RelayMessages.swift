import GlowWire

/// What a device asks the relay (FEED-29): `RelayRequest` of `Spec/glow.proto`. Who asks is
/// not in the message: the transport's authentication says so.
public enum RelayRequest: Hashable, Sendable, WireRecord {
    /// Accept these writes of the asker's (FEED-25).
    case submit(FeedReplica)
    /// The changes for the asker since a cursor (FEED-27).
    case changes(since: UInt64)

    package func encodeFields(to writer: inout WireWriter) {
        switch self {
        case .submit(let delta): writer.message(1) { delta.encodeFields(to: &$0) }
        case .changes(let cursor): writer.presentUInt(2, cursor)
        }
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> RelayRequest {
        let start = reader.offset
        var request: RelayRequest?
        var ignored: [UInt8] = []
        try reader.forEachField(unknown: &ignored) { (r, f) throws(WireError) in
            switch f.number {
            case 1:
                // A oneof member given twice as a message merges (WIRE-6).
                var delta = FeedReplica()
                if case .submit(let earlier) = request { delta = earlier }
                delta.merge(try r.readDelta(f))
                request = .submit(delta)
            case 2: request = .changes(since: try r.readUInt(f))
            default: return false
            }
            return true
        }
        guard let request else {
            throw WireError(
                .invalidValue, at: start, "a relay request is either submit or changes_since", rule: "FEED-29")
        }
        return request
    }
}

/// The relay's answer (FEED-29): `RelayResponse` of `Spec/glow.proto`.
public enum RelayResponse: Hashable, Sendable, WireRecord {
    /// The writes were accepted; the last sequence number given.
    case submitted(UInt64)
    /// The changes for the asker and the cursor to ask from next time.
    case changes(FeedReplica, cursor: UInt64)
    /// The request was refused, and why: a feed error's or a wire error's code, its message and
    /// the rule it breaks.
    case error(code: String, message: String, rule: String)

    package func encodeFields(to writer: inout WireWriter) {
        switch self {
        case .submitted(let sequence): writer.presentUInt(1, sequence)
        case .changes(let delta, let cursor):
            writer.message(2) { w in
                w.message(1) { delta.encodeFields(to: &$0) }
                w.uint(2, cursor)
            }
        case .error(let code, let message, let rule):
            writer.message(3) { w in
                w.string(1, code)
                w.string(2, message)
                w.string(3, rule)
            }
        }
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> RelayResponse {
        let start = reader.offset
        var response: RelayResponse?
        var ignored: [UInt8] = []
        try reader.forEachField(unknown: &ignored) { (r, f) throws(WireError) in
            switch f.number {
            case 1: response = .submitted(try r.readUInt(f))
            case 2:
                try r.expect(f, .lengthDelimited)
                var (delta, cursor) = (FeedReplica(), UInt64(0))
                if case .changes(let earlier, let at) = response { (delta, cursor) = (earlier, at) }
                try r.nested { (m: inout WireReader) throws(WireError) in
                    var skipped: [UInt8] = []
                    try m.forEachField(unknown: &skipped) { (r, f) throws(WireError) in
                        switch f.number {
                        case 1: delta.merge(try r.readDelta(f))
                        case 2: cursor = try r.readUInt(f)
                        default: return false
                        }
                        return true
                    }
                }
                response = .changes(delta, cursor: cursor)
            case 3:
                try r.expect(f, .lengthDelimited)
                var texts = ["", "", ""]
                if case .error(let code, let message, let rule) = response { texts = [code, message, rule] }
                try r.nested { (m: inout WireReader) throws(WireError) in
                    var skipped: [UInt8] = []
                    try m.forEachField(unknown: &skipped) { (r, f) throws(WireError) in
                        guard (1...3).contains(f.number) else { return false }
                        texts[Int(f.number) - 1] = try r.readString(f)
                        return true
                    }
                }
                response = .error(code: texts[0], message: texts[1], rule: texts[2])
            default: return false
            }
            return true
        }
        guard let response else {
            throw WireError(
                .invalidValue, at: start, "a relay response is submitted, changes or error", rule: "FEED-29")
        }
        return response
    }
}

extension FeedRelay {
    /// Answers one request's bytes from `person` (authenticated by the transport) with the
    /// response's bytes, over any transport: an HTTP body, a WebSocket frame (FEED-29). Bytes
    /// that are not a request, and requests the relay refuses, get an `error` response naming
    /// the problem; nothing is changed by them.
    public func handle(_ request: [UInt8], from person: String, now: Int64, limits: WireLimits = .default)
        -> [UInt8]
    {
        respond(to: request, from: person, now: now, limits: limits).wireEncoded()
    }

    /// The typed answer to one request's bytes.
    public func respond(to request: [UInt8], from person: String, now: Int64, limits: WireLimits = .default)
        -> RelayResponse
    {
        let decoded: RelayRequest
        do {
            decoded = try RelayRequest(wire: request, limits: limits)
        } catch {
            return .error(
                code: error.code.description, message: "at offset \(error.offset): \(error.message)",
                rule: error.rule ?? "FEED-29")
        }
        switch decoded {
        case .submit(let delta):
            do {
                return .submitted(try submit(delta, from: person, now: now))
            } catch {
                return .error(code: error.code.description, message: error.message, rule: error.rule)
            }
        case .changes(let cursor):
            do {
                let answer = try changes(for: person, since: cursor)
                return .changes(answer.delta, cursor: answer.cursor)
            } catch {
                return .error(code: error.code.description, message: error.message, rule: error.rule)
            }
        }
    }
}
