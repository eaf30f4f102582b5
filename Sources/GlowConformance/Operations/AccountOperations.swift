import Foundation
import GlowAuth
import GlowCore

/// The account service's operation (AUTH-35 ... AUTH-42): a scripted sequence of steps against
/// one service with a clock that moves only when a step says so.
package enum AccountOperations {
    package static let all: [String: ModelOperations.Operation] = [
        "auth.accounts": { input in try Script(input).run() }
    ]

    /// One script's service, its collaborators and the names its steps give sessions.
    final class Script {
        let clock = ManualClock(start: 1_796_083_200)
        let mailer = RecordingMailer()
        let service: AccountService
        let steps: [JSONValue]
        var sessions: [String: Session] = [:]
        var labels: [AccountID: String] = [:]
        /// Every set of recovery codes the script was shown, oldest first.
        var recoverySets: [[String]] = []

        /// The gate of every script's service: one hash at a time, each waiting its turn as long
        /// as it takes. A script judges what the service answers, never how busy the machine that
        /// runs it is (AUTH-12's `busy` under load has tests of its own), and a runner may judge
        /// several scripts at once.
        static let gate = HashingGate(concurrent: 1, wait: 600)

        init(_ input: JSONValue) throws {
            var configuration = AccountConfiguration()
            configuration.hashingGate = Self.gate
            if let hashing = input["hashing"] {
                configuration.hashing = try AuthOperations.parameters(hashing)
            }
            if input["signUpsPerHour"] != nil {
                configuration.signUpsPerHour = try input.int("signUpsPerHour")
            }
            if input["minimum"] != nil {
                configuration.policy = try PasswordPolicy(minimumLength: try input.int("minimum"))
            }
            let eraser = FixtureEraser(fails: input["eraserFails"] == .bool(true))
            // Each provider verifies with the key set its entry gives, fetched as often as asked.
            let verifiers = try (input["providers"]?.array ?? []).map { entry in
                let keys = FixtureFetcher.Response.set(
                    try IDTokenOperations.setBytes(try entry.required("keySet")), maxAge: nil)
                return try IDTokenOperations.verifier(entry, fetcher: FixtureFetcher(responses: [], repeating: keys))
            }
            // Sign-in nonces come from the script's `nonces`, in order, so that its ID tokens, signed
            // in advance, carry them; past the list they are random, as a service's are.
            let fixtures = Locked((input["nonces"]?.array ?? []).compactMap(\.string))
            let secrets = Locked((input["totpSecrets"]?.array ?? []).compactMap(\.string))
            service = try AccountService(
                store: InMemoryAccountStore(), configuration: configuration, clock: clock, mailer: mailer,
                eraser: eraser, revoker: FixtureRevoker(), verifiers: verifiers,
                makeNonce: { fixtures.withLock { $0.isEmpty ? SecretToken.random().reveal() : $0.removeFirst() } },
                makeSecret: {
                    secrets.withLock {
                        $0.isEmpty
                            ? TOTP.base32(Array(SecretToken.random().reveal().utf8.prefix(20))) : $0.removeFirst()
                    }
                })
            steps = input["steps"]?.array ?? []
        }

        func run() throws -> JSONValue {
            var results: [JSONValue] = []
            for step in steps {
                do throws(AuthError) {
                    results.append(try perform(step))
                } catch {
                    var members: [String: JSONValue] = ["error": .string(error.code.description)]
                    if let wait = error.retryAfter { members["retryAfter"] = .int(Int(wait)) }
                    results.append(.object(members))
                }
            }
            return .object(["steps": .array(results)])
        }

        /// The label of an account: `A1`, `A2`, ... in the order the script first meets them.
        func label(_ account: AccountID) -> JSONValue {
            if let known = labels[account] { return .string(known) }
            let name = "A\(labels.count + 1)"
            labels[account] = name
            return .string(name)
        }

        func signedIn(_ session: Session, _ step: JSONValue) -> JSONValue {
            if let name = step["as"]?.string ?? step["session"]?.string { sessions[name] = session }
            return .object(["ok": .bool(true), "account": label(session.account)])
        }

        /// The access and refresh tokens of the session a step names; a name the script never
        /// gave presents tokens nobody issued.
        func access(_ step: JSONValue) -> SecretToken {
            sessions[step["session"]?.string ?? ""]?.accessToken ?? SecretToken("never issued")
        }

        func refreshToken(_ step: JSONValue) -> SecretToken {
            sessions[step["session"]?.string ?? ""]?.refreshToken ?? SecretToken("never issued")
        }

        /// The token of a step: its literal `token`, or the one the mail of kind `kind` to
        /// `email` carried (`mail` counts from the first such mail, the last when absent).
        func token(_ step: JSONValue, kind: String) -> SecretToken {
            if let literal = step["token"]?.string { return SecretToken(literal) }
            let address = step["email"]?.string ?? ""
            let mails = mailer.sent.withLock { $0 }.filter { $0.kind == kind && $0.recipient == address }
            let index = step["mail"]?.int ?? mails.count - 1
            guard mails.indices.contains(index), let token = mails[index].token else {
                return SecretToken("no such mail")
            }
            return token
        }

        static let ok: JSONValue = .object(["ok": .bool(true)])

        /// A step's second factor: its `code`, or a recovery code the script was shown (the set
        /// `recoverySet`, the latest when absent; index `recoveryCode`), written `loose`ly when asked.
        func secondFactor(_ step: JSONValue) -> String? {
            if let code = step["code"]?.string { return code }
            guard let index = step["recoveryCode"]?.int else { return nil }
            let set = step["recoverySet"]?.int ?? recoverySets.count - 1
            guard recoverySets.indices.contains(set), recoverySets[set].indices.contains(index) else { return "" }
            let code = recoverySets[set][index]
            return step["recoveryForm"]?.string == "loose"
                ? code.uppercased().replacingOccurrences(of: "-", with: " ") : code
        }

        /// Recovery codes kept for later steps, and described: how many, their form, distinct.
        func shown(_ codes: RecoveryCodes) -> JSONValue {
            let texts = codes.codes.map { $0.reveal() }
            recoverySets.append(texts)
            let alphabet = Set("abcdefghijklmnopqrstuvwxyz234567")
            let wellFormed = texts.allSatisfy { text in
                let groups = text.split(separator: "-", omittingEmptySubsequences: false)
                return groups.count == 4 && groups.allSatisfy { $0.count == 4 && $0.allSatisfy(alphabet.contains) }
            }
            return .object([
                "ok": .bool(true),
                "recoveryCodes": .object([
                    "count": .int(texts.count), "wellFormed": .bool(wellFormed),
                    "distinct": .bool(Set(texts).count == texts.count),
                ]),
            ])
        }

        func perform(_ step: JSONValue) throws(AuthError) -> JSONValue {
            let name = step["do"]?.string ?? ""
            let email = step["email"]?.string ?? ""
            let password = step["password"]?.string ?? ""
            let client = step["client"]?.string ?? "c1"
            let device = step["device"]?.string
            switch name {
            case "advance":
                clock.advance(Double(step["seconds"]?.int ?? 0))
                return Self.ok
            case "signUp":
                try service.signUp(email: email, password: password, clientKey: client)
                return Self.ok
            case "confirmSignUp":
                return signedIn(
                    try service.confirmSignUp(
                        token: token(step, kind: "confirmSignUp"), password: password, device: device), step)
            case "signIn":
                return signedIn(
                    try service.signIn(
                        email: email, password: password, clientKey: client, device: device, code: secondFactor(step)),
                    step)
            case "authenticate":
                return .object([
                    "ok": .bool(true), "account": label(try service.authenticate(accessToken: access(step))),
                ])
            case "refresh":
                let next = try service.refresh(refreshToken: refreshToken(step))
                sessions[step["as"]?.string ?? step["session"]?.string ?? ""] = next
                return .object(["ok": .bool(true), "account": label(next.account)])
            case "signOut":
                try service.signOut(accessToken: access(step))
                return Self.ok
            case "reauthenticate":
                try service.reauthenticate(accessToken: access(step), password: password, code: secondFactor(step))
                return Self.ok
            case "changePassword":
                try service.changePassword(accessToken: access(step), newPassword: password)
                return Self.ok
            case "requestReset":
                try service.requestPasswordReset(email: email, clientKey: client)
                return Self.ok
            case "inspectReset":
                return .object([
                    "ok": .bool(true),
                    "email": .string(try service.inspectReset(token: token(step, kind: "passwordReset"))),
                ])
            case "confirmReset":
                try service.confirmReset(token: token(step, kind: "passwordReset"), newPassword: password)
                return Self.ok
            case "deleteAccount":
                try service.deleteAccount(accessToken: access(step), confirmed: step["confirmed"] == .bool(true))
                return Self.ok
            case "concurrently":
                return AccountOperations.concurrently(step, on: service)
            case "providerSignIn":
                // Only the script's `providers` are configured (AUTH-35).
                return signedIn(
                    try service.signInSynchronously(
                        provider: step["provider"]?.string ?? "", idToken: step["token"]?.string ?? "",
                        nonce: step["nonce"]?.string, device: device), step)
            case "issueNonce":
                return .object(["ok": .bool(true), "nonce": .string(try service.issueSignInNonce(clientKey: client))])
            case "sessions":
                let listed = try service.sessions(accessToken: access(step))
                let hex = Set("0123456789abcdef")
                let wellFormed =
                    Set(listed.map(\.id)).count == listed.count
                    && listed.allSatisfy { $0.id.count == 32 && $0.id.allSatisfy(hex.contains) }
                return .object([
                    "ok": .bool(true), "idsWellFormed": .bool(wellFormed),
                    "sessions": .array(
                        listed.map {
                            .object([
                                "device": $0.device.map(JSONValue.string) ?? .null,
                                "signedInAt": .int(Int($0.signedInAt)), "lastUsedAt": .int(Int($0.lastUsedAt)),
                                "current": .bool($0.isCurrent),
                            ])
                        }),
                ])
            case "revokeSession":
                let target = sessions[step["target"]?.string ?? ""]?.id ?? String(repeating: "0", count: 32)
                try service.revokeSession(accessToken: access(step), id: target)
                return Self.ok
            case "signInMethods":
                let methods = try service.signInMethods(accessToken: access(step))
                return .object([
                    "ok": .bool(true), "password": .bool(methods.hasPassword),
                    "providers": .array(methods.providers.map(JSONValue.string)),
                ])
            case "linkIdentity":
                try service.linkIdentitySynchronously(
                    accessToken: access(step), provider: step["provider"]?.string ?? "",
                    idToken: step["token"]?.string ?? "", nonce: step["nonce"]?.string)
                return Self.ok
            case "unlinkIdentity":
                try service.unlinkIdentity(accessToken: access(step), provider: step["provider"]?.string ?? "")
                return Self.ok
            case "removePassword":
                try service.removePassword(accessToken: access(step))
                return Self.ok
            case "requestEmailChange":
                try service.requestEmailChange(accessToken: access(step), newEmail: email, clientKey: client)
                return Self.ok
            case "confirmEmailChange":
                try service.confirmEmailChange(
                    accessToken: access(step), token: token(step, kind: "confirmEmailChange"))
                return Self.ok
            case "undoEmailChange":
                try service.undoEmailChange(token: token(step, kind: "emailChanged"))
                return Self.ok
            case "beginSecondFactor":
                let enrollment = try service.beginSecondFactor(accessToken: access(step))
                return .object([
                    "ok": .bool(true), "secret": .string(enrollment.secret.reveal()),
                    "uri": .string(enrollment.uri.reveal()),
                ])
            case "confirmSecondFactor":
                return shown(
                    try service.confirmSecondFactor(accessToken: access(step), code: step["code"]?.string ?? ""))
            case "newRecoveryCodes":
                return shown(try service.newRecoveryCodes(accessToken: access(step)))
            case "disableSecondFactor":
                try service.disableSecondFactor(accessToken: access(step))
                return Self.ok
            case "signOutEverywhere":
                try service.signOutEverywhere(accessToken: access(step))
                return Self.ok
            case "tokenShape":
                // AUTH-37: the issued tokens' lengths and alphabet, and that no two are equal.
                let tokens =
                    step["kind"].map { _ in [token(step, kind: step["kind"]?.string ?? "")] }
                    ?? [access(step), refreshToken(step)]
                let texts = tokens.map { $0.reveal() }
                let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
                return .object([
                    "ok": .bool(true), "lengths": .array(texts.map { .int($0.count) }),
                    "base64url": .bool(texts.allSatisfy { $0.allSatisfy(alphabet.contains) }),
                    "distinct": .bool(Set(texts).count == texts.count),
                ])
            case "mails":
                let kinds = mailer.sent.withLock { $0 }.filter { $0.recipient == step["to"]?.string }.map {
                    JSONValue.string($0.kind)
                }
                return .object(["ok": .bool(true), "kinds": .array(kinds)])
            default:
                return .object(["error": .string("unknown_step")])
            }
        }
    }

    /// `times` copies of `step` (a `signIn`, `signUp` or `requestReset`) at once, on as many
    /// threads released together; the answer counts their outcomes by code (`ok` for a success).
    static func concurrently(_ step: JSONValue, on service: AccountService) -> JSONValue {
        let count = min(max(step["times"]?.int ?? 0, 0), 1_000)
        let inner = step["step"] ?? .null
        let email = inner["email"]?.string ?? ""
        let password = inner["password"]?.string ?? ""
        let client = inner["client"]?.string ?? "c1"
        let call: @Sendable () throws(AuthError) -> Void
        switch inner["do"]?.string {
        case "signIn":
            call = { () throws(AuthError) in _ = try service.signIn(email: email, password: password, clientKey: client)
            }
        case "signUp":
            call = { () throws(AuthError) in try service.signUp(email: email, password: password, clientKey: client) }
        case "requestReset":
            call = { () throws(AuthError) in try service.requestPasswordReset(email: email, clientKey: client) }
        default: return .object(["error": .string("unknown_step")])
        }
        let outcomes = Locked([String: Int]())
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for _ in 0..<count {
            group.enter()
            Thread.detachNewThread {
                start.wait()
                let outcome: String
                do throws(AuthError) {
                    try call()
                    outcome = "ok"
                } catch {
                    outcome = error.code.description
                }
                outcomes.withLock { $0[outcome, default: 0] += 1 }
                group.leave()
            }
        }
        for _ in 0..<count { start.signal() }
        group.wait()
        return .object([
            "ok": .bool(true), "outcomes": .object(outcomes.withLock { $0 }.mapValues { JSONValue.int($0) }),
        ])
    }

    /// A clock that moves only when told.
    final class ManualClock: AuthClock {
        private let time: Locked<Double>
        init(start: Double) { time = Locked(start) }
        func now() -> Double { time.withLock { $0 } }
        func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
    }

    /// A mailer that keeps what it was asked to send.
    final class RecordingMailer: AuthMailer {
        let sent = Locked<[AuthMail]>([])
        func send(_ mail: AuthMail) { sent.withLock { $0.append(mail) } }
    }

    /// An eraser that succeeds, or fails every time.
    struct FixtureEraser: AccountEraser {
        let fails: Bool
        struct Failure: Error {}
        func eraseData(of account: AccountID) throws { if fails { throw Failure() } }
    }

    /// A revoker that always succeeds: the scripts hold no provider tokens.
    struct FixtureRevoker: ProviderTokenRevoker {
        func revoke(_ token: SecretToken, provider: String) async throws {}
    }
}
