import Dispatch
import Foundation
import GlowCore
import GlowCrypto

/// Hashes and verifies passwords with Argon2id (AUTH-11 ... AUTH-17).
public struct PasswordHasher: Sendable {
    /// The cost of new hashes; hashes made with less need rehashing (AUTH-17).
    public let parameters: Argon2Parameters
    /// What bounds the hashing done at once.
    public let gate: HashingGate
    /// The salt length of new hashes, in bytes.
    public static let saltLength = 16
    /// The tag length of new hashes, in bytes.
    public static let tagLength = 32

    /// A hasher of `parameters`, OWASP's by default (AUTH-12).
    ///
    /// - Throws: ``AuthError/Code/invalidHashParameters`` outside AUTH-13.
    public init(parameters: Argon2Parameters = .owasp, gate: HashingGate = .process) throws(AuthError) {
        try parameters.check()
        self.parameters = parameters
        self.gate = gate
    }

    /// A new hash of `password`, with a fresh salt from the system's cryptographic generator.
    ///
    /// - Throws: ``AuthError`` when Argon2id cannot run (its memory could not be had): never a
    ///   crash of the process, and never a hash that is not one.
    public func hash(_ password: Password) throws(AuthError) -> PasswordHash {
        let salt = Crypto.randomBytes(Self.saltLength)
        let tag = try gate.run { () throws(AuthError) in
            try Argon2id.tag(
                password: Array(password.normalized.utf8), salt: salt, parameters: parameters, tagLength: Self.tagLength
            )
        }
        return try PasswordHash(parameters: parameters, salt: salt, tag: tag)
    }

    /// Whether `password` is the one `hash` was made of (AUTH-16): normalised as AUTH-2 says and
    /// refused unread beyond AUTH-1's size, hashed with the stored salt and parameters, and
    /// compared in time that does not depend on where the tags differ.
    ///
    /// - Throws: ``AuthError`` when Argon2id cannot run: a failure to check is never reported as a
    ///   wrong password.
    public func verify(_ password: String, against hash: PasswordHash) throws(AuthError) -> Bool {
        guard password.utf8.count <= PasswordPolicy.byteLimit else { return false }
        let normalized = password.precomposedStringWithCompatibilityMapping
        let tag = try gate.run { () throws(AuthError) in
            try Argon2id.tag(
                password: Array(normalized.utf8), salt: hash.salt, parameters: hash.parameters,
                tagLength: hash.tag.count)
        }
        return Crypto.constantTimeEqual(tag, hash.tag)
    }

    /// Whether `hash` should be replaced by a new one after a successful sign-in (AUTH-17).
    public func needsRehash(_ hash: PasswordHash) -> Bool {
        !hash.parameters.isAtLeast(parameters) || hash.salt.count < Self.saltLength || hash.tag.count < Self.tagLength
    }
}

/// The Argon2id work a process does at once, bounded: at most `concurrent` hashes run together,
/// and a hash that cannot start within `wait` seconds is refused `busy` with a retry after a
/// second (AUTH-12), so a flood of password checks waits its turn or is turned away, and never
/// takes every core from the calls that need none.
public final class HashingGate: Sendable {
    /// How many hashes run at once.
    public let concurrent: Int
    /// The longest a hash waits for its turn, in seconds.
    public let wait: Double
    /// The most hashes waiting for their turn at once; one more is refused at once.
    public let waiting: Int
    private let turns: DispatchSemaphore
    private let inLine = Locked(0)

    /// A gate letting `concurrent` hashes (at least 1) run at once, each waiting at most `wait`
    /// seconds for its turn, and at most `waiting` of them waiting at once (none: no bound).
    public init(concurrent: Int, wait: Double, waiting: Int? = nil) {
        self.concurrent = max(1, concurrent)
        self.wait = max(0, wait)
        self.waiting = max(0, waiting ?? .max)
        turns = DispatchSemaphore(value: max(1, concurrent))
    }

    /// The gate of this process: one hash fewer than its cores (at least one) at once, so one
    /// core stays for everything else, each waiting at most two seconds, and as many waiting as
    /// run, so hashes in line never hold the threads that serve other calls (AUTH-12).
    public static let process = HashingGate(
        concurrent: ProcessInfo.processInfo.activeProcessorCount - 1, wait: 2,
        waiting: max(1, ProcessInfo.processInfo.activeProcessorCount - 1))

    /// `body`, a hash, run in its turn.
    ///
    /// - Throws: ``AuthError/Code/busy`` when no turn came within the wait; the body's error.
    public func run<T>(_ body: () throws(AuthError) -> T) throws(AuthError) -> T {
        let busy = AuthError(
            .busy, "the server is checking as many passwords as it can at once; try again in a second",
            rule: "AUTH-12", retryAfter: 1)
        // A free turn is taken at once; otherwise the hash joins the line when it has room.
        if turns.wait(timeout: .now()) != .success {
            let joined = inLine.withLock { count -> Bool in
                guard count < waiting else { return false }
                count += 1
                return true
            }
            guard joined else { throw busy }
            let turn = turns.wait(timeout: .now() + wait)
            inLine.withLock { $0 -= 1 }
            guard turn == .success else { throw busy }
        }
        defer { turns.signal() }
        return try body()
    }
}
