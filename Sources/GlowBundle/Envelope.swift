import Foundation
import GlowCore
import GlowCrypto

/// The encrypted form of a bundle (BUNDLE-29 ... BUNDLE-35): a header that carries the
/// key-derivation parameters, a per-file salt and the file key wrapped for a passphrase and,
/// optionally, a recovery key, closed by a MAC; then the bundle in 64 KiB chunks of AES-256-GCM,
/// each bound to the header and to its place, the last one marked.
///
/// ``EnvelopeSealer`` writes it and ``EnvelopeOpener`` reads it, both as streams holding at most
/// a chunk or two, so an encrypted bundle costs the memory a plain one does.
public enum BundleEnvelope {
    /// `89 47 4C 45 0D 0A 1A 0A`: a plain bundle's signature with `E` for `W` (BUNDLE-29).
    public static let magic: [UInt8] = [0x89, 0x47, 0x4C, 0x45, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The plaintext bytes of every chunk but the last (BUNDLE-33).
    public static let chunkSize = 65_536
    /// A stored chunk: its bytes and the 16-byte tag.
    static let sealedChunkSize = chunkSize + 16
    /// Magic, version, memory, iterations, lanes and salt: the bytes every stanza binds.
    static let prefixLength = 35
    /// A stanza: its kind and the sealed file key.
    static let stanzaLength = 49

    /// What a writer uses unless told otherwise: 64 MiB, 3 passes, 1 lane, a fraction of a
    /// second on a phone (BUNDLE-30).
    public static let defaultKDF = EnvelopeKDF(memoryKiB: 65_536, iterations: 3, parallelism: 1)
    /// The most memory a reader lets a file ask for, checked before any work (BUNDLE-30).
    public static let maximumMemoryKiB = 262_144
    /// The most passes a reader accepts (BUNDLE-30).
    public static let maximumIterations = 16
    /// The most lanes a reader accepts (BUNDLE-30).
    public static let maximumParallelism = 4

    /// The size of a sealed file holding `plaintext` bytes with `stanzas` ways in (1 or 2): the
    /// header and a 16-byte tag per chunk (at least one chunk).
    public static func sealedSize(of plaintext: Int, stanzas: Int) -> Int {
        36 + 49 * stanzas + 32 + plaintext + 16 * Swift.max(1, (plaintext + chunkSize - 1) / chunkSize)
    }

    /// The plain bytes of a whole sealed file, fed to an opener a chunk at a time; a file asking
    /// Argon2id for more than `memoryBudgetKiB` is refused before any work (BUNDLE-30).
    public static func open(
        _ file: [UInt8], secret: BundleSecret, memoryBudgetKiB: Int = BundleEnvelope.maximumMemoryKiB
    ) throws(BundleError) -> [UInt8] {
        var opener = EnvelopeOpener(secret: secret, memoryBudgetKiB: memoryBudgetKiB)
        var out: [UInt8] = []
        out.reserveCapacity(file.count)
        var start = 0
        while start < file.count {
            let end = Swift.min(file.count, start + sealedChunkSize)
            out += try opener.open(Array(file[start..<end]))
            start = end
        }
        out += try opener.finish()
        return out
    }

    /// Whether `head`, the first bytes of a file, begin an encrypted bundle.
    public static func isEncrypted(head: some Collection<UInt8>) -> Bool { head.starts(with: magic) }

    /// The kinds of stanza: how a secret reaches the file key (BUNDLE-31).
    public enum StanzaKind: UInt8, Hashable, Sendable {
        /// A way in for a passphrase, through Argon2id (BUNDLE-31).
        case passphrase = 1
        /// A way in for a recovery key (BUNDLE-35).
        case recoveryKey = 2

        /// As the corpus names it.
        public var name: String { self == .passphrase ? "passphrase" : "recoveryKey" }
    }

    /// The nonce of chunk `index`: the index as 11 big-endian bytes, then 1 for the last chunk.
    static func nonce(_ index: UInt64, last: Bool) -> [UInt8] {
        [0, 0, 0] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: index >> (8 * UInt64($0))) } + [last ? 1 : 0]
    }

    /// The header MAC's key and the payload's key, from the file key (BUNDLE-32, BUNDLE-33).
    static func keys(fileKey: [UInt8], salt: [UInt8]) -> (mac: [UInt8], payload: [UInt8]) {
        (
            Crypto.hkdfSHA256(secret: fileKey, salt: salt, info: Array("glow-bundle header".utf8), length: 32),
            Crypto.hkdfSHA256(secret: fileKey, salt: salt, info: Array("glow-bundle payload".utf8), length: 32)
        )
    }

    /// The key that wraps the file key for `secret` (BUNDLE-31): Argon2id of the passphrase's
    /// UTF-8 in NFC, or HKDF of the recovery key.
    static func wrapKey(_ secret: BundleSecret, salt: [UInt8], kdf: EnvelopeKDF) throws(BundleError) -> [UInt8] {
        switch secret {
        case .passphrase(let passphrase):
            let bytes = Array(passphrase.precomposedStringWithCanonicalMapping.utf8)
            do {
                return try Crypto.argon2id(
                    password: bytes, salt: salt, memoryKiB: kdf.memoryKiB, iterations: kdf.iterations,
                    parallelism: kdf.parallelism, tagLength: 32)
            } catch {
                throw BundleError(
                    .kdfFailed, .envelope, at: 10,
                    "the key derivation of \(kdf.memoryKiB) KiB could not run here: \(error.message)")
            }
        case .recoveryKey(let key):
            return Crypto.hkdfSHA256(
                secret: key.bytes, salt: salt, info: Array("glow-bundle recovery key".utf8), length: 32)
        }
    }
}

