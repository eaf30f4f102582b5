import Dispatch
import Foundation
import GlowCore
import GlowModel
import GlowProtocol
import GlowWire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Why a call to a Glow server failed: the server's refusal (its `ServiceError`, SERVER-5) or
/// the network's.
public struct ServiceFailure: CodedError {
    /// A stable code.
    public typealias Code = ErrorCode<ServiceFailure>

    /// The server's code (`invalid_credentials`, `throttled`, ...), or `network` /
    /// `malformed_response` when no refusal came back.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The spec rule the server named, if any.
    public let rule: String?
    /// The HTTP status, or 0 when no answer came.
    public let status: Int
    /// The call it was about.
    public let call: String
    /// For `throttled` and `storage_failed`: the seconds to wait.
    public let retryAfter: Double?

    package init(
        _ code: Code, _ message: String, call: String, status: Int = 0, rule: String? = nil, retryAfter: Double? = nil
    ) {
        self.code = code
        self.message = message
        self.call = call
        self.status = status
        self.rule = rule
        self.retryAfter = retryAfter
    }

    /// `in call sign-in (401)`.
    public var location: String? { "in call \(call)" + (status == 0 ? "" : " (\(status))") }
}

extension ErrorCode where Domain == ServiceFailure {
    /// No answer: the server cannot be reached, or the connection broke.
    public static var network: Self { Self("network") }
    /// An answer that is not the protocol's.
    public static var malformedResponse: Self { Self("malformed_response") }
    /// No session: sign in first.
    public static var signedOut: Self { Self("signed_out") }
    /// The access token expired (AUTH-37).
    public static var sessionExpired: Self { Self("session_expired") }
    /// The token is not one the server accepts: the session was ended (signed out, revoked,
    /// everywhere) or never was.
    public static var invalidSession: Self { Self("invalid_session") }
    /// The server refused with this code.
    public static var throttled: Self { Self("throttled") }
    /// A call name the protocol does not have (SERVER-2): nothing was sent.
    public static var unknownCall: Self { Self("unknown_call") }
    /// A link that is not one the server mails (``ServiceLink``).
    public static var invalidLink: Self { Self("invalid_link") }
    /// A request built with a name its type does not declare, or of another type than the call
    /// takes: nothing was sent.
    public static var invalidMessage: Self { Self("invalid_message") }
}

/// A session a device holds: what sign-in, sign-up confirmation and refresh answer (SERVER-2).
public struct ClientSession: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The account's id: the person of the feed.
    public let account: PersonID
    /// The session's public id (AUTH-47).
    public let id: String
    /// The access token, sent with every call of a session.
    public let accessToken: String
    /// The refresh token, used once to get the next pair.
    public let refreshToken: String
    /// When the access token expires, in milliseconds since 1970.
    public let accessExpiresAt: UInt64
    /// When the refresh token expires.
    public let refreshExpiresAt: UInt64

    /// When the access token expires, as a `Date`.
    public var accessExpiry: Date { Date(timeIntervalSince1970: Double(accessExpiresAt) / 1000) }
    /// When the refresh token expires, as a `Date`: sign in again after it.
    public var refreshExpiry: Date { Date(timeIntervalSince1970: Double(refreshExpiresAt) / 1000) }

    /// A session of `account` with the public id `id`, its tokens, and when they expire.
    public init(
        account: PersonID, id: String, accessToken: String, refreshToken: String, accessExpiry: Instant,
        refreshExpiry: Instant
    ) {
        self.account = account
        self.id = id
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        accessExpiresAt = UInt64(clamping: accessExpiry.millisecondsSince1970)
        refreshExpiresAt = UInt64(clamping: refreshExpiry.millisecondsSince1970)
    }

    /// The session a server's `SessionTokens` answer holds (sign-in, a sign-up's confirmation, a
    /// provider's sign-in, a refresh: SERVER-2).
    ///
    /// - Throws: ``ServiceFailure`` `malformed_response` for another message, or one without an
    ///   account, a session id or its tokens.
    public init(tokens message: ProtocolMessage) throws(ServiceFailure) {
        guard message.type.name == "SessionTokens" else {
            throw ServiceFailure(
                .malformedResponse, "a session is read from SessionTokens, not \(message.type.name)",
                call: "SessionTokens")
        }
        for field in ["account", "session", "access_token", "refresh_token"] where message.string(field).isEmpty {
            throw ServiceFailure(.malformedResponse, "the SessionTokens answer has no \(field)", call: "SessionTokens")
        }
        account = PersonID(message.string("account"))
        id = message.string("session")
        accessToken = message.string("access_token")
        refreshToken = message.string("refresh_token")
        accessExpiresAt = message.unsigned("access_expires_at")
        refreshExpiresAt = message.unsigned("refresh_expires_at")
    }

    /// The account and the session's id; never a token.
    public var description: String { "ClientSession(\(id), account \(account))" }
}

