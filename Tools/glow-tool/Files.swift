import Foundation
import GlowBundle
import GlowFeed
import GlowModel
import GlowStorage
import GlowWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failure that is the data's fault, not the command line's: exit code 1.
struct DataFailure: Error, CustomStringConvertible {
    let message: String
    /// The bundle's or envelope's own error, when that is what failed (for `verify --json`).
    var bundleError: BundleError? = nil

    var description: String { message }
}

/// Reading inputs and writing outputs; `-` is standard input or output.
///
/// Every input is checked before it is read: a missing file, a directory, an unreadable file and a
/// file larger than the command's limit each get a sentence, never a trap. Every output is written
/// whole or not at all: to a temporary file in the same folder, flushed, then moved over the
/// target with `rename(2)`, so the target is either the old file or the new one, even when it is
/// also the input or the run is killed.
enum Files {
    /// The largest JSON data set read (it is read whole): 1 GiB, as a bundle.
    static let maxJSONSize = BundleLimits.default.maxBundleSize
    /// The largest input `decode-raw` reads: a message's limit, twice over for hex text.
    static let maxRawSize = 2 * WireLimits.default.maxMessageSize + (1 << 20)

    // MARK: Reading

    /// An input opened for reading: its descriptor (closed when this is freed, unless it is
    /// standard input) and, for a regular file, its size.
    final class Input {
        let descriptor: Int32
        let size: Int?
        let name: String
        private let owned: Bool

        init(descriptor: Int32, size: Int?, name: String, owned: Bool) {
            self.descriptor = descriptor
            self.size = size
            self.name = name
            self.owned = owned
        }

        deinit { if owned { close(descriptor) } }
    }

