import Testing

@testable import GlowAuth

/// Secrets never show through reflection (issue 25, hole 9): `dump`, `Mirror` and string
/// interpolation of the values that carry them name what is safe and nothing else.
@Suite("Redaction")
struct RedactionTests {
    static let password = "violet lantern morning 9471"
    static let idToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzZWNyZXQtc3ViamVjdCJ9.c2lnbmF0dXJlLWJ5dGVz"

    /// Everything `dump` prints of `value`, and its interpolations.
    static func shown(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text + "\(value)" + String(reflecting: value)
    }

    @Test("an e-mail sign-in shows its address, never the password")
    func emailSignIn() {
        let shown = Self.shown(EmailSignIn(email: "mia@example.com", password: Self.password, clientKey: "k1"))
        #expect(shown.contains("mia@example.com") && !shown.contains("lantern"))
    }

    @Test("a provider sign-in shows its provider, never the token, the nonce or the refresh token")
    func providerSignIn() {
        let nonce = SignInNonce(raw: SecretToken.random())
        let refresh = SecretToken.random()
        let sign = ProviderSignIn.apple(idToken: Self.idToken, nonce: nonce, refreshToken: refresh)
        let shown = Self.shown(sign)
        #expect(shown.contains("apple"))
        for secret in [Self.idToken, "eyJ", nonce.raw.reveal(), refresh.reveal()] {
            #expect(!shown.contains(secret), "\(secret.prefix(6))… shows")
        }
        #expect(!Self.shown(nonce).contains(nonce.raw.reveal()))
    }

    @Test("a second factor's enrollment, its stored record and recovery codes show no secret or code")
    func secondFactor() throws {
        let world = try AccountServiceTests.World()
        let session = try world.account()
        let enrollment = try world.service.beginSecondFactor(accessToken: session.accessToken)
        let secret = enrollment.secret.reveal()
        let code = TOTP.code(secret: try TOTP.bytes(base32: secret), time: Int(world.clock.now()))
        let codes = try world.service.confirmSecondFactor(accessToken: session.accessToken, code: code)
        let factor = try world.store.update { (records) throws(AuthError) in records.secondFactors.values.first }
        #expect(codes.codes.count == 10 && "\(codes)" == "RecoveryCodes(10 codes)")
        for text in [secret] + codes.codes.map({ $0.reveal() }) {
            for value in [enrollment, codes, factor as Any] as [Any] {
                #expect(!Self.shown(value).contains(text), "\(type(of: value)) shows a secret")
            }
        }
    }

    @Test("a password hash shows its parameters, never its salt or tag")
    func passwordHash() throws {
        let salt: [UInt8] = Array(repeating: 0xAB, count: 16)
        let tag: [UInt8] = Array(repeating: 0xCD, count: 32)
        let hash = try PasswordHash(
            parameters: Argon2Parameters(memoryKiB: 19_456, iterations: 2, parallelism: 1), salt: salt, tag: tag)
        let shown = Self.shown(hash)
        #expect(shown.contains("19456") || shown.contains("19_456") || shown.contains("memoryKiB"))
        #expect(!shown.contains("171") && !shown.contains("205"), "a salt or tag byte (0xAB, 0xCD) shows")
        #expect(!shown.contains(hash.phc.split(separator: "$").last.map(String.init) ?? "never"))
    }
}