/// A device's side of the server's protocol (`Spec/server.md`) over `URLSession`: each call's
/// message out, its answer or typed refusal back. A call the server answered `503` or `429`
/// was not carried out, and is sent again after the wait it names (at most `retries` times); a
/// call whose answer was lost on the network is sent again only when doing it twice is harmless
/// (the relay's calls, which merge; the sync log's, whose push takes a record it keeps as kept
/// (SYNC-9); reading sessions; health), never a refresh, whose second use
/// would end the session (AUTH-37).
public final class ServiceClient: Sendable {
    /// The server's base URL.
    public let base: URL
    private let session: URLSession
    private let retries: Int
    private let backoff: Double
    private let timeout: Double

    /// The moment by which every call made in the task (and its child tasks) must be answered, or
    /// nil for none: set it with `ServiceClient.$deadline.withValue(...)` around work that has a
    /// budget (a background refresh's 30 seconds). A call waits for an answer no longer than the time
    /// left, is not tried again when the wait before the next try would pass it, and is not sent at
    /// all once it has passed: each fails with `network`, saying the deadline passed.
    @TaskLocal public static var deadline: ContinuousClock.Instant?

    /// The calls that may be sent again after a network failure.
    static let idempotent: Set<String> = ["health", "relay", "sessions", "sync-push", "sync-pull"]