/// The cost of the one Argon2id derivation of an encrypted bundle (BUNDLE-30).
public struct EnvelopeKDF: Hashable, Sendable {
    /// Memory in KiB.
    public var memoryKiB: Int
    /// Passes over the memory.
    public var iterations: Int
    /// Lanes.
    public var parallelism: Int

    /// A cost; readers and writers check it against the caps of ``BundleEnvelope``.
    public init(memoryKiB: Int, iterations: Int, parallelism: Int) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
    }
}

/// What opens an encrypted bundle: its passphrase or its recovery key.
public enum BundleSecret: Sendable {
    /// A passphrase as the person typed it.
    case passphrase(String)
    /// A recovery key, from its words.
    case recoveryKey(RecoveryKey)

    /// One secret as a person gave it, classed by its shape (BUNDLE-35): text with at least 17
    /// parts that are recovery-key words (in full, or beginning with a word's first four letters)
    /// was meant as a recovery key and is read as one; anything else is a passphrase.
    ///
    /// - Throws: ``BundleError/Code/invalidRecoveryKey`` for text meant as a recovery key that is
    ///   not one (33 words, a mistyped word, words by five letters, a wrong checksum word), so a
    ///   slip in the words is never reported as a wrong passphrase.
    public init(typed text: String) throws(BundleError) {
        guard RecoveryKey.isMeantAsKey(text) else {
            self = .passphrase(text)
            return
        }
        self = .recoveryKey(try RecoveryKey(words: text))
    }
}

/// A recovery key: 256 random bits, written as 34 words, 32 for its bytes and 2 of checksum, from
/// the 256 words of `Spec/recovery-words.txt` (BUNDLE-35).
public struct RecoveryKey: Hashable, Sendable {
    /// The key's 32 bytes.
    public let bytes: [UInt8]

