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
    /// The next page of an answer, as the page before it gave it (FEED-27).
    case page(RelayPage)

    package func encodeFields(to writer: inout WireWriter) {
        switch self {
        case .submit(let delta): writer.message(RelayRequestField.submit) { delta.encodeFields(to: &$0) }
        case .changes(let cursor): writer.presentUInt(RelayRequestField.changesSince, cursor)
        case .page(let page): writer.message(RelayRequestField.changesPage) { page.encodeFields(to: &$0) }
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
            case .changesPage:
                // A oneof member given twice as a message merges (WIRE-6).
                var page = RelayPage(since: 0, after: 0, until: 0)
                if case .page(let earlier) = request { page = earlier }
                try page.merge(from: &r, f)
                request = .page(page)
            case nil: return false
            }
            return true
        }
        guard let request else {
            throw WireError(
                .invalidValue, at: start, "a relay request is submit, changes_since or changes_page", rule: "FEED-29")
        }
        return request
    }
}

/// The relay's answer (FEED-29): `RelayResponse` of `Spec/glow.proto`.
public enum RelayResponse: Hashable, Sendable, WireRecord {
    /// The writes were accepted; the last sequence number given.
    case submitted(UInt64)
    /// The changes for the asker and the cursor to ask from next time; on a page of them with
    /// more after it, `next`, the page to ask for at once (FEED-27).
    case changes(FeedReplica, cursor: UInt64, next: RelayPage? = nil)
    /// The request was refused, and why: a feed error's or a wire error's code, its message and
    /// the rule it breaks.
    case error(code: String, message: String, rule: String)

    package func encodeFields(to writer: inout WireWriter) {
        switch self {
        case .submitted(let sequence): writer.presentUInt(RelayResponseField.submitted, sequence)
        case .changes(let delta, let cursor, let next):
            writer.message(RelayResponseField.changes) { w in
                w.message(RelayChangesField.delta) { delta.encodeFields(to: &$0) }
                w.uint(RelayChangesField.cursor, cursor)
                w.bool(RelayChangesField.more, next != nil)
                if let next { w.message(RelayChangesField.next) { next.encodeFields(to: &$0) } }
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
                // `more` is written for readers that know no `next`: this one reads the page to ask
                // for from `next` alone (FEED-29).
                var (delta, cursor, next) = (FeedReplica(), UInt64(0), RelayPage?.none)
                if case .changes(let earlier, let at, let earlierNext) = response {
                    (delta, cursor, next) = (earlier, at, earlierNext)
                }
                try r.nested { (m: inout WireReader) throws(WireError) in
                    var skipped: [UInt8] = []
                    try m.forEachField(unknown: &skipped) { (r, f) throws(WireError) in
                        switch RelayChangesField(rawValue: f.number) {
                        case .delta: delta.merge(try r.readDelta(f))
                        case .cursor: cursor = try r.readUInt(f)
                        case .more: _ = try r.readBool(f)
                        case .next:
                            var page = next ?? RelayPage(since: 0, after: 0, until: 0)
                            try page.merge(from: &r, f)
                            next = page
                        case nil: return false
                        }
                        return true
                    }
                }
                response = .changes(delta, cursor: cursor, next: next)
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

/// A page of the answer to `changes_since` (FEED-27): the registers of the answer since `since`,
/// as if the relay's log ended at `until`, numbered after `after`. A `changes` answer gives it as
/// the page to ask for next; a device sends it back as it came.
public struct RelayPage: Hashable, Sendable {
    /// The cursor the answer is since.
    public var since: UInt64
    /// The greatest sequence number of the pages before this one.
    public var after: UInt64
    /// The relay's last sequence number when the answer began.
    public var until: UInt64

    /// The page of the answer since `since` as if the log ended at `until`, after `after`.
    public init(since: UInt64, after: UInt64, until: UInt64) {
        (self.since, self.after, self.until) = (since, after, until)
    }

    func encodeFields(to writer: inout WireWriter) {
        writer.uint(RelayPageField.since, since)
        writer.uint(RelayPageField.after, after)
        writer.uint(RelayPageField.until, until)
    }

    /// Reads a `RelayPage` field into this one, its members merged as WIRE-6 merges them.
    mutating func merge(from reader: inout WireReader, _ field: WireReader.Field) throws(WireError) {
        try reader.expect(field, .lengthDelimited)
        try reader.nested { (m: inout WireReader) throws(WireError) in
            var skipped: [UInt8] = []
            try m.forEachField(unknown: &skipped) { (r, f) throws(WireError) in
                switch RelayPageField(rawValue: f.number) {
                case .since: since = try r.readUInt(f)
                case .after: after = try r.readUInt(f)
                case .until: until = try r.readUInt(f)
                case nil: return false
                }
                return true
            }
        }
    }
}

/// `RelayRequest`'s oneof members (FEED-29).
private enum RelayRequestField: UInt32, FeedWireField {
    case submit = 1
    case changesSince = 2
    case changesPage = 3
}

/// `RelayPage`.
private enum RelayPageField: UInt32, FeedWireField {
    case since = 1
    case after = 2
    case until = 3
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
    case next = 4
}

/// `RelayError`.
private enum RelayErrorField: UInt32, FeedWireField {
    case code = 1
    case message = 2
    case rule = 3
}
