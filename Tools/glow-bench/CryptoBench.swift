import Foundation
import GlowBundle
import GlowCrypto
import GlowCryptoOracle

/// The package's own crypto beside the libraries it replaced (issue 42), measured in the same run
/// with alternating samples: Argon2id beside the reference libargon2 at the bundle's and the
/// account's parameters, AES-256-GCM beside libcrypto, and the extreme person's encrypted bundle
/// opened with the own AES-GCM beside the same chunks opened by libcrypto.
enum CryptoBench {
    static func run(samples: Int) throws {
        let salt = [UInt8](repeating: 7, count: 16)
        let password = Array("correct horse battery staple".utf8)
        for (name, key, memory, passes) in [
            ("an encrypted bundle's (64 MiB, 3 passes, 1 lane)", "bundle", 65_536, 3),
            ("an account's (19 MiB, 2 passes, 1 lane)", "account", 19_456, 2),
        ] {
            let (ours, reference) = try Timing.pair(samples: samples) {
                blackHole(
                    try required("Argon2id") {
                        try Crypto.argon2id(
                            password: password, salt: salt, memoryKiB: memory, iterations: passes, parallelism: 1,
                            tagLength: 32)
                    })
            } _: {
                blackHole(
                    try required("libargon2") {
                        try CryptoOracle.argon2id(
                            password: password, salt: salt, memoryKiB: memory, iterations: passes, parallelism: 1,
                            tagLength: 32)
                    })
            }
            record("crypto", "argon2id.\(key)", ours.median)
            record("crypto", "argon2id.\(key).libargon2", reference.median)
            say(
                "crypto   Argon2id at \(name): \(milliseconds(ours.median)) beside libargon2's \(milliseconds(reference.median)) → \(String(format: "%.2f", ours.median / reference.median))× its time (target ≤ 1.3×)"
            )
        }

        // AES-256-GCM on 1 MiB with a little associated data, as a bundle's chunks see it.
        let key = [UInt8](repeating: 3, count: 32)
        let nonce = [UInt8](repeating: 4, count: 12)
        let associated = [UInt8](repeating: 5, count: 32)
        let plaintext = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let sealed = Crypto.aes256GCMSeal(key: key, nonce: nonce, plaintext: plaintext, associated: associated)
        func referenceSeal() throws -> [UInt8] {
            try required("libcrypto's seal") {
                try CryptoOracle.seal(key: key, nonce: nonce, plaintext: plaintext, associated: associated)
            }
        }
        let referenceSealed = try referenceSeal()
        precondition(referenceSealed == sealed, "libcrypto sealed other bytes")
        let (seal, sealReference) = try Timing.pair(samples: samples) {
            blackHole(Crypto.aes256GCMSeal(key: key, nonce: nonce, plaintext: plaintext, associated: associated))
        } _: {
            blackHole(try referenceSeal())
        }
        let (open, openReference) = try Timing.pair(samples: samples) {
            blackHole(Crypto.aes256GCMOpen(key: key, nonce: nonce, sealed: sealed, associated: associated))
        } _: {
            blackHole(
                try required("libcrypto's open") {
                    try CryptoOracle.open(key: key, nonce: nonce, sealed: sealed, associated: associated)
                })
        }
        func rate(_ timing: Timing) -> Double { Double(plaintext.count) / timing.median / 1e6 }
        record("crypto", "aesGCM.sealMBps", rate(seal))
        record("crypto", "aesGCM.openMBps", rate(open))
        record("crypto", "aesGCM.sealMBps.libcrypto", rate(sealReference))
        record("crypto", "aesGCM.openMBps.libcrypto", rate(openReference))
        say(
            "crypto   AES-256-GCM on 1 MiB: seal \(Int(rate(seal))) MB/s, open \(Int(rate(open))) MB/s (target ≥ 50) beside libcrypto's \(Int(rate(sealReference))) and \(Int(rate(openReference))) MB/s (AES-NI) → \(String(format: "%.3f", rate(seal) / rate(sealReference)))× and \(String(format: "%.3f", rate(open) / rate(openReference)))× its rate"
        )
    }

    /// The extreme person's bundle, sealed once with the smallest key derivation: opened through
    /// `EnvelopeOpener` (the own AES-GCM), beside the same chunks opened by libcrypto as the
    /// opener did before (the header's key derivation, the same for both, is left out).
    static func openExtreme(_ bundle: [UInt8], samples: Int) throws {
        let salt = [UInt8](repeating: 1, count: 16)
        let fileKey = [UInt8](repeating: 2, count: 32)
        let sealed = try required("sealing the bundle") {
            var sealer = try EnvelopeSealer(
                passphrase: "benchmark", recoveryKey: nil,
                kdf: EnvelopeKDF(memoryKiB: 8, iterations: 1, parallelism: 1), salt: salt, fileKey: fileKey)
            return try sealer.seal(bundle) + sealer.finish()
        }
        // BUNDLE-32, BUNDLE-33: the header (36 bytes and one stanza), its MAC, then the chunks.
        let macAt = 36 + 49
        let headerMAC = Array(sealed[macAt..<macAt + 32])
        let payloadKey = Crypto.hkdfSHA256(
            secret: fileKey, salt: salt, info: Array("glow-bundle payload".utf8), length: 32)
        let chunks = stride(from: macAt + 32, to: sealed.count, by: 65_552).map {
            Array(sealed[$0..<Swift.min(sealed.count, $0 + 65_552)])
        }
        func nonce(_ index: Int, last: Bool) -> [UInt8] {
            (0..<11).reversed().map { UInt8(truncatingIfNeeded: index >> (8 * $0)) } + [last ? 1 : 0]
        }
        let (ours, reference) = try Timing.pair(samples: samples) {
            var opener = EnvelopeOpener(secret: .passphrase("benchmark"))
            blackHole(try required("opening the bundle") { try opener.open(sealed) + opener.finish() })
        } _: {
            var plain: [UInt8] = []
            plain.reserveCapacity(bundle.count)
            for (index, chunk) in chunks.enumerated() {
                let opened = try required("libcrypto's open") {
                    try CryptoOracle.open(
                        key: payloadKey, nonce: nonce(index, last: index == chunks.count - 1), sealed: chunk,
                        associated: headerMAC)
                }
                guard let opened else { preconditionFailure("libcrypto refused chunk \(index) of the own seal") }
                plain += opened
            }
            precondition(plain == bundle, "libcrypto opened other bytes")
            blackHole(plain)
        }
        record("extreme", "openSealed", ours.median)
        record("extreme", "openSealed.libcrypto", reference.median)
        say(
            "sealed   the \(sealed.count / 1024) KiB encrypted bundle opened with the own AES-GCM in \(milliseconds(ours.median)), with libcrypto's \(milliseconds(reference.median)) (\(String(format: "%.2f", ours.median / reference.median))×)"
        )
    }

    /// What `body` gives, or its failure thrown saying what failed (a derivation whose memory
    /// could not be had, say), to end the run: a figure of something that did not run would be
    /// worse than none.
    static func required<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw BenchFailure("\(what) failed: \(error)")
        }
    }
}
