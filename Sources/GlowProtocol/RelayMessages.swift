import GlowCore
import GlowFeed
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
        case .submit(let delta): writer.message(RelayRequestField.submit) { delta.encodeFields(to: &$0) }
        case .changes(let cursor): writer.presentUInt(RelayRequestField.changesSince, cursor)
        }
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> RelayRequest {
        let start = reader.offset
        var request: RelayRequest?
        var ignored: [UInt8] = []
        try reader.forEachField(unknown: &ignored) { (r, f) throws(WireError) in
            switch RelayRequestField(rawValue: f.number) {
            case .submit:
                // A oneof member given twice as a message merges (WIRE-6).
                var delta = FeedReplica()
                if case .submit(let earlier) = request { delta = earlier }
                delta.merge(try r.readDelta(f))
                request = .submit(delta)
            case .changesSince: request = .changes(since: try r.readUInt(f))
            case nil: return false
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
    /// The changes for the asker and the cursor to ask from next time; `more` when they are a
    /// page of them, with more after the cursor to ask for at once (FEED-27).
    case changes(FeedReplica, cursor: UInt64, more: Bool = false)
    /// The request was refused, and why: a feed error's or a wire error's code, its message and
    /// the rule it breaks.
    case error(code: String, message: String, rule: String)

    package func encodeFields(to writer: inout WireWriter) {
        switch self {
        case .submitted(let sequence): writer.presentUInt(RelayResponseField.submitted, sequence)
        case .changes(let delta, let cursor, let more):
            writer.message(RelayResponseField.changes) { w in
                w.message(RelayChangesField.delta) { delta.encodeFields(to: &$0) }
                w.uint(RelayChangesField.cursor, cursor)
                w.bool(RelayChangesField.more, more)
            }
        case .error(let code, let message, let rule):
            writer.message(RelayResponseField.error) { w in
                w.string(RelayErrorField.code, code)
                w.string(RelayErrorField.message, message)
                w.string(RelayErrorField.rule, rule)
            }
        }
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> RelayResponse {
        let start = reader.offset
        var response: RelayResponse?
        var ignored: [UInt8] = []
        try reader.forEachField(unknown: &ignored) { (r, f) throws(WireError) in
            switch RelayResponseField(rawValue: f.number) {
            case .submitted: response = .submitted(try r.readUInt(f))
            case .changes:
                try r.expect(f, .lengthDelimited)
                var (delta, cursor, more) = (FeedReplica(), UInt64(0), false)
                if case .changes(let earlier, let at, let earlierMore) = response {
                    (delta, cursor, more) = (earlier, at, earlierMore)
                }
                try r.nested { (m: inout WireReader) throws(WireError) in
                    var skipped: [UInt8] = []
                    try m.forEachField(unknown: &skipped) { (r, f) throws(WireError) in
                        switch RelayChangesField(rawValue: f.number) {
                        case .delta: delta.merge(try r.readDelta(f))
                        case .cursor: cursor = try r.readUInt(f)
                        case .more: more = try r.readBool(f)
                        case nil: return false
                        }
                        return true
                    }
                }
                response = .changes(delta, cursor: cursor, more: more)
            case .error:
                try r.expect(f, .lengthDelimited)
                var (code, message, rule) = ("", "", "")
                if case .error(let earlierCode, let earlierMessage, let earlierRule) = response {
                    (code, message, rule) = (earlierCode, earlierMessage, earlierRule)
                }
                try r.nested { (m: inout WireReader) throws(WireError) in
                    var skipped: [UInt8] = []
                    try m.forEachField(unknown: &skipped) { (r, f) throws(WireError) in
                        switch RelayErrorField(rawValue: f.number) {
                        case .code: code = try r.readString(f)
                        case .message: message = try r.readString(f)
                        case .rule: rule = try r.readString(f)
                        case nil: return false
                        }
                        return true
                    }
                }
                response = .error(code: code, message: message, rule: rule)
            case nil: return false
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

/// `RelayRequest`'s oneof members (FEED-29).
private enum RelayRequestField: UInt32, FeedWireField {
    case submit = 1
    case changesSince = 2
}

/// `RelayResponse`'s oneof members (FEED-29).
private enum RelayResponseField: UInt32, FeedWireField {
    case submitted = 1
    case changes = 2
    case error = 3
}

/// `RelayChanges`.
private enum RelayChangesField: UInt32, FeedWireField {
    case delta = 1
    case cursor = 2
    case more = 3
}

/// `RelayError`.
private enum RelayErrorField: UInt32, FeedWireField {
    case code = 1
    case message = 2
    case rule = 3
}
