import Foundation
import GlowAuth
import GlowCore
import GlowProtocol
import GlowRelay
import GlowServer
import GlowService

/// The `service` target (issue 29): glow-server's request handler, with no network between.
///
/// The input becomes one HTTP request: its first byte picks the method, the second the call (one
/// of the protocol's, or a path made of the input), the third the headers (content types, a
/// signed-in person's access token, a token of the input's bytes, none), and the rest is the
/// body. Whatever comes in, the handler answers: never a trap, never a 500 (the stores are in
/// memory and cannot fail), a status the protocol defines, and an error body that is a
/// `ServiceError` naming a code (SERVER-4).
enum ServiceHarness {
    /// Records the mails the account service sends, so the harness can confirm its person.
    final class Mailbox: AuthMailer {
        let mails = Locked<[AuthMail]>([])
        func send(_ mail: AuthMail) { mails.withLock { $0.append(mail) } }
    }

    /// A clock that stands still: the same input gives the same answer.
    struct StillClock: AuthClock {
        func now() -> Double { 1_780_000_000 }
    }

    /// A handler over empty in-memory stores with one confirmed person, and that person's tokens.
    static func handler() -> (ServiceHandler, Session) {
        var configuration = AccountConfiguration()
        configuration.hashing = Argon2Parameters(memoryKiB: 8, iterations: 1, parallelism: 1)
        let mailbox = Mailbox()
        let relay = FeedRelay()
        do {
            let accounts = try AccountService(
                store: InMemoryAccountStore(), configuration: configuration, clock: StillClock(), mailer: mailbox,
                eraser: RelayEraser(relay: relay, clock: StillClock()), revoker: UnconfiguredRevoker())
            try accounts.signUp(email: "ana@example.com", password: "plenty of quiet mornings", clientKey: "fuzz")
            let mails = mailbox.mails.withLock { $0 }
            guard case .confirmSignUp(_, let token)? = mails.first else {
                preconditionFailure("sign-up sent no confirmation")
            }
            let session = try accounts.confirmSignUp(token: token, password: "plenty of quiet mornings")
            let handler = ServiceHandler(accounts: accounts, relay: relay, clock: StillClock(), healthCheck: { nil })
            return (handler, session)
        } catch {
            preconditionFailure("the harness's person could not be made: \(error)")
        }
    }

    static let serviceError = ProtocolSchema.type("ServiceError")!

    static let methods = ["POST", "GET", "PUT", "DELETE", "HEAD", "OPTIONS", "post", ""]
    static let contentTypes = [
        "application/x-protobuf", "application/x-protobuf; charset=binary", "application/json", "text/plain", "",
    ]

    static func run(_ bytes: [UInt8]) {
        guard bytes.count >= 3 else { return }
        let (handler, session) = handler()
        let method = methods[Int(bytes[0]) % methods.count]
        let calls = ServiceCalls.all
        let choice = Int(bytes[1])
        var body = Array(bytes.dropFirst(3))
        let path: String
        if choice < calls.count * 6 {
            path = calls[choice % calls.count].path
        } else {
            // A path of the input's own bytes (up to a NUL), as a client might send anything.
            let end = body.firstIndex(of: 0) ?? body.count
            path = String(decoding: body[..<end], as: UTF8.self)
            body = Array(body[Swift.min(body.count, end + 1)...])
        }
        var headers: [String: String] = [:]
        let pick = Int(bytes[2])
        if pick % 6 != 5 { headers["Content-Type"] = contentTypes[pick % 6 % contentTypes.count] }
        switch pick / 6 % 4 {
        case 0: headers["Authorization"] = "Bearer " + session.accessToken.reveal()
        case 1: headers["Authorization"] = "Bearer " + String(decoding: body.prefix(48), as: UTF8.self)
        case 2: headers["Authorization"] = String(decoding: body.prefix(16), as: UTF8.self)
        default: break
        }
        if pick >= 200 { headers["X-Forwarded-For"] = String(decoding: body.suffix(20), as: UTF8.self) }
        let response = handler.respond(
            to: HTTPRequest(method: method, path: path, headers: headers, body: body, peer: "192.0.2.1"))
        precondition(response.status != 500, "a 500 for bad input: \(method) \(path)")
        precondition(
            [200, 400, 401, 403, 404, 405, 409, 410, 413, 415, 422, 429, 503].contains(response.status),
            "status \(response.status) is not one the protocol defines")
        guard response.status >= 400 else { return }
        // SERVER-4: every refusal is a ServiceError with a code.
        let code: String
        do {
            code = try ProtocolMessage(serviceError, wire: response.body).string("code")
        } catch {
            preconditionFailure("the \(response.status) answer to \(method) \(path) is not a ServiceError: \(error)")
        }
        precondition(!code.isEmpty, "the \(response.status) answer to \(method) \(path) names no code")
    }
}