    /// A client of the server at `base` (`https://glow.example.com`), trying each call at most
    /// `retries` more times, waiting `backoff` seconds, then twice that, and so on.
    public init(base: URL, retries: Int = 3, backoff: Double = 0.2, timeout: Double = 30) {
        self.base = base
        self.retries = max(retries, 0)
        self.backoff = max(backoff, 0)
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    /// Calls `name` with `request`, as the caller `accessToken` when given, with `headers` besides
    /// the protocol's (a proxy's `X-Forwarded-For` in a test): the package's own way to any call
    /// (its typed methods, the conformance runner, tests of the protocol itself). An app calls
    /// the typed methods, each named for its call.
    ///
    /// - Throws: ``ServiceFailure``: the server's refusal with its code, or `network`,
    ///   `malformed_response`; before anything is sent, `unknown_call` for a name the protocol
    ///   does not have and `invalid_message` for a request with ``ProtocolMessage/mistakes`` or of
    ///   another type than the call takes.
    package func call(
        _ name: String, _ request: ProtocolMessage = ProtocolMessage("Done"), accessToken: String? = nil,
        headers: [String: String] = [:]
    ) async throws(ServiceFailure) -> ProtocolMessage {
        guard let call = ServiceCalls.call(named: name) else {
            throw ServiceFailure(
                .unknownCall, "\(name.prefix(100)) is not a call of the server's protocol", call: name, rule: "SERVER-2"
            )
        }
        if let mistake = request.mistakes.first {
            throw ServiceFailure(.invalidMessage, mistake, call: name)
        }
        if let expected = call.request, expected.name != request.type.name {
            throw ServiceFailure(
                .invalidMessage, "\(name) takes \(expected.name), not \(request.type.name)", call: name,
                rule: "SERVER-2")
        }
        var urlRequest = URLRequest(url: base.appendingPathComponent("v1").appendingPathComponent(name))
        urlRequest.httpMethod = call.method
        if call.request != nil {
            urlRequest.httpBody = Data(request.wireEncoded())
            urlRequest.setValue(ServiceCalls.contentType, forHTTPHeaderField: "Content-Type")
        }
        if let accessToken { urlRequest.setValue("Bearer " + accessToken, forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        var attempt = 0
        while true {
            let failure: ServiceFailure
            do {
                return try await send(try bounded(urlRequest, name), call)
            } catch {
                failure = error
            }
            let again =
                failure.code == .network
                ? Self.idempotent.contains(name) : failure.status == 503 || failure.status == 429
            guard again, attempt < retries else { throw failure }
            let wait = failure.retryAfter ?? backoff * Double(1 << min(attempt, 16))
            // A try that could only start after the deadline is not waited for.
            if let deadline = Self.deadline, ContinuousClock.now + .seconds(wait) >= deadline { throw failure }
            attempt += 1
            do {
                try await Task.sleep(nanoseconds: UInt64(min(wait, 60) * 1_000_000_000))
            } catch {
                throw failure
            }
        }
    }

    /// `request` waiting for its answer no longer than the task's ``deadline`` leaves.
    ///
    /// - Throws: ``ServiceFailure`` `network` when the deadline has passed: nothing is sent.
    private func bounded(_ request: URLRequest, _ name: String) throws(ServiceFailure) -> URLRequest {
        guard let deadline = Self.deadline else { return request }
        let left = ContinuousClock.now.duration(to: deadline)
        let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
        guard seconds > 0.001 else {
            throw ServiceFailure(.network, "the call's deadline passed before it could be sent", call: name)
        }
        var bounded = request
        bounded.timeoutInterval = min(timeout, seconds)
        return bounded
    }

    /// The answer's body and HTTP status (nil when the answer is not HTTP).
    private typealias Answer = (data: Data, status: Int?)

    /// Sends `request` and waits for its answer, no later than the task's ``deadline``: a
    /// request's timeout is only as exact as the platform's timers, so past the deadline the
    /// request is cancelled and the wait ends.
    private func exchange(_ request: URLRequest) async throws -> Answer {
        let session = session
        guard let deadline = Self.deadline else {
            let (data, response) = try await session.data(for: request)
            return (data, (response as? HTTPURLResponse)?.statusCode)
        }
        let task = Task<Answer, any Error> {
            let (data, response) = try await session.data(for: request)
            return (data, (response as? HTTPURLResponse)?.statusCode)
        }
        let waiting = Locked<CheckedContinuation<Result<Answer, any Error>, Never>?>(nil)
        let left = ContinuousClock.now.duration(to: deadline)
        let nanoseconds =
            min(left.components.seconds, 1_000_000) * 1_000_000_000 + left.components.attoseconds / 1_000_000_000
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Answer, any Error>, Never>) in
                waiting.withLock { $0 = continuation }
                // A dispatch timer, not a task: the deadline comes even when every thread of the
                // task pool is busy.
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: max(0, nanoseconds)))) {
                    waiting.withLock { $0.take() }?.resume(returning: .failure(URLError(.timedOut)))
                    task.cancel()
                }
                Task {
                    let result = await task.result
                    waiting.withLock { $0.take() }?.resume(returning: result)
                }
            }
        } onCancel: {
            task.cancel()
        }
        return try outcome.get()
    }

    private func send(_ request: URLRequest, _ call: ServiceCall) async throws(ServiceFailure) -> ProtocolMessage {
        let data: Data
        let status: Int?
        do {
            (data, status) = try await exchange(request)
        } catch {
            throw ServiceFailure(.network, "the server did not answer: \(error.localizedDescription)", call: call.name)
        }
        guard let status else {
            throw ServiceFailure(.malformedResponse, "the answer is not HTTP", call: call.name)
        }
        let type = status == 200 ? call.response : ProtocolSchema.type("ServiceError")
        guard let type else { preconditionFailure("ServiceError is declared") }
        let message: ProtocolMessage
        do {
            message = try ProtocolMessage(type, wire: Array(data))
        } catch {
            throw ServiceFailure(
                .malformedResponse, "the answer is not a \(type.name): \(error)", call: call.name,
                status: status)
        }
        guard status == 200 else {
            let wait = message.unsigned("retry_after_seconds")
            throw ServiceFailure(
                ServiceFailure.Code(message.text("code") ?? "http_\(status)"),
                message.text("message") ?? "the server answered \(status)", call: call.name,
                status: status, rule: message.text("rule"), retryAfter: wait > 0 ? Double(wait) : nil)
        }
        return message
    }
}
