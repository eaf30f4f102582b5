import Foundation
import GlowAuth
import GlowClient
import GlowModel
import Testing

@testable import GlowService

/// Every call of Spec/server.md has a typed method (issue 58): an app signs up, opens the mailed
/// links, resets and changes its password, lists and revokes sessions, steps up, moves its
/// address and back, and deletes its account without naming a call; `ServiceLink(url:)` reads
/// every link the server mails, and refuses by name what is not one.
@Suite("The account's calls, typed")
struct AccountCallsTests {
    static let password = ClientTests.password
    static let newPassword = "another quiet morning walk"

    /// Every mail that carries a token, and the link it must read as.
    static let mails: [(AuthMail, ServiceLink)] = [
        (.confirmSignUp(to: "a@example.com", token: SecretToken("t1")), .confirmSignUp(token: "t1")),
        (.passwordReset(to: "a@example.com", token: SecretToken("t2")), .resetPassword(token: "t2")),
        (.confirmEmailChange(to: "a@example.com", token: SecretToken("t3")), .confirmEmailChange(token: "t3")),
        (.emailChanged(to: "a@example.com", token: SecretToken("t4")), .undoEmailChange(token: "t4")),
    ]

    @Test(
        "every link the server mails reads as its action and token, whatever the link base",
        arguments: ["glowritual://", "https://glow.example.com/app/", "myapp://open/"])
    func mailedLinks(_ base: String) throws {
        for (mail, expected) in Self.mails {
            let body = ServiceMailer.content(mail, link: { base + $0 }).body
            let line = try #require(body.split(separator: "\n").first { $0.hasPrefix(base) })
            let link = try ServiceLink(url: try #require(URL(string: String(line))))
            #expect(link == expected && link.token == expected.token, "\(mail.kind) with \(base)")
        }
        // And the mails without a link have none to read.
        for mail in [AuthMail.alreadyRegistered(to: "a@example.com"), .passwordChanged(to: "a@example.com")] {
            #expect(!ServiceMailer.content(mail, link: { base + $0 }).body.contains(base))
        }
    }

    /// Links that are not the server's, and what the refusal names.
    static let notLinks: [(String, String)] = [
        ("glowritual://confirm-sign-up", "no token"),
        ("glowritual://confirm-sign-up?token=", "no token"),
        ("glowritual://confirm-sign-up?code=abc", "no token"),
        ("glowritual://confirm-sign-up?token=a&token=b", "2 tokens"),
        ("glowritual://open-sesame?token=a", "'open-sesame' is not a link the server mails"),
        ("https://glow.example.com/app/confirm-signup?token=a", "'confirm-signup' is not a link"),
        ("glowritual://?token=a", "no action"),
        ("https://glow.example.com/?token=a", "'glow.example.com' is not a link"),
    ]

    @Test("a link that is not one the server mails is refused by name", arguments: notLinks)
    func refusesOthers(_ text: String, _ named: String) throws {
        let url = try #require(URL(string: text))
        let error = #expect(throws: ServiceFailure.self) { try ServiceLink(url: url) }
        #expect(error?.code == .invalidLink && error?.message.contains(named) == true, "\(String(describing: error))")
    }

    @Test("an account's life through typed calls and the mailed links alone")
    func accountLife() async throws {
        let clock = ClientTests.StepClock()
        let server = try TestServer(configuration: TestServer.configuration, clock: clock)
        defer { server.stop() }
        let client = ServiceClient(base: try #require(URL(string: server.url)))
        #expect(try await client.health().status == "ok")

        // Sign-up, confirmed from the mailed link.
        try await client.signUp(email: "lou@example.com", password: Self.password)
        let confirmLink = try ServiceLink(url: try server.mailedLink(to: "lou@example.com", kind: "confirmSignUp"))
        guard case .confirmSignUp(let token) = confirmLink else {
            Issue.record("\(confirmLink) is not a sign-up's confirmation")
            return
        }
        let phone = SessionKeeper(
            client: client,
            session: try await client.confirmSignUp(token: token, password: Self.password, device: "phone"))

        // A second device; the first lists both and revokes the second, whose next call fails.
        let laptop = SessionKeeper(
            client: client,
            session: try await client.signIn(email: "lou@example.com", password: Self.password, device: "laptop"))
        let listed = try await phone.sessions()
        #expect(
            Set(listed.compactMap(\.device)) == ["phone", "laptop"]
                && listed.filter(\.isCurrent).map(\.device) == ["phone"])
        let other = try #require(listed.first { !$0.isCurrent })
        #expect(other.signedInAt <= other.lastUsedAt)
        try await phone.revokeSession(id: other.id)
        await #expect(throws: ServiceFailure.self) { _ = try await laptop.sessions() }
        #expect(laptop.session == nil, "a revoked session ends on its device")

        // Changing the password needs a proof of the last 5 minutes (AUTH-41), which the sign-in
        // no longer is.
        clock.advance(6 * 60)
        let stale = await #expect(throws: ServiceFailure.self) { try await phone.changePassword(to: Self.newPassword) }
        #expect(stale?.code.description == "reauthentication_required")
        try await phone.stepUp(password: Self.password)
        try await phone.changePassword(to: Self.newPassword)
        _ = try await client.signIn(email: "lou@example.com", password: Self.newPassword)

        // A reset from the mailed link sets the password back.
        try await client.requestPasswordReset(email: "lou@example.com")
        let reset = try ServiceLink(url: try server.mailedLink(to: "lou@example.com", kind: "passwordReset"))
        try await client.confirmPasswordReset(token: reset.token, newPassword: Self.password)
        let again = SessionKeeper(
            client: client, session: try await client.signIn(email: "lou@example.com", password: Self.password))

        // The address moves, confirmed from the new mailbox's link, and is undone from the old's.
        try await again.stepUp(password: Self.password)
        try await again.changeEmail(to: "lou.new@example.com")
        let move = try ServiceLink(url: try server.mailedLink(to: "lou.new@example.com", kind: "confirmEmailChange"))
        try await again.confirmEmailChange(token: move.token)
        _ = try await client.signIn(email: "lou.new@example.com", password: Self.password)
        let undo = try ServiceLink(url: try server.mailedLink(to: "lou@example.com", kind: "emailChanged"))
        guard case .undoEmailChange = undo else {
            Issue.record("\(undo) is not an undoing")
            return
        }
        try await client.undoEmailChange(token: undo.token)
        let home = SessionKeeper(
            client: client, session: try await client.signIn(email: "lou@example.com", password: Self.password))

        // Signing out everywhere ends every session, this one's included.
        try await home.signOutEverywhere()
        #expect(home.session == nil)
        await #expect(throws: ServiceFailure.self) { _ = try await again.sessions() }

        // Deleting the account needs a proof too; then nobody signs in.
        let last = SessionKeeper(
            client: client, session: try await client.signIn(email: "lou@example.com", password: Self.password))
        try await last.stepUp(password: Self.password)
        try await last.deleteAccount()
        #expect(last.session == nil)
        let gone = await #expect(throws: ServiceFailure.self) {
            _ = try await client.signIn(email: "lou@example.com", password: Self.password)
        }
        #expect(gone?.code.description == "invalid_credentials")
    }
}
