import Foundation
import GlowBundle
import Testing

/// Encrypted bundles (BUNDLE-29 ... BUNDLE-35) beyond the corpus's files: streaming in any pieces,
/// the recovery words, and what a reader gives out before the end.
@Suite("Encrypted bundles")
struct EnvelopeTests {
    static let small = EnvelopeKDF(memoryKiB: 64, iterations: 1, parallelism: 1)
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func sealer() throws -> EnvelopeSealer {
        try EnvelopeSealer(
            passphrase: "a passphrase", recoveryKey: nil, kdf: small, salt: Array(repeating: 7, count: 16),
            fileKey: Array(repeating: 9, count: 32))
    }

    /// `bytes` fed in pieces of `size`, then finished.
    static func sealed(_ bytes: [UInt8], pieces size: Int) throws -> [UInt8] {
        var sealer = try sealer()
        var out: [UInt8] = []
        var start = 0
        while start < bytes.count {
            out += try sealer.seal(Array(bytes[start..<Swift.min(bytes.count, start + size)]))
            start += size
        }
        return out + (try sealer.finish())
    }

    static func opened(_ file: [UInt8], pieces size: Int, secret: BundleSecret = .passphrase("a passphrase"))
        throws(BundleError) -> [UInt8]
    {
        var opener = EnvelopeOpener(secret: secret)
        var out: [UInt8] = []
        var start = 0
        while start < file.count {
            out += try opener.open(Array(file[start..<Swift.min(file.count, start + size)]))
            start += size
        }
        return out + (try opener.finish())
    }

    @Test(
        "any pieces seal to the same bytes and open to the same plaintext",
        arguments: [0, 1, 65_535, 65_536, 65_537, 200_000])
    func pieces(length: Int) throws {
        let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let reference = try Self.sealed(plaintext, pieces: Swift.max(1, length))
        for size in [1_000, 65_536, 70_000] where size < 10 * Swift.max(length, 1) {
            #expect(try Self.sealed(plaintext, pieces: size) == reference, "sealed in pieces of \(size)")
        }
        // Header, then ceil(length / 64 KiB) chunks (one when empty), each with its 16-byte tag.
        let chunks = Swift.max(1, (length + 65_535) / 65_536)
        #expect(reference.count == 36 + 49 + 32 + length + 16 * chunks)
        for size in [1, 7, 4_096, 65_552, 1 << 20] where size > 100 || reference.count < 300_000 {
            #expect(try Self.opened(reference, pieces: size) == plaintext, "opened in pieces of \(size)")
        }
    }

    @Test("nothing is given out before its chunk authenticates, and a chunk only once the next byte is known")
    func holdsBack() throws {
        let plaintext = [UInt8](repeating: 0x5A, count: 3 * 65_536 + 10)
        let file = try Self.sealed(plaintext, pieces: 65_536)
        var opener = EnvelopeOpener(secret: .passphrase("a passphrase"))
        let header = 36 + 49 + 32
        // The header and exactly one whole chunk: it may still be the last, so it is held.
        #expect(try opener.open(Array(file[0..<header + 65_552])).isEmpty)
        // One more byte: the first chunk is known not to be the last, and authenticates.
        #expect(try opener.open([file[header + 65_552]]).count == 65_536)
        var tampered = file
        tampered[header + 2 * 65_552 + 5] ^= 1
        var second = EnvelopeOpener(secret: .passphrase("a passphrase"))
        #expect(try second.open(Array(tampered[0..<header + 65_553])).count == 65_536)
        // The changed second chunk is refused as changed, and nothing of it is given out.
        do {
            let given = try second.open(Array(tampered[(header + 65_553)...]))
            Issue.record("a changed chunk was taken: \(given.count) bytes given out")
        } catch {
            #expect(error.code == .chunkTampered, "\(error)")
        }
    }