    /// A key of these bytes.
    ///
    /// - Precondition: there are 32.
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 32, "a recovery key has 32 bytes")
        self.bytes = bytes
    }

    /// A new key from the system's secure generator.
    public static func random() -> RecoveryKey { RecoveryKey(bytes: Crypto.randomBytes(32)) }

    /// The key's words: a word per byte, then two for the first two bytes of its SHA-256.
    public var words: [String] {
        (bytes + Crypto.sha256(bytes).prefix(2)).map { Self.wordList[Int($0)] }
    }

    /// The key of `words` as ``words`` gives them (each may be in any case, or shortened to its
    /// first four letters): the same key in and out.
    ///
    /// - Throws: ``BundleError/Code/invalidRecoveryKey``, as the words in one text do.
    public init(words: [String]) throws(BundleError) {
        try self.init(words: words.joined(separator: " "))
    }

    /// The key the words write, in any case, separated by white space or hyphens; each word may
    /// be shortened to its first four letters, which no two words share.
    ///
    /// - Throws: ``BundleError/Code/invalidRecoveryKey`` naming the first word that is not on the
    ///   list, a count other than 34, or a checksum that does not match.
    public init(words text: String) throws(BundleError) {
        let given = Self.parts(text)
        var values: [UInt8] = []
        for (position, word) in given.enumerated() {
            guard let value = Self.index[word] ?? (word.utf8.count == 4 ? Self.prefixIndex[word] : nil) else {
                throw BundleError(
                    .invalidRecoveryKey, .envelope, at: 0,
                    "word \(position + 1), '\(word)', is neither a recovery-key word nor a word's first four letters",
                    rule: "BUNDLE-35")
            }
            values.append(value)
        }
        guard values.count == 34 else {
            throw BundleError(
                .invalidRecoveryKey, .envelope, at: 0, "a recovery key has 34 words, not \(values.count)",
                rule: "BUNDLE-35")
        }
        let key = Array(values.prefix(32))
        guard Array(Crypto.sha256(key).prefix(2)) == Array(values.suffix(2)) else {
            throw BundleError(
                .invalidRecoveryKey, .envelope, at: 0,
                "the last two words do not match the others: a word was mistyped or left out", rule: "BUNDLE-35")
        }
        self.init(bytes: key)
    }

    /// The fewest parts that look like words for text to be taken as a recovery key: half a key
    /// (BUNDLE-35).
    public static let wordsMeaningKey = 17

    /// Whether `text` was meant as a recovery key rather than a passphrase (BUNDLE-35): at least
    /// ``wordsMeaningKey`` of its parts are words of the list in full or begin with a word's first
    /// four letters, whatever their number, their checksum or the other parts.
    public static func isMeantAsKey(_ text: String) -> Bool {
        parts(text).count(where: looksLikeWord) >= wordsMeaningKey
    }

    /// A word of the list in full, or four or more letters whose first four are a word's.
    private static func looksLikeWord(_ part: String) -> Bool {
        guard index[part] == nil else { return true }
        let scalars = part.unicodeScalars
        guard scalars.count >= 4, scalars.prefix(4).allSatisfy(\.isASCII) else { return false }
        return prefixIndex[String(String.UnicodeScalarView(scalars.prefix(4)))] != nil
    }

    /// The parts of `text` between separators (BUNDLE-35): runs of white space (the Unicode
    /// `White_Space` property, scalar by scalar) and hyphens, with `A` ... `Z` lowered to `a` ...
    /// `z` and every other scalar kept as it is (the list is ASCII, so no other case folds to it).
    static func parts(_ text: String) -> [String] {
        var parts: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace || scalar == "-" {
                if !current.isEmpty { parts.append(String(current)) }
                current = String.UnicodeScalarView()
            } else {
                current.append(("A"..."Z").contains(scalar) ? Unicode.Scalar(UInt8(scalar.value) + 0x20) : scalar)
            }
        }
        if !current.isEmpty { parts.append(String(current)) }
        return parts
    }

    /// The 256 words, in byte order (`Spec/recovery-words.txt`, which a test compares).
    public static let wordList: [String] = """
        acorn agent alarm album alley amber angle ankle apple apron arch arena arrow aspen atlas attic
        autumn award bacon badge bagel baker balloon bamboo banjo barn basil basket beach bench berry bicycle
        bison blanket blaze blossom blue boat bonnet border bottle boulder bracket branch bread breeze brick
        bridge brook brush bucket buffalo bugle bunny butter cabin cactus camel candle canoe canvas canyon carpet
        carrot castle cedar cello chalk cherry chess chimney cider circle citrus clover cobalt cocoa comet copper
        coral cotton cousin crane crayon cricket crystal cupcake curtain cypress daisy dancer delta desert diamond
        dolphin dragon drum eagle easel echo elbow ember engine falcon feather fennel ferry fiddle finch flame
        flute forest fossil fountain fox galaxy garden garlic gecko ginger glacier globe goose grape gravel guitar
        hammock harbor harvest hazel heron hiker honey horizon husky igloo island ivory jacket jaguar jasmine jelly
        jigsaw juniper kayak kernel kettle kiwi koala ladder lagoon lantern laurel lemon lilac linen lizard lobster
        lotus magnet mango maple marble meadow melon mitten monkey mosaic muffin napkin nectar needle nest noodle
        oasis ocean olive onion orbit orchid otter owl paddle palace panda papaya parrot pasta peach pebble pelican
        pepper piano pickle pillow pine planet plum pocket pony poppy puzzle quartz quill rabbit radish rainbow
        raven reef ribbon river robin rocket saddle salmon sandal scarf shell silver sketch sled sparrow spider
        spruce squash stable summit sunset swan tablet tandem teapot thimble thistle thunder tiger timber tomato
        topaz tractor trumpet tulip tunnel turtle umbrella valley velvet violin walnut walrus willow window wizard
        yogurt zebra zipper
        """.split(whereSeparator: \.isWhitespace).map(String.init)

    private static let index = Dictionary(uniqueKeysWithValues: wordList.enumerated().map { ($1, UInt8($0)) })
    private static let prefixIndex = Dictionary(
        uniqueKeysWithValues: wordList.enumerated().map { (String($1.prefix(4)), UInt8($0)) })
}

