import Foundation
import GlowCore
import Testing

@testable import GlowAuth

@Suite("Argon2id and stored hashes")
struct PasswordHashTests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test("RFC 9106's Argon2id test vector (section 5.3)")
    func rfcVector() throws {
        let tag = try Argon2id.tag(
            password: [UInt8](repeating: 0x01, count: 32), salt: [UInt8](repeating: 0x02, count: 16),
            secret: [UInt8](repeating: 0x03, count: 8), associatedData: [UInt8](repeating: 0x04, count: 12),
            parameters: Argon2Parameters(memoryKiB: 32, iterations: 3, parallelism: 4), tagLength: 32)
        #expect(tag == Self.hex("0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"))
    }

    static let small = Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)

    @Test("a hash verifies its password, the same password typed another way, and nothing else")
    func verify() throws {
        let hasher = try PasswordHasher(parameters: Self.small)
        let password = try PasswordPolicy(minimumLength: 8).check("café au lait")
        let hash = try hasher.hash(password)
        #expect(try hasher.verify("café au lait", against: hash))
        #expect(try hasher.verify("cafe\u{301} au lait", against: hash), "NFKC makes them one password")
        #expect(try !hasher.verify("café au lai", against: hash))
        #expect(try !hasher.verify("Café au lait", against: hash))
        #expect(try !hasher.verify(String(repeating: "a", count: 1 << 20), against: hash))
        let parsed = try PasswordHash(phc: hash.phc)
        #expect(parsed == hash)
        #expect(parsed.phc == hash.phc)
        // Fresh salts: the same password hashes differently each time.
        #expect(try hasher.hash(password).salt != hash.salt)
        #expect(
            !"\(hash)".contains(Base64.standard.encode(hash.tag))
                && !"\(hash)".contains(Base64.standard.encode(hash.salt)))
    }

    @Test(
        "only the one PHC form parses",
        arguments: [
            ("$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$", "malformed_hash"),
            ("$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$dGFnIHRhZyB0YWcgdGFnIQ==", "malformed_hash"),
            ("argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$dGFnIHRhZyB0YWcgdGFnIQ", "malformed_hash"),
            ("$argon2i$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$dGFnIHRhZyB0YWcgdGFnIQ", "unsupported_hash"),
            ("$argon2id$v=16$m=64,t=1,p=1$c2FsdHNhbHQ$dGFnIHRhZyB0YWcgdGFnIQ", "unsupported_hash"),
            ("$argon2id$m=64,t=1,p=1$c2FsdHNhbHQ$dGFnIHRhZyB0YWcgdGFnIQ", "malformed_hash"),
            ("$argon2id$v=19$t=1,m=64,p=1$c2FsdHNhbHQ$dGFnIHRhZyB0YWcgdGFnIQ", "malformed_hash"),
            ("$argon2id$v=19$m=064,t=1,p=1$c2FsdHNhbHQ$dGFnIHRhZyB0YWcgdGFnIQ", "malformed_hash"),
            ("$argon2id$v=19$m=4,t=1,p=1$c2FsdHNhbHQ$dGFnIHRhZyB0YWcgdGFnIQ", "unsupported_hash"),
            ("$argon2id$v=19$m=4194304,t=1,p=1$c2FsdHNhbHQ$dGFnIHRhZyB0YWcgdGFnIQ", "unsupported_hash"),
            ("$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHR$dGFnIHRhZyB0YWcgdGFnIQ", "malformed_hash"),
            ("$argon2id$v=19$m=64,t=1,p=1$c2FsdA$dGFnIHRhZyB0YWcgdGFnIQ", "unsupported_hash"),
        ])
    func malformed(text: String, code: String) {
        #expect(throws: AuthError.self) { try PasswordHash(phc: text) }
        do {
            _ = try PasswordHash(phc: text)
        } catch {
            #expect(error.code.description == code, "\(text)")
        }
    }

    @Test("a hash weaker than the hasher's needs rehashing; one as strong does not")
    func rehash() throws {
        let hasher = try PasswordHasher(parameters: Argon2Parameters(memoryKiB: 128, iterations: 2, parallelism: 1))
        let password = try PasswordPolicy(minimumLength: 8).check("lantern evenings")
        #expect(try !hasher.needsRehash(hasher.hash(password)))
        for weaker in [
            Argon2Parameters(memoryKiB: 64, iterations: 2, parallelism: 1),
            Argon2Parameters(memoryKiB: 128, iterations: 1, parallelism: 1),
        ] {
            #expect(hasher.needsRehash(try PasswordHasher(parameters: weaker).hash(password)))
        }
        let moreLanes = try PasswordHasher(parameters: Argon2Parameters(memoryKiB: 128, iterations: 2, parallelism: 2))
        #expect(try !hasher.needsRehash(moreLanes.hash(password)))
        #expect(throws: AuthError.self) {
            try PasswordHasher(parameters: Argon2Parameters(memoryKiB: 7, iterations: 1, parallelism: 1))
        }
    }

    /// Takes `gate`'s one turn on a thread of its own, as a hash in progress holds it, and
    /// answers once it is held: signal the semaphore to give the turn back.
    static func holdTurn(of gate: HashingGate) -> DispatchSemaphore {
        let (holding, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        Thread.detachNewThread {
            do {
                try gate.run { () throws(AuthError) in
                    holding.signal()
                    release.wait()
                }
            } catch {
                Issue.record("the first hash got no turn: \(error)")
            }
        }
        holding.wait()
        return release
    }

    @Test("past the gate's hashes at once, a hash that waits longer than the gate's wait is busy, to retry in a second")
    func hashingGate() throws {
        let gate = HashingGate(concurrent: 1, wait: 0.05)
        let hasher = try PasswordHasher(
            parameters: Argon2Parameters(memoryKiB: 8, iterations: 1, parallelism: 1), gate: gate)
        let release = Self.holdTurn(of: gate)
        let refused = #expect(throws: AuthError.self) {
            try hasher.hash(Password(normalized: "violet lantern morning"))
        }
        #expect(refused?.code == .busy && refused?.retryAfter == 1 && refused?.rule == "AUTH-12")
        release.signal()
        let hash = try hasher.hash(Password(normalized: "violet lantern morning"))
        #expect(try hasher.verify("violet lantern morning", against: hash), "once the turn is free, hashing runs")
    }

    /// Issue 59 item 3: a flood of sign-ins that succeed waited on the gate in every handler
    /// thread. With as many waiting as running, one more is refused at once, not after the wait.
    @Test("past the gate's line, a hash is refused busy at once; one in line gets its turn when it frees")
    func hashingLine() throws {
        let gate = HashingGate(concurrent: 1, wait: 5, waiting: 1)
        let (queued, served) = (DispatchSemaphore(value: 0), Locked(false))
        let release = Self.holdTurn(of: gate)
        Thread.detachNewThread {
            do {
                try gate.run { () throws(AuthError) in served.withLock { $0 = true } }
            } catch {
                Issue.record("the hash in line got no turn: \(error)")
            }
            queued.signal()
        }
        // The second hash is in line by now; a third finds no room in it.
        Thread.sleep(forTimeInterval: 0.3)
        let asked = ContinuousClock.now
        let refused = #expect(throws: AuthError.self) {
            try gate.run { () throws(AuthError) in Issue.record("a third hash ran while the turn was held") }
        }
        #expect(refused?.code == .busy && refused?.retryAfter == 1 && refused?.rule == "AUTH-12")
        #expect(ContinuousClock.now - asked < .seconds(1), "refused after waiting, not at once")
        release.signal()
        #expect(queued.wait(timeout: .now() + 5) == .success)
        #expect(served.withLock { $0 }, "the hash in line ran once the turn was free")
    }
}