    /// Opens an input, `-` being standard input; every failure is the system's own reason (no
    /// such file, permission denied, too many levels of symbolic links, a closed standard input).
    private static func open(_ path: String) throws -> Input {
        let name = path == "-" ? "standard input" : "'\(path)'"
        let descriptor = path == "-" ? STDIN_FILENO : Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw DataFailure(message: "cannot read \(name): \(FileSystem.reason())") }
        var info = stat()
        let found = fstat(descriptor, &info) == 0
        let failure = found ? nil : FileSystem.reason()
        // Devices and pipes (/dev/null, /dev/stdin) have no size: they are read as streams.
        let size = found && info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : nil
        let input = Input(descriptor: descriptor, size: size, name: name, owned: path != "-")
        if let failure { throw DataFailure(message: "cannot read \(name): \(failure)") }
        if info.st_mode & S_IFMT == S_IFDIR {
            throw DataFailure(message: "cannot read \(name): it is a directory, not a file")
        }
        return input
    }

    /// The next chunk of up to 64 KiB, nil at the end; a read error is a ``DataFailure``.
    private static func nextChunk(_ input: Input, _ path: String) throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(input.descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw DataFailure(message: "cannot read \(input.name): \(FileSystem.reason())") }
            guard count > 0 else { return nil }
            chunk.removeLast(chunk.count - count)
            return chunk
        }
    }

    /// Reads a bundle as a stream with `body`, which gets the source of chunks; a read error is
    /// reported as itself, not as the truncated bundle it leaves behind.
    ///
    /// An encrypted bundle (BUNDLE-29) is opened with the run's secret on the way: `body` gets the
    /// plain bundle chunk by chunk, each after it authenticated, and whatever `body` made is
    /// returned only once the whole file has authenticated, to its last chunk (BUNDLE-34).
    static func streaming<T>(_ path: String, secrets: Secrets, _ body: (() -> [UInt8]?) throws -> T) throws -> T {
        let handle = try open(path)
        var failure: (any Error)?
        // Enough bytes to tell an encrypted bundle by its magic, however a pipe delivers them.
        var first = try nextChunk(handle, path)
        while let head = first, head.count < BundleEnvelope.magic.count, let more = try nextChunk(handle, path) {
            first = head + more
        }
        var opener: EnvelopeOpener?
        // A file that begins `\x89GLE` (which no plain bundle begins with) is judged as an encrypted
        // bundle (BUNDLE-29): one whose signature is cut or changed after those four bytes is
        // refused as the envelope refuses it, and no secret is asked for a file that cannot open.
        if let head = first, head.starts(with: BundleEnvelope.magic.prefix(4)),
            !BundleEnvelope.isEncrypted(head: head)
        {
            // The opener refuses a header it does not hold whole before it would use the secret.
            var probe = EnvelopeOpener(secret: .passphrase(""))
            do {
                _ = try probe.open(head)
                _ = try probe.finish()
            } catch { throw DataFailure(message: "\(path): \(error)", bundleError: error) }
        }
        if let head = first, BundleEnvelope.isEncrypted(head: head) {
            opener = EnvelopeOpener(secret: try secrets.secret(for: path))
        }
        var ended = false
        /// The next chunk of the file as it is.
        func raw() throws -> [UInt8]? {
            if let chunk = first {
                first = nil
                return chunk
            }
            return try nextChunk(handle, path)
        }
        /// The next chunk of the plain bundle: the file's, or what the opener authenticated.
        func plain() throws -> [UInt8]? {
            guard opener != nil else { return try raw() }
            while !ended {
                if let chunk = try raw() {
                    let opened = try opener!.open(chunk)
                    if !opened.isEmpty { return opened }
                } else {
                    ended = true
                    let last = try opener!.finish()
                    if !last.isEmpty { return last }
                }
            }
            return nil
        }
        let source: () -> [UInt8]? = {
            guard failure == nil else { return nil }
            do { return try plain() } catch {
                failure = error
                return nil
            }
        }
        func reported(_ error: any Error) -> any Error {
            if let error = error as? BundleError {
                return DataFailure(message: "\(path): \(error)", bundleError: error)
            }
            return error
        }
        do {
            let result = try body(source)
            // The reader may stop at the bundle's end: the rest of the file must still authenticate.
            while failure == nil, opener != nil, !ended { _ = source() }
            if let failure { throw reported(failure) }
            return result
        } catch {
            // The envelope's error comes before the bundle's (BUNDLE-34): a bundle refused inside a
            // file that was cut or changed is reported as the cut or the change, so the rest of the
            // file is read through the opener first.
            while failure == nil, opener != nil, !ended { _ = source() }
            if let failure { throw reported(failure) }
            throw error
        }
    }

    /// The refusal of a file that is neither a bundle nor a JSON data set, naming its first byte.
    static func notDataSet(_ path: String, _ head: [UInt8]) -> DataFailure {
        let first = head.first.map { String(format: "0x%02X", $0) } ?? "nothing"
        return DataFailure(
            message: "'\(path)' is neither a bundle nor a JSON data set: it begins with \(first), "
                + "where a bundle begins with 0x89 and a JSON data set with '{'")
    }

    /// The whole of `path`, refused before reading when it is larger than `limit` bytes (or,
    /// for a stream, as soon as it passes the limit); `head`, when given, checks the first chunk
    /// and names what is wrong with it, so a file of the wrong kind is refused at once.
    static func read(
        _ path: String, limit: Int, what: String, head: (([UInt8]) -> DataFailure?)? = nil
    ) throws -> [UInt8] {
        let handle = try open(path)
        let size = handle.size
        if let size, size > limit {
            throw DataFailure(message: "'\(path)' is \(size) bytes; \(what) is read whole, up to \(limit) bytes")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size ?? 0)
        while let chunk = try nextChunk(handle, path) {
            if bytes.isEmpty, let head, let failure = head(chunk) { throw failure }
            bytes += chunk
            guard bytes.count <= limit else {
                throw DataFailure(message: "'\(path)' is larger than \(limit) bytes; \(what) is read whole, up to that")
            }
        }
        return bytes
    }

    /// The format an output path asks for.
    static func format(forOutput path: String, explicit: Format?) throws -> Format {
        if let format = explicit ?? Format(fileName: path) { return format }
        throw UsageErrorInRun(message: "cannot tell the format of '\(path)'; name it .glow or .json, or give --to")
    }

    /// Loads a data set from a bundle, streamed frame by frame, or a JSON data set.
    static func dataSet(_ path: String, secrets: Secrets) throws -> DataSet {
        try contents(path, secrets: secrets).data
    }

    /// Loads a data set and, from a bundle that carries it, the person's social data (BUNDLE-27).
    static func contents(_ path: String, secrets: Secrets) throws -> (data: DataSet, social: SocialData?) {
        try streaming(path, secrets: secrets) { next in
            guard let first = next() else { return (try dataSet([], name: path), nil) }
            guard let format = Format(head: first) else { throw notDataSet(path, first) }
            guard format == .bundle else {
                // JSON is read whole: the rest of the stream, up to the limit.
                var bytes = first
                while let chunk = next() {
                    bytes += chunk
                    guard bytes.count <= maxJSONSize else {
                        throw DataFailure(message: "'\(path)' is larger than \(maxJSONSize) bytes of JSON")
                    }
                }
                return (try dataSet(bytes, name: path), nil)
            }
            var pending: [UInt8]? = first
            let source: () -> [UInt8]? = {
                defer { pending = nil }
                return pending ?? next()
            }
            do {
                let contents = try BundleReader().contents(reading: source)
                return (contents.data, contents.social)
            } catch {
                throw DataFailure(message: "\(path): \(error)")
            }
        }
    }

    /// Decodes a data set from the bytes of a bundle or a JSON data set.
    static func dataSet(_ bytes: [UInt8], name path: String) throws -> DataSet {
        guard !bytes.isEmpty else {
            throw DataFailure(message: "'\(path)' is empty: neither a bundle nor a JSON data set")
        }
        guard let format = Format(head: bytes) else { throw notDataSet(path, bytes) }
        switch format {
        case .bundle:
            do {
                return try BundleReader().dataSet(bytes).0
            } catch {
                throw DataFailure(message: "\(path): \(error)")
            }
        case .json:
            do {
                return try GlowJSON.decode(DataSet.self, from: Data(bytes))
            } catch {
                throw DataFailure(message: "\(path): \(error)")
            }
        }
    }

    /// The bytes of `data` in `format`.
    static func encode(
        _ data: DataSet, social: SocialData? = nil, as format: Format, level: Int, createdAt: Instant = .now
    ) throws -> [UInt8] {
        switch format {
        case .bundle:
            return BundleWriter.bundle(data, social: social, options: BundleOptions(level: level, createdAt: createdAt))
        case .json:
            if social != nil {
                FileHandle.standardError.write(
                    Data("glow-tool: warning: a JSON data set has no place for social data; it was left out\n".utf8))
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            return Array(try encoder.encode(data)) + [0x0A]
        }
    }

    // MARK: Writing

    /// Whether two paths name one existing file (the same device and inode), links included.
    static func isSameFile(_ first: String, _ second: String) -> Bool {
        guard first != "-", second != "-" else { return false }
        var a = stat()
        var b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// Writes a bundle's `bytes` as ``write(_:to:)`` does, sealed first when the run asks for an
    /// encrypted output (BUNDLE-29 ... BUNDLE-33); a new recovery key's words go to standard
    /// error once the file is written.
    static func writeBundle(_ bytes: [UInt8], to path: String, format: Format, secrets: Secrets) throws {
        guard secrets.options.encrypt else { return try write(bytes, to: path) }
        guard format == .bundle else {
            throw UsageErrorInRun(message: "only a bundle can be encrypted; '\(path)' would be JSON")
        }
        guard case .passphrase(let passphrase) = try secrets.secret(for: path, writing: true) else {
            throw DataFailure(message: "a recovery key opens files; encrypting one takes a passphrase")
        }
        guard passphrase.count >= 8 else {
            throw DataFailure(
                message: "a passphrase of \(passphrase.count) characters is too easy to guess; use at least 8")
        }
        let recovery = secrets.options.recoveryKey ? RecoveryKey.random() : nil
        do {
            try write(try EnvelopeSealer.seal(bytes, passphrase: passphrase, recoveryKey: recovery), to: path)
        } catch let error as BundleError {
            throw DataFailure(message: "cannot encrypt '\(path)': \(error)")
        }
        if let recovery {
            FileHandle.standardError.write(
                Data(
                    ("glow-tool: the recovery key of \(path == "-" ? "standard output" : "'\(path)'"), which opens it "
                        + "if the passphrase is lost (write it down; it is shown once):\n"
                        + recovery.words.joined(separator: " ") + "\n").utf8))
        }
    }

    /// Writes `bytes` whole or not at all (the library's ``AtomicFile``); `-` is standard output,
    /// where a closed pipe or a full device is a failure with a message, never a crash.
    static func write(_ bytes: [UInt8], to path: String) throws {
        do {
            if path == "-" {
                try AtomicFile.writeAll(bytes, to: STDOUT_FILENO, path: "standard output")
            } else {
                try AtomicFile.write(bytes, to: path)
            }
        } catch {
            throw DataFailure(
                message: "cannot write \(path == "-" ? "standard output" : "'\(path)'"): \(error.message)")
        }
    }
}

/// A usage mistake found only while running (an output name without a known extension): exit 64.
struct UsageErrorInRun: Error {
    let message: String
}

/// The Day `--day` names (YYYY-MM-DD), or nil when it was not given; a Day that does not read
/// is a usage error.
func parseDay(_ text: String?) throws -> Day? {
    guard let text else { return nil }
    do { return try Day(iso: text) } catch { throw UsageErrorInRun(message: "--day: \(error.message)") }
}

/// The secret of a run (``SecretOptions``), read once however many files need it: from the
/// environment variable or the descriptor the options name, or typed at the terminal without
/// echo. A recovery key's 34 words are taken as the recovery key, anything else as a passphrase.
final class Secrets {
    let options: SecretOptions
    private var text: String?

    init(_ options: SecretOptions) { self.options = options }

    /// The secret that opens (or, `writing`, seals) `path`.
    func secret(for path: String, writing: Bool = false) throws -> BundleSecret {
        let text = try self.text(for: path, writing: writing)
        // Text meant as a recovery key is read as one, and a slip in it is reported as such, never
        // as a wrong passphrase (BUNDLE-35).
        do { return try BundleSecret(typed: text) } catch {
            throw DataFailure(
                message: "the recovery key for '\(path)' is not right: \(error.message)", bundleError: error)
        }
    }

    private func text(for path: String, writing: Bool) throws -> String {
        if let text { return text }
        let name = path == "-" ? "standard input" : "'\(path)'"
        var read: String
        if let variable = options.passphraseEnvironment {
            guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
                throw DataFailure(message: "the environment variable \(variable) holds no passphrase")
            }
            read = value
        } else if let descriptor = options.passphraseDescriptor {
            // One line, read a byte at a time so nothing after it is taken from the descriptor.
            var bytes: [UInt8] = []
            var byte: UInt8 = 0
            while bytes.count <= 4096 {
                let count = Foundation.read(descriptor, &byte, 1)
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else {
                    throw DataFailure(
                        message: "cannot read the passphrase from descriptor \(descriptor): \(FileSystem.reason())")
                }
                if count == 0 || byte == 0x0A { break }
                bytes.append(byte)
            }
            guard bytes.count <= 4096 else {
                throw DataFailure(
                    message:
                        "descriptor \(descriptor) holds a line of more than 4,096 bytes: no passphrase is that long")
            }
            read = String(decoding: bytes, as: UTF8.self)
        } else {
            read = try Self.prompt(
                writing ? "Passphrase for \(name): " : "\(name) is encrypted. Passphrase or recovery key: ", name: name)
            // A passphrase typed for a new file is typed twice: a slip would lock the file for good.
            if writing, try Self.prompt("The same passphrase again: ", name: name) != read {
                throw DataFailure(message: "the two passphrases typed for \(name) differ; nothing was written")
            }
        }
        // One line: the newline that ends it is not part of the passphrase.
        // ("\r\n" is one Character in Swift, so one removal takes either ending.)
        if read.hasSuffix("\r\n") || read.hasSuffix("\n") || read.hasSuffix("\r") { read.removeLast() }
        guard !read.isEmpty else { throw DataFailure(message: "an empty passphrase opens nothing") }
        text = read
        return read
    }

    /// A line typed at the terminal with echo off.
    private static func prompt(_ prompt: String, name: String) throws -> String {
        let terminal = Foundation.open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard terminal >= 0 else {
            throw DataFailure(
                message: "\(name) needs a passphrase and there is no terminal to ask on: "
                    + "give --passphrase-env NAME or --passphrase-fd N")
        }
        defer { close(terminal) }
        var saved = termios()
        let hasTerminal = tcgetattr(terminal, &saved) == 0
        if hasTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(terminal, TCSAFLUSH, &quiet)
        }
        defer { if hasTerminal { tcsetattr(terminal, TCSAFLUSH, &saved) } }
        _ = Array(prompt.utf8).withUnsafeBytes { Foundation.write(terminal, $0.baseAddress, $0.count) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count <= 4096, Foundation.read(terminal, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        _ = Foundation.write(terminal, "\n", 1)
        return String(decoding: line, as: UTF8.self)
    }
}
