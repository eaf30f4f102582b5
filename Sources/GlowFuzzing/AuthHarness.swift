import GlowAuth

/// The `auth` target: everything GlowAuth reads from strangers. The first byte picks the reader:
/// an ID token against a fixed key set, a key set, a stored PHC hash, or a password under the
/// policy. Each must answer with a value or a typed error, and what it accepts must hold its
/// rules: a token verifies the same way twice, a key set keeps at most its limit of keys, a parsed
/// hash writes back to the same string (AUTH-15), a kept password is within AUTH-5 and AUTH-6.
enum AuthHarness {
    /// The corpus's test keys (Spec/auth/keys: `rsa-a`, `ec-a`), public halves only.
    static let keySet = try! JSONWebKeySet(
        json: Array(
            #"""
            {"keys":[{"kty":"RSA","kid":"rsa-a","use":"sig","alg":"RS256","n":"yE-u-2Yl94yvmnOyj3zd3Kll3_GYl8nHea6sQSs6UspHpAs_KJdFXDG2Cy5i9MyGehkGbLIcWJPbVKDZLh97J-7mqZOEiftIUu3x_jlNVqYiTP_MdC5kYRMuec-cMfkepBdMctWaxxTAMELhVNa3_hlQpRpQpfcGa_yd-UI0GZ1SuX7wpWs6ivo4lSfac_6kdzODKzJHyWIaC8M2RyMXneRmZX3pYRkyrOKCOEdDxlUOa1L__ijIcP3P5J_-FM95DD4iAn4R2n639mLFE4KBdyuV8ioTEDwR8RGsEg4k4-tWSEX6TFiInGmkFqVwbQTpzfBVI62QjgOe6IVWEls_cQ","e":"AQAB"},{"kty":"EC","kid":"ec-a","use":"sig","alg":"ES256","crv":"P-256","x":"-Lbjx6muD15wKOqgGj_nxxG9SXsJ1FLl51K13UfhaNk","y":"u-1jTvUEnAtKeCZjB5-qjBleP2JbsblBRjzsS6SlOPw"}]}
            """#.utf8))
    static let provider = try! IdentityProvider(
        id: "google", issuers: IdentityProvider.google.issuers, keySetURL: "", algorithms: ["RS256", "ES256"])
    static let verifier = try! IDTokenVerifier(
        provider: provider, clientIDs: ["1234567890-glow.apps.googleusercontent.com"],
        keys: KeySetCache(blockingFetcher: Unused()))
    static let policy = try! PasswordPolicy()

    struct Unused: BlockingKeySetFetcher {
        struct NoNetwork: Error {}
        func fetchKeySet(from url: String) throws -> KeySetResponse { throw NoNetwork() }
    }

    static func run(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let body = Array(bytes.dropFirst())
        let text = String(decoding: body, as: UTF8.self)
        switch selector % 4 {
        case 0:
            let now = 1_796_083_200.0
            let first = Result { () throws(AuthError) in try verifier.verify(text, nonce: nil, at: now, keySet: keySet)
            }
            let second = Result { () throws(AuthError) in try verifier.verify(text, nonce: nil, at: now, keySet: keySet)
            }
            switch (first, second) {
            case (.success(let a), .success(let b)): precondition(a == b, "a token verified two ways")
            case (.failure(let a), .failure(let b)): precondition(a.code == b.code && !a.message.isEmpty)
            default: preconditionFailure("a token both verified and failed")
            }
        case 1:
            if let set = try? JSONWebKeySet(json: body) {
                precondition(set.keyIDs.count <= JSONWebKeySet.keyLimit, "a key set kept more keys than allowed")
            }
        case 2:
            if let hash = try? PasswordHash(phc: text) {
                precondition(hash.phc == text, "a parsed hash wrote back differently (AUTH-15)")
            }
        default:
            if let password = try? policy.check(text, email: "ana@example.com") {
                precondition(
                    (PasswordPolicy.defaultMinimum...PasswordPolicy.maximumLength).contains(password.length),
                    "a kept password outside AUTH-5 and AUTH-6")
            }
        }
    }
}
