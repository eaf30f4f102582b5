import Foundation
import GlowAuth
import GlowCore
import GlowFeed
import GlowModel
import GlowProtocol
import GlowRelay
import GlowReminders
import GlowServer
import GlowSync
import GlowWire

/// The server's protocol (`Spec/server.md`) over an account service and a relay: one HTTP
/// request in, its answer out. It holds no state of its own: every call goes to the services,
/// whose stores keep what they change before they answer, so any number of handlers over the same
/// database answer alike.
public final class ServiceHandler: Sendable {
    /// The accounts the handler signs people in to.
    public let accounts: AccountService
    /// The feed's relay.
    public let relay: FeedRelay
    /// People's sync logs (Spec/sync.md 11.4).
    public let sync: SyncLog
    private let settings: Settings
    let clock: any AuthClock
    private let healthCheck: @Sendable () -> String?
    private let numberingCheck: @Sendable () -> String?
    private let log: @Sendable (String) -> Void

    /// How a handler answers beyond the services.
    public struct Settings: Sendable, Hashable {
        /// `server` of `Health`: the implementation and its version.
        public var serverName = "glow-server"
        /// Whether the client's address for throttling (AUTH-39, AUTH-45) is the last entry of
        /// `X-Forwarded-For`, as a reverse proxy in front appends it, rather than the peer's. Only
        /// for a server that a proxy alone can reach.
        public var trustForwardedFor = false
        /// Whether a provider sign-in's `provider_refresh_token` is kept, to be revoked when the
        /// account is deleted (AUTH-42): only for a server whose account service can revoke it.
        public var keepsProviderRefreshTokens = false

        /// The defaults.
        public init() {}
    }

    /// A handler over `accounts`, `relay` and `sync` (in memory unless given). `healthCheck` reads the database and says what is
    /// wrong with it, or nil when it answers (SERVER-7); `numberingCheck` says, in words a client
    /// may read (counts and seconds), how far the relay's numbering of kept writes is behind, or
    /// nil when it keeps up (FEED-25); `clock` times the relay's receipts; `log`
    /// takes what the server's operator needs and a client must not see (a storage failure's
    /// database, path and statement), standard error unless given.
    public init(
        accounts: AccountService, relay: FeedRelay, sync: SyncLog = SyncLog(store: InMemorySyncLogStore()),
        settings: Settings = Settings(),
        clock: any AuthClock = SystemAuthClock(), healthCheck: @escaping @Sendable () -> String?,
        numberingCheck: @escaping @Sendable () -> String? = { nil },
        log: @escaping @Sendable (String) -> Void = ServiceHandler.standardErrorLog
    ) {
        self.accounts = accounts
        self.relay = relay
        self.sync = sync
        self.settings = settings
        self.clock = clock
        self.healthCheck = healthCheck
        self.numberingCheck = numberingCheck
        self.log = log
    }