    @Test("a recovery key round-trips through its words; random keys differ")
    func recoveryWords() throws {
        let key = RecoveryKey.random()
        #expect(key != RecoveryKey.random())
        #expect(key.words.count == 34)
        #expect(try RecoveryKey(words: key.words.joined(separator: " ")) == key)
        // In and out in one shape (issue 45 item 5): the words an app shows are the words it takes.
        #expect(try RecoveryKey(words: key.words) == key)
        #expect(throws: BundleError.self) { try RecoveryKey(words: Array(key.words.dropLast())) }
        #expect(RecoveryKey.isMeantAsKey(key.words.joined(separator: "-")))
        #expect(!RecoveryKey.isMeantAsKey("correct horse battery staple"))
        let file = try EnvelopeSealer.seal([1, 2, 3], passphrase: "a passphrase", recoveryKey: key, kdf: Self.small)
        #expect(try Self.opened(file, pieces: 100, secret: .recoveryKey(key)) == [1, 2, 3])
        #expect(try Self.opened(file, pieces: 100) == [1, 2, 3])
    }

    @Test("the SDK's words are Spec/recovery-words.txt, line by line")
    func wordList() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("Spec/recovery-words.txt"), encoding: .utf8)
        #expect(text.split(separator: "\n").map(String.init) == RecoveryKey.wordList)
        #expect(Set(RecoveryKey.wordList.map { $0.prefix(4) }).count == 256)
    }

    @Test("parameters beyond the caps are refused before anything is derived, by writers too")
    func caps() {
        for (parameters, offset) in [
            (EnvelopeKDF(memoryKiB: 262_145, iterations: 1, parallelism: 1), 10),
            (EnvelopeKDF(memoryKiB: 64, iterations: 17, parallelism: 1), 14),
            (EnvelopeKDF(memoryKiB: 64, iterations: 1, parallelism: 5), 18),
        ] {
            #expect {
                _ = try EnvelopeSealer(passphrase: "a passphrase", kdf: parameters)
            } throws: { error in
                (error as? BundleError)?.code == .kdfOutOfRange && (error as? BundleError)?.offset == offset
            }
        }
    }
}

/// A reader's memory budget (BUNDLE-30, issue 58): a file asking Argon2id for more than the budget
/// is refused by name, with the memory it asks for, before any key derivation.
@Suite("Encrypted bundles under a memory budget")
struct EnvelopeBudgetTests {
    /// A file asking 1,024 KiB, and budgets around it: whether it opens.
    static let budgets: [(budget: Int, opens: Bool)] = [
        (BundleEnvelope.maximumMemoryKiB, true), (1_024, true), (1_023, false), (64, false), (0, false),
    ]

    static func file() throws -> [UInt8] {
        try EnvelopeSealer.seal(
            Array(repeating: 5, count: 100), passphrase: "a passphrase",
            kdf: EnvelopeKDF(memoryKiB: 1_024, iterations: 1, parallelism: 1))
    }

    @Test("a file over the budget is refused with kdf_over_budget naming the memory", arguments: budgets)
    func budget(_ budget: Int, _ opens: Bool) throws {
        let file = try Self.file()
        var opener = EnvelopeOpener(secret: .passphrase("a passphrase"), memoryBudgetKiB: budget)
        do {
            let plain = try opener.open(file) + opener.finish()
            #expect(opens && plain == Array(repeating: 5, count: 100), "budget \(budget)")
        } catch {
            #expect(!opens && error.code == .kdfOverBudget && error.offset == 10 && error.rule == "BUNDLE-30")
            #expect(error.message.contains("1024 KiB") && error.message.contains("\(budget) KiB"), "\(error)")
            #expect(opener.kdf == nil, "nothing was derived")
        }
    }

    @Test("over the budget, a wrong passphrase is not found out: the budget comes before any derivation")
    func beforeAnyWork() throws {
        let file = try Self.file()
        let error = #expect(throws: BundleError.self) {
            _ = try BundleEnvelope.open(file, secret: .passphrase("not it"), memoryBudgetKiB: 512)
        }
        #expect(error?.code == .kdfOverBudget)
        let wrong = #expect(throws: BundleError.self) {
            _ = try BundleEnvelope.open(file, secret: .passphrase("not it"), memoryBudgetKiB: 1_024)
        }
        #expect(wrong?.code == .wrongPassphrase)
    }
}