/// Writes an encrypted bundle as a stream (BUNDLE-29 ... BUNDLE-33): give it the plain bundle's
/// bytes in any pieces and write out what each call returns; the last piece comes from
/// ``finish()``. Holds at most one chunk of plaintext.
public struct EnvelopeSealer: Sendable {
    /// The header, which the first call returns ahead of any chunk.
    public let header: [UInt8]
    private let payloadKey: [UInt8]
    private let headerMAC: [UInt8]
    private var pending: [UInt8] = []
    private var index: UInt64 = 0
    private var headerWritten = false
    private var finished = false

    /// A sealer for `passphrase`, with a way in for `recoveryKey` too when given; a new salt and
    /// file key from the system's secure generator.
    ///
    /// - Throws: ``BundleError/Code/kdfOutOfRange`` for parameters beyond the caps readers accept.
    public init(passphrase: String, recoveryKey: RecoveryKey? = nil, kdf: EnvelopeKDF = BundleEnvelope.defaultKDF)
        throws(BundleError)
    {
        try self.init(
            passphrase: passphrase, recoveryKey: recoveryKey, kdf: kdf, salt: Crypto.randomBytes(16),
            fileKey: Crypto.randomBytes(32))
    }

    /// A sealer with a given salt and file key: for test vectors, which must come out byte for byte.
    package init(
        passphrase: String, recoveryKey: RecoveryKey?, kdf: EnvelopeKDF, salt: [UInt8], fileKey: [UInt8]
    ) throws(BundleError) {
        precondition(salt.count == 16 && fileKey.count == 32, "a salt of 16 bytes and a file key of 32")
        try EnvelopeOpener.checkCaps(kdf, at: 10)
        var prefix = BundleEnvelope.magic + [1, 0]
        for value in [kdf.memoryKiB, kdf.iterations] {
            prefix += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        prefix += [UInt8(kdf.parallelism)] + salt
        var secrets: [(BundleEnvelope.StanzaKind, BundleSecret)] = [(.passphrase, .passphrase(passphrase))]
        if let recoveryKey { secrets.append((.recoveryKey, .recoveryKey(recoveryKey))) }
        var header = prefix + [UInt8(secrets.count)]
        for (kind, secret) in secrets {
            let wrapKey = try BundleEnvelope.wrapKey(secret, salt: salt, kdf: kdf)
            header += [kind.rawValue]
            header += Crypto.aes256GCMSeal(
                key: wrapKey, nonce: [UInt8](repeating: 0, count: 12), plaintext: fileKey,
                associated: prefix + [kind.rawValue])
        }
        let keys = BundleEnvelope.keys(fileKey: fileKey, salt: salt)
        headerMAC = Crypto.hmacSHA256(key: keys.mac, message: header)
        self.header = header + headerMAC
        payloadKey = keys.payload
    }

    /// Takes more of the plain bundle; returns the encrypted bytes ready to write (the header
    /// first, then every chunk that is known not to be the last).
    public mutating func seal(_ bytes: [UInt8]) throws(BundleError) -> [UInt8] {
        precondition(!finished, "the sealer was finished")
        var out = takeHeader()
        pending += bytes
        var start = 0
        // A full chunk is sealed only once a byte after it is known: only then is it not the last.
        while pending.count - start > BundleEnvelope.chunkSize {
            out += try sealChunk(Array(pending[start..<start + BundleEnvelope.chunkSize]), last: false)
            start += BundleEnvelope.chunkSize
        }
        if start > 0 { pending.removeFirst(start) }
        return out
    }

    /// The last chunk (and the header, for an empty bundle): the end of the file.
    public mutating func finish() throws(BundleError) -> [UInt8] {
        precondition(!finished, "the sealer was finished")
        var out = takeHeader()
        out += try sealChunk(pending, last: true)
        pending = []
        finished = true
        return out
    }

    /// A whole bundle sealed at once, fed in chunks so the sealer holds one at a time.
    public static func seal(
        _ bundle: [UInt8], passphrase: String, recoveryKey: RecoveryKey? = nil,
        kdf: EnvelopeKDF = BundleEnvelope.defaultKDF
    ) throws(BundleError) -> [UInt8] {
        var sealer = try EnvelopeSealer(passphrase: passphrase, recoveryKey: recoveryKey, kdf: kdf)
        var out: [UInt8] = []
        out.reserveCapacity(BundleEnvelope.sealedSize(of: bundle.count, stanzas: recoveryKey == nil ? 1 : 2))
        var start = 0
        while start < bundle.count {
            let end = Swift.min(bundle.count, start + BundleEnvelope.chunkSize)
            out += try sealer.seal(Array(bundle[start..<end]))
            start = end
        }
        out += try sealer.finish()
        return out
    }

    private mutating func takeHeader() -> [UInt8] {
        guard !headerWritten else { return [] }
        headerWritten = true
        return header
    }

    private mutating func sealChunk(_ plaintext: [UInt8], last: Bool) throws(BundleError) -> [UInt8] {
        defer { index += 1 }
        return Crypto.aes256GCMSeal(
            key: payloadKey, nonce: BundleEnvelope.nonce(index, last: last), plaintext: plaintext,
            associated: headerMAC)
    }
}

/// Reads an encrypted bundle as a stream (BUNDLE-34): give it the file's bytes in any pieces; each
/// call returns the plain bundle's bytes of the chunks authenticated so far, and ``finish()``
/// those of the last chunk, or the error that says the file was cut or changed. Nothing is given
/// out before its chunk authenticates; holds at most two chunks.
public struct EnvelopeOpener: Sendable {
    /// The key-derivation parameters, once the header is read.
    public private(set) var kdf: EnvelopeKDF?
    /// The ways in the file has, once the header is read.
    public private(set) var stanzas: [BundleEnvelope.StanzaKind] = []
    /// The most memory the key derivation may ask for here, in KiB (BUNDLE-30).
    public let memoryBudgetKiB: Int
    private let secret: BundleSecret
    private var buffer: [UInt8] = []
    /// The file offset of `buffer`'s first byte.
    private var offset = 0
    private var payloadKey: [UInt8]?
    private var headerMAC: [UInt8] = []
    private var index: UInt64 = 0
    private var finished = false