    /// Writes a line to standard error: the default server log.
    public static let standardErrorLog: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data(("glow-server: " + line + "\n").utf8))
    }

    /// The message of every `storage_failed` answer (SERVER-5): what a client can do, and nothing
    /// of the server's insides, which go to the server's log.
    static let storageMessage = "the server's storage did not answer in time; try again after Retry-After"

    /// The answer to `request` (SERVER-1 ... SERVER-7).
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        guard let call = ServiceCalls.call(path: request.path) else {
            return Self.refusal(
                "unknown_call", "this server has no call \(request.path.quoted()); calls are /v1/NAME",
                rule: "SERVER-4", location: "path \(request.path.quoted())")
        }
        guard request.method == call.method else {
            return Self.refusal(
                "method_not_allowed", "\(call.path) is called with \(call.method), not \(request.method)",
                rule: "SERVER-7", location: "call \(call.name)", headers: [HTTPHeader("Allow", call.method)])
        }
        if !request.body.isEmpty {
            let media = request.header("content-type").map(Self.mediaType) ?? ""
            guard media == ServiceCalls.contentType else {
                return Self.refusal(
                    "unsupported_media_type",
                    "a body is \(ServiceCalls.contentType), not \(media.isEmpty ? "untyped" : media.quoted())",
                    rule: "SERVER-6", location: "call \(call.name)")
            }
        }
        do throws(ServiceRefusal) {
            let answer = try serve(call, request)
            return HTTPResponse(status: 200, contentType: ServiceCalls.contentType, body: answer)
        } catch {
            var message = error.message
            if error.code == "storage_failed" {
                log("\(call.name): \(error.message)")
                message = Self.storageMessage
            }
            return Self.refusal(
                error.code, message, rule: error.rule, location: error.location, retryAfter: error.retryAfter)
        }
    }

    /// The answer to a request HTTP/1.1 does not allow (framed two ways, a control character in
    /// a header): `400` `malformed_request`, its connection closed (SERVER-6).
    public static func badRequest(_ reason: String) -> HTTPResponse {
        var response = refusal("malformed_request", reason, rule: "SERVER-6", location: "")
        response.headers.append(HTTPHeader("Connection", "close"))
        return response
    }

    /// `413 body_too_large`, for ``HTTPServer``'s `tooLarge` (SERVER-6).
    public static func tooLarge(limit: Int) -> HTTPResponse {
        var response = refusal(
            "body_too_large", "the body is longer than this server takes (\(limit) bytes)", rule: "SERVER-6",
            location: "")
        response.headers.append(HTTPHeader("Connection", "close"))
        return response
    }

    // MARK: Calls

    private func serve(_ call: ServiceCall, _ request: HTTPRequest) throws(ServiceRefusal) -> [UInt8] {
        if call.name == "health" { return try health() }
        guard let requestType = call.request else { preconditionFailure("every call but health takes a message") }
        let token = call.needsSession ? try Self.accessToken(request) : nil
        let message: ProtocolMessage
        do {
            message = try ProtocolMessage(requestType, wire: request.body)
        } catch {
            throw ServiceRefusal(
                error.code.description, "the body is not a \(requestType.name): \(error.message)", rule: error.rule,
                location: "at offset \(error.offset)")
        }
        if call.name == "relay", let token { return try relayAnswer(request.body, token: token) }
        if call.name == "register-device" || call.name == "remove-device", let token {
            return try devices(call, message, token: token)
        }
        if call.name.hasPrefix("sync-"), let token {
            return try syncAnswer(call, message, token: token)
        }
        let client = accountClient(request)
        do throws(AuthError) {
            return try answer(call, message, token: token, client: client)
        } catch {
            throw ServiceRefusal(error)
        }
    }

    private func answer(
        _ call: ServiceCall, _ message: ProtocolMessage, token: SecretToken?, client: String
    ) throws(AuthError) -> [UInt8] {
        let done = ProtocolMessage("Done").wireEncoded()
        // Every call but these has a session: `token` is set.
        let access = token ?? SecretToken("")
        switch call.name {
        case "sign-up":
            try accounts.signUp(email: message.string("email"), password: message.string("password"), clientKey: client)
            return done
        case "confirm-sign-up":
            return Self.tokens(
                try accounts.confirmSignUp(
                    token: SecretToken(message.string("token")), password: message.string("password"),
                    device: message.text("device")))
        case "sign-in":
            return Self.tokens(
                try accounts.signIn(
                    email: message.string("email"), password: message.string("password"), clientKey: client,
                    device: message.text("device"), code: message.text("code")))
        case "sign-in-nonce":
            let nonce = try accounts.issueSignInNonce(clientKey: client)
            let expires = Self.milliseconds(clock.now() + accounts.configuration.nonceLifetime)
            return ProtocolMessage("SignInNonce").with("nonce", nonce).with("expires_at", .unsigned(expires))
                .wireEncoded()
        case "provider-sign-in":
            return Self.tokens(
                try accounts.signInSynchronously(
                    provider: message.string("provider"), idToken: message.string("id_token"),
                    nonce: message.text("nonce"),
                    providerRefreshToken: settings.keepsProviderRefreshTokens
                        ? message.text("provider_refresh_token").map(SecretToken.init) : nil,
                    device: message.text("device")))
        case "refresh":
            return Self.tokens(try accounts.refresh(refreshToken: SecretToken(message.string("refresh_token"))))
        case "request-reset":
            try accounts.requestPasswordReset(email: message.string("email"), clientKey: client)
        case "confirm-reset":
            try accounts.confirmReset(
                token: SecretToken(message.string("token")), newPassword: message.string("new_password"))
        case "undo-email-change":
            try accounts.undoEmailChange(token: SecretToken(message.string("token")))
        case "sessions":
            let entries = try accounts.sessions(accessToken: access).map { info in
                ProtocolValue.message(
                    ProtocolMessage("SessionEntry").with("id", info.id).with("device", info.device ?? "")
                        .with("signed_in_at", .unsigned(Self.milliseconds(info.signedInAt)))
                        .with("last_used_at", .unsigned(Self.milliseconds(info.lastUsedAt)))
                        .with("current", .bool(info.isCurrent)))
            }
            return ProtocolMessage("SessionList").with("sessions", .list(entries)).wireEncoded()
        case "revoke-session":
            try accounts.revokeSession(accessToken: access, id: message.string("id"))
        case "sign-out":
            try accounts.signOut(accessToken: access)
        case "sign-out-everywhere":
            try accounts.signOutEverywhere(accessToken: access)
        case "step-up":
            try accounts.reauthenticate(
                accessToken: access, password: message.string("password"), code: message.text("code"))
        case "change-password":
            try accounts.changePassword(accessToken: access, newPassword: message.string("new_password"))
        case "change-email":
            try accounts.requestEmailChange(
                accessToken: access, newEmail: message.string("new_email"), clientKey: client)
        case "confirm-email-change":
            try accounts.confirmEmailChange(accessToken: access, token: SecretToken(message.string("token")))
        case "delete-account":
            try accounts.deleteAccount(accessToken: access, confirmed: message.bool("confirmed"))
        default:
            preconditionFailure("call \(call.name) is in the table but not served")
        }
        return done
    }

    /// SERVER-3: `body`'s answer as the token's account, in one transaction of the relay's store
    /// that confirms the read of the account rows that authenticated it (``StoreReading``): when
    /// the relay's transaction finds one of them changed since (then nothing was done), the token
    /// is authenticated again. Over stores that share no database, the token is judged on the
    /// records as the database holds them and the body runs after, as no one transaction can read
    /// both. A body answers nil only when its transaction found the reading changed.
    private func asCaller<T>(
        _ token: SecretToken, confirmedBy confirms: ((StoreReading) -> Bool)? = nil,
        _ body: (AccountID, StoreReading?) throws(ServiceRefusal) -> T?
    ) throws(ServiceRefusal) -> T {
        try asCaller(token, confirmedBy: confirms) { (person, _, reading) throws(ServiceRefusal) in
            try body(person, reading)
        }
    }

    /// ``asCaller(_:confirmedBy:_:)``, telling `body` the caller's session too (REMIND-19).
    private func asCaller<T>(
        _ token: SecretToken, confirmedBy confirms: ((StoreReading) -> Bool)? = nil,
        _ body: (AccountID, String, StoreReading?) throws(ServiceRefusal) -> T?
    ) throws(ServiceRefusal) -> T {
        let confirms = confirms ?? relay.confirms
        for attempt in 0..<Self.authentications {
            let (person, session, reading): (AccountID, String, StoreReading?)
            do throws(AuthError) {
                (person, session, reading) = try accounts.authenticateSession(accessToken: token, fresh: attempt > 0)
            } catch {
                // Records held since before the session began do not know it: only the
                // database's say no.
                if attempt == 0, error.code != .storageFailed { continue }
                throw ServiceRefusal(error)
            }
            guard let reading else {
                // The account store is alone with its records: they are current as they stand.
                return try StoreReading.answer(unconfirmed: body(person, session, nil))
            }
            guard confirms(reading) else {
                // The stores share no database, so no one transaction reads both: the token is
                // judged on the records as the database holds them, and the call runs after.
                if attempt == 0 { continue }
                return try StoreReading.answer(unconfirmed: body(person, session, nil))
            }
            if let answer = try body(person, session, reading) { return answer }
        }
        throw ServiceRefusal(
            "storage_failed",
            "the account records changed each of \(Self.authentications) times this request was authenticated; try again",
            rule: "SERVER-3")
    }

    /// How many times a request is authenticated before it is refused as `storage_failed`.
    static var authentications: Int { 4 }

    /// SERVER-3, SERVER-5: the relay's answer for the token's account; its refusals as errors.
    private func relayAnswer(_ body: [UInt8], token: SecretToken) throws(ServiceRefusal) -> [UInt8] {
        let now = Int64(Self.milliseconds(clock.now()))
        let response = try asCaller(token) { (person, reading) throws(ServiceRefusal) in
            relay.respond(to: body, from: person.rawValue, now: now, confirming: reading)
        }
        if case .error(let code, let message, let rule) = response {
            throw ServiceRefusal(code, message, rule: rule.isEmpty ? nil : rule)
        }
        return response.wireEncoded()
    }

    /// SERVER-12: the caller's devices for pushes (REMIND-14).
    private func devices(_ call: ServiceCall, _ message: ProtocolMessage, token: SecretToken) throws(ServiceRefusal)
        -> [UInt8]
    {
        let now = Int64(Self.milliseconds(clock.now()))
        let registered = try asCaller(token) { (person, session, reading) throws(ServiceRefusal) -> Bool? in
            let device =
                call.name == "register-device"
                ? try Self.device(message, person: person.rawValue, session: session) : nil
            do throws(FeedError) {
                guard let device else {
                    return try relay.removeDevice(
                        token: message.string("token"), of: person.rawValue, confirming: reading
                    ).map { true }
                }
                return try relay.register(
                    device, proof: message.text("proof"), now: now, confirming: reading)
            } catch {
                throw ServiceRefusal(error.code.description, error.message, rule: error.rule)
            }
        }
        // REMIND-14: the registration is kept with its proof push, and refused.
        guard registered else {
            throw ServiceRefusal(
                "token_held",
                "another account has this device token: the device was sent a code; register again with it as proof",
                rule: "REMIND-14")
        }
        return ProtocolMessage("Done").wireEncoded()
    }

    /// SYNC-9, SYNC-10, SYNC-13: the caller's sync log and pairing offers, in one transaction that
    /// confirms the token's reading.
    private func syncAnswer(_ call: ServiceCall, _ message: ProtocolMessage, token: SecretToken)
        throws(ServiceRefusal) -> [UInt8]
    {
        var pushed: (person: String, session: String, records: Int)?
        let answer = try asCaller(token, confirmedBy: sync.confirms) {
            (person, session, reading) throws(ServiceRefusal) -> [UInt8]? in
            do throws(SyncError) {
                let now = Int64(Self.milliseconds(clock.now()))
                switch call.name {
                case "sync-pair-offer":
                    let kept = try sync.offer(
                        slot: message.bytes("slot"), sealed: message.bytes("sealed"), of: person.rawValue, now: now,
                        confirming: reading)
                    return kept ? ProtocolMessage("Done").wireEncoded() : nil
                case "sync-pair-take":
                    return try sync.take(
                        slot: message.bytes("slot"), of: person.rawValue, now: now, confirming: reading
                    )
                    .map {
                        ProtocolMessage("SyncPairOffer").with("slot", .bytes(message.bytes("slot")))
                            .with("sealed", .bytes($0)).wireEncoded()
                    }
                default: break
                }
                if call.name == "sync-push" {
                    let records = message.byteList("records")
                    let kept = try sync.push(
                        records, device: message.bytes("device"), of: person.rawValue, confirming: reading)
                    if kept != nil { pushed = (person.rawValue, session, records.count) }
                    return kept.map {
                        ProtocolMessage("SyncPushResponse").with("acknowledged", .unsigned($0)).wireEncoded()
                    }
                }
                let maxBytes = Int(clamping: message.unsigned("max_bytes"))
                return try sync.pull(
                    device: message.bytes("device"), after: message.unsigned("cursor"), maxBytes: maxBytes,
                    of: person.rawValue, confirming: reading
                ).map(Self.pullResponse)
            } catch {
                throw ServiceRefusal(
                    error.code.description, error.message, rule: error.rule,
                    location: error.record.map { "records[\($0)]" } ?? "")
            }
        }
        // REMIND-19: the records kept wake the person's other devices. Should the outbox not keep
        // the events, the push is refused as the store's failure: the device pushes again, which
        // the log takes as kept (SYNC-9), and the events are queued then.
        if let (person, session, records) = pushed {
            do throws(FeedError) {
                try relay.noteSync(
                    of: person, session: session, records: records, now: Int64(Self.milliseconds(clock.now())))
            } catch {
                throw ServiceRefusal(error.code.description, error.message, rule: error.rule)
            }
        }
        return answer
    }

    /// The bytes of a `SyncPullResponse` (SYNC-10) for `answer`.
    public static func pullResponse(_ answer: SyncPullAnswer) -> [UInt8] {
        let heads = answer.heads.map { head in
            ProtocolValue.message(
                ProtocolMessage("SyncHead").with("device", .bytes(head.device.bytes))
                    .with("sequence", .unsigned(head.sequence)).with("hash", .bytes(head.hash)))
        }
        return ProtocolMessage("SyncPullResponse").with("records", .list(answer.records.map(ProtocolValue.bytes)))
            .with("heads", .list(heads)).with("cursor", .unsigned(answer.cursor)).with("more", .bool(answer.more))
            .wireEncoded()
    }

    /// The device a `RegisterDeviceRequest` names (REMIND-14): both quiet minutes, or neither.
    static func device(_ message: ProtocolMessage, person: String, session: String? = nil) throws(ServiceRefusal)
        -> PushDevice
    {
        do throws(ModelError) {
            let zone = try TimeZoneID(message.string("time_zone"))
            // Quiet hours are read on the zone's clock: a zone without rules here has none.
            guard zone.isKnown else {
                throw ModelError(
                    .invalidTimeZone, "this server's tz database does not know the zone \"\(zone)\"",
                    path: "time_zone", rule: "SERVER-12")
            }
            var quiet: PersonReminders.QuietHours?
            switch (message.has("quiet_start"), message.has("quiet_end")) {
            case (true, true):
                quiet = try PersonReminders.QuietHours(
                    start: Int(message.unsigned("quiet_start")), end: Int(message.unsigned("quiet_end")))
            case (false, false): quiet = nil
            default:
                throw ModelError(
                    .invalidReminder, "quiet hours need both a start and an end", path: "quietHours", rule: "REMIND-14")
            }
            return try PushDevice(
                token: message.string("token"), person: person, timeZone: zone, quietHours: quiet, session: session)
        } catch {
            throw ServiceRefusal(
                error.code.description, error.message, rule: error.rule, location: error.location ?? "")
        }
    }

    private func health() throws(ServiceRefusal) -> [UInt8] {
        if let problem = healthCheck() {
            throw ServiceRefusal("storage_failed", "the database does not answer: \(problem)", rule: "SERVER-7")
        }
        if let behind = numberingCheck() { throw ServiceRefusal("numbering_behind", behind, rule: "SERVER-7") }
        return ProtocolMessage("Health").with("status", "ok")
            .with("protocol", .unsigned(ServiceCalls.protocolVersion)).with("server", settings.serverName)
            .wireEncoded()
    }

    // MARK: Helpers

    /// SERVER-3: `Authorization: Bearer TOKEN`, the scheme in any case.
    static func accessToken(_ request: HTTPRequest) throws(ServiceRefusal) -> SecretToken {
        guard let header = request.header("authorization") else {
            throw ServiceRefusal(
                "unauthenticated", "this call needs Authorization: Bearer ACCESS_TOKEN", rule: "SERVER-3")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].asciiLowercased == "bearer", !parts[1].isEmpty else {
            throw ServiceRefusal(
                "unauthenticated", "the Authorization header is not Bearer ACCESS_TOKEN", rule: "SERVER-3")
        }
        return SecretToken(String(parts[1]))
    }

    /// The client's address for throttling: the peer, or behind a trusted proxy the last hop
    /// the proxy appended to `X-Forwarded-For`.
    func clientKey(_ request: HTTPRequest) -> String {
        Self.clientKey(request, trustForwardedFor: settings.trustForwardedFor)
    }

    /// The client the account service's per-client limits count by (AUTH-39, AUTH-45, AUTH-46):
    /// SERVER-11's, so an IPv6 client is its /64 there as it is to the request limit, and rotating
    /// addresses inside one network buys no more guesses, nonces or mails.
    func accountClient(_ request: HTTPRequest) -> String { ClientLimit.client(clientKey(request)) }

    /// ``clientKey(_:)`` for a handler that trusts `X-Forwarded-For` or not.
    public static func clientKey(_ request: HTTPRequest, trustForwardedFor: Bool) -> String {
        if trustForwardedFor, let forwarded = request.header("x-forwarded-for"),
            let last = forwarded.split(separator: ",").last
        {
            let hop = last.trimmingASCIISpaces()
            if !hop.isEmpty { return hop }
        }
        return request.peer.isEmpty ? "unknown" : request.peer
    }

    /// `application/x-protobuf; charset=x` → `application/x-protobuf`, in ASCII lower case.
    static func mediaType(_ header: String) -> String {
        String(header.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingASCIISpaces().asciiLowercased
    }

    static func tokens(_ session: Session) -> [UInt8] {
        ProtocolMessage("SessionTokens").with("account", session.account.rawValue).with("session", session.id)
            .with("access_token", session.accessToken.reveal()).with("refresh_token", session.refreshToken.reveal())
            .with("access_expires_at", .unsigned(milliseconds(session.accessExpiresAt)))
            .with("refresh_expires_at", .unsigned(milliseconds(session.refreshExpiresAt)))
            .wireEncoded()
    }

    /// Seconds since 1970 as whole milliseconds, rounded down; 0 for a time before 1970 or none.
    static func milliseconds(_ seconds: Double) -> UInt64 {
        UInt64(exactly: (seconds * 1_000).rounded(.down)) ?? 0
    }

    /// A refusal's answer (SERVER-5, SERVER-6).
    static func refusal(
        _ code: String, _ message: String, rule: String?, location: String, retryAfter: UInt64? = nil,
        headers: [HTTPHeader] = []
    ) -> HTTPResponse {
        let status = ServiceCalls.status(for: code)
        var error = ProtocolMessage("ServiceError").with("code", code).with("message", message)
            .with("rule", rule ?? "").with("location", location)
        var extra = headers
        let wait = retryAfter ?? (status == 429 || status == 503 ? 1 : nil)
        if let wait {
            error = error.with("retry_after_seconds", .unsigned(wait))
            extra.append(HTTPHeader("Retry-After", String(wait)))
        }
        if status == 401 { extra.append(HTTPHeader("WWW-Authenticate", "Bearer")) }
        return HTTPResponse(
            status: status, contentType: ServiceCalls.contentType, headers: extra, body: error.wireEncoded())
    }
}

/// Why a call was refused: what a `ServiceError` carries (SERVER-5).
struct ServiceRefusal: Error {
    let code: String
    let message: String
    let rule: String?
    let location: String
    let retryAfter: UInt64?

    init(_ code: String, _ message: String, rule: String?, location: String = "", retryAfter: UInt64? = nil) {
        self.code = code
        self.message = message
        self.rule = rule
        self.location = location
        self.retryAfter = retryAfter
    }

    /// An account service's or the relay's refusal; `throttled` with its wait in whole seconds.
    init(_ error: AuthError) {
        let wait = error.retryAfter.map { UInt64(exactly: max($0, 1).rounded(.up)) ?? UInt64(UInt32.max) }
        self.init(error.code.description, error.message, rule: error.rule, retryAfter: wait)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    func trimmingASCIISpaces() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
            let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