    /// An opener for `secret` that lets a file ask Argon2id for at most `memoryBudgetKiB` of memory
    /// (BUNDLE-30): the cap by default; less in a process that has less to give (a share
    /// extension, a watch app), where a file asking more is refused before any work with
    /// `kdf_over_budget`.
    public init(secret: BundleSecret, memoryBudgetKiB: Int = BundleEnvelope.maximumMemoryKiB) {
        self.secret = secret
        self.memoryBudgetKiB = memoryBudgetKiB
    }

    /// Takes more of the file; returns the plaintext of every chunk now authenticated.
    public mutating func open(_ bytes: [UInt8]) throws(BundleError) -> [UInt8] {
        precondition(!finished, "the opener was finished")
        buffer += bytes
        if payloadKey == nil {
            guard try readHeader(atEnd: false) else { return [] }
        }
        var out: [UInt8] = []
        var start = 0
        // A stored chunk followed by more bytes is not the last.
        while buffer.count - start > BundleEnvelope.sealedChunkSize {
            out += try openChunk(
                Array(buffer[start..<start + BundleEnvelope.sealedChunkSize]), at: offset + start, last: false)
            start += BundleEnvelope.sealedChunkSize
        }
        if start > 0 {
            buffer.removeFirst(start)
            offset += start
        }
        return out
    }

    /// The end of the file: the last chunk's plaintext, or why the file is not whole.
    public mutating func finish() throws(BundleError) -> [UInt8] {
        precondition(!finished, "the opener was finished")
        finished = true
        if payloadKey == nil { _ = try readHeader(atEnd: true) }
        let end = offset + buffer.count
        guard buffer.count >= 16 else {
            throw BundleError(
                .truncated, .envelope, at: end,
                "the file ends \(buffer.isEmpty ? "before its last chunk" : "inside its last chunk")",
                rule: "BUNDLE-34")
        }
        let nonce = BundleEnvelope.nonce(index, last: true)
        if let plaintext = open(buffer, nonce: nonce) {
            // Empty only for an empty bundle: no writer ends full chunks with an empty one (BUNDLE-33).
            guard !plaintext.isEmpty || index == 0 else {
                throw BundleError(
                    .chunkTampered, .envelope, at: offset,
                    "chunk \(index), the last, is empty after full chunks, which no writer writes: "
                        + "the file was not written by a Glow writer as it stands",
                    rule: "BUNDLE-33")
            }
            return plaintext
        }
        // A whole chunk that opens as one with more after it: the file was cut at a chunk's end.
        if buffer.count == BundleEnvelope.sealedChunkSize,
            open(buffer, nonce: BundleEnvelope.nonce(index, last: false)) != nil
        {
            throw BundleError(
                .truncated, .envelope, at: end,
                "the file ends after chunk \(index) (counted from 0), which is not the last",
                rule: "BUNDLE-34")
        }
        throw BundleError(
            .chunkTampered, .envelope, at: offset,
            "chunk \(index) (counted from 0), the last, does not authenticate: the file was changed or cut",
            rule: "BUNDLE-33")
    }

    /// The caps of BUNDLE-30, checked before any work.
    static func checkCaps(_ kdf: EnvelopeKDF, at offset: Int) throws(BundleError) {
        let (m, t, p) = (kdf.memoryKiB, kdf.iterations, kdf.parallelism)
        guard (1...BundleEnvelope.maximumParallelism).contains(p) else {
            throw BundleError(
                .kdfOutOfRange, .envelope, at: offset + 8,
                "\(p) lanes; a reader accepts 1 to \(BundleEnvelope.maximumParallelism)",
                rule: "BUNDLE-30")
        }
        guard m >= 8 * p, m <= BundleEnvelope.maximumMemoryKiB else {
            throw BundleError(
                .kdfOutOfRange, .envelope, at: offset,
                "\(m) KiB of memory; a reader accepts \(8 * p) to \(BundleEnvelope.maximumMemoryKiB)", rule: "BUNDLE-30"
            )
        }
        guard (1...BundleEnvelope.maximumIterations).contains(t) else {
            throw BundleError(
                .kdfOutOfRange, .envelope, at: offset + 4,
                "\(t) passes; a reader accepts 1 to \(BundleEnvelope.maximumIterations)", rule: "BUNDLE-30")
        }
    }

    /// Reads the header once enough of it is here: true when done, false when more bytes are
    /// needed (an error at the end of the file).
    private mutating func readHeader(atEnd: Bool) throws(BundleError) -> Bool {
        func truncated() -> BundleError {
            BundleError(.truncated, .envelope, at: buffer.count, "the file ends inside its header", rule: "BUNDLE-29")
        }
        let magic = BundleEnvelope.magic
        guard !(atEnd && buffer.isEmpty), buffer.starts(with: magic.prefix(Swift.min(buffer.count, magic.count))) else {
            throw BundleError(
                .badMagic, .envelope, at: 0,
                "not an encrypted bundle: \(BundleHeader.diagnose(buffer))", rule: "BUNDLE-29")
        }
        guard buffer.count >= BundleEnvelope.prefixLength + 1 else {
            if atEnd { throw truncated() }
            return false
        }
        // The whole header is here before any of its fields is judged: a file cut inside it is
        // truncated whatever its fields say (BUNDLE-29). A count that is not 1 or 2 gives no
        // length, and is judged on the 36 bytes there are.
        let count = Int(buffer[35])
        let macAt = 36 + ((1...2).contains(count) ? count : 0) * BundleEnvelope.stanzaLength
        let headerLength = (1...2).contains(count) ? macAt + 32 : 36
        guard buffer.count >= headerLength else {
            if atEnd { throw truncated() }
            return false
        }
        let version = Int(buffer[8]) | Int(buffer[9]) << 8
        guard version == 1 else {
            throw BundleError(
                .unsupportedVersion, .envelope, at: 8, "encryption format \(version); this reader knows 1",
                rule: "BUNDLE-29")
        }
        func word(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(buffer[at + $1]) << (8 * $1) } }
        let parameters = EnvelopeKDF(memoryKiB: word(10), iterations: word(14), parallelism: Int(buffer[18]))
        try Self.checkCaps(parameters, at: 10)
        // BUNDLE-30: within the caps, a reader's own budget, before anything is derived.
        guard parameters.memoryKiB <= memoryBudgetKiB else {
            throw BundleError(
                .kdfOverBudget, .envelope, at: 10,
                "the file asks Argon2id for \(parameters.memoryKiB) KiB of memory; this reader's budget is "
                    + "\(memoryBudgetKiB) KiB: open it where more memory can be given", rule: "BUNDLE-30")
        }
        guard (1...2).contains(count) else {
            throw BundleError(
                .malformedHeader, .envelope, at: 35, "\(count) stanzas; a file has 1 or 2", rule: "BUNDLE-31")
        }
        var kinds: [BundleEnvelope.StanzaKind] = []
        for number in 0..<count {
            let at = 36 + number * BundleEnvelope.stanzaLength
            guard let kind = BundleEnvelope.StanzaKind(rawValue: buffer[at]),
                kinds.last.map({ $0.rawValue < kind.rawValue }) ?? true
            else {
                throw BundleError(
                    .malformedHeader, .envelope, at: at,
                    "stanza \(number) (counted from 0) is of kind \(buffer[at]): kinds are 1 then 2, each at most once",
                    rule: "BUNDLE-31")
            }
            kinds.append(kind)
        }
        kdf = parameters
        stanzas = kinds
        let salt = Array(buffer[19..<35])
        let wanted: BundleEnvelope.StanzaKind
        if case .passphrase = secret { wanted = .passphrase } else { wanted = .recoveryKey }
        guard let position = kinds.firstIndex(of: wanted) else {
            throw BundleError(
                .noSuchKey, .envelope, at: 35,
                wanted == .recoveryKey ? "this file was written without a recovery key" : "this file has no passphrase",
                rule: "BUNDLE-34")
        }
        // The one key derivation.
        let wrapKey = try BundleEnvelope.wrapKey(secret, salt: salt, kdf: parameters)
        let at = 36 + position * BundleEnvelope.stanzaLength
        let fileKey = Crypto.aes256GCMOpen(
            key: wrapKey, nonce: [UInt8](repeating: 0, count: 12), sealed: Array(buffer[at + 1..<at + 49]),
            associated: Array(buffer[0..<BundleEnvelope.prefixLength]) + [wanted.rawValue])
        guard let fileKey else {
            throw wanted == .passphrase
                ? BundleError(
                    .wrongPassphrase, .envelope, at: at,
                    "the passphrase does not open this file; either it is not the file's passphrase, or the "
                        + "header's salt or key-derivation parameters (bytes 10 to 34) were changed",
                    rule: "BUNDLE-34")
                : BundleError(
                    .wrongRecoveryKey, .envelope, at: at,
                    "the recovery key does not open this file; either it is not the file's recovery key, or the "
                        + "header's salt or key-derivation parameters (bytes 10 to 34) were changed",
                    rule: "BUNDLE-34")
        }
        let keys = BundleEnvelope.keys(fileKey: fileKey, salt: salt)
        let mac = Array(buffer[macAt..<macAt + 32])
        guard Crypto.constantTimeEqual(Crypto.hmacSHA256(key: keys.mac, message: Array(buffer[0..<macAt])), mac) else {
            throw BundleError(
                .headerTampered, .envelope, at: macAt, "the header's MAC does not match: the header was changed",
                rule: "BUNDLE-32")
        }
        headerMAC = mac
        payloadKey = keys.payload
        buffer.removeFirst(macAt + 32)
        offset = macAt + 32
        return true
    }

    private mutating func openChunk(_ sealed: [UInt8], at position: Int, last: Bool) throws(BundleError) -> [UInt8] {
        guard let plaintext = open(sealed, nonce: BundleEnvelope.nonce(index, last: last)) else {
            throw BundleError(
                .chunkTampered, .envelope, at: position,
                "chunk \(index) (counted from 0) does not authenticate: it was changed, moved, or comes from another file",
                rule: "BUNDLE-33")
        }
        index += 1
        return plaintext
    }

    /// A chunk opened under the payload key and bound to the header MAC (BUNDLE-33), or nil.
    private func open(_ sealed: [UInt8], nonce: [UInt8]) -> [UInt8]? {
        Crypto.aes256GCMOpen(key: payloadKey!, nonce: nonce, sealed: sealed, associated: headerMAC)
    }
}
