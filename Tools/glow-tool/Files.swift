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
    static func streaming<T>(_ path: String, _ body: (() -> [UInt8]?) throws -> T) throws -> T {
        let handle = try open(path)
        var failure: DataFailure?
        let source: () -> [UInt8]? = {
            guard failure == nil else { return nil }
            do { return try nextChunk(handle, path) } catch {
                failure = error as? DataFailure
                return nil
            }
        }
        do {
            let result = try body(source)
            if let failure { throw failure }
            return result
        } catch {
            if let failure { throw failure }
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
    static func dataSet(_ path: String) throws -> DataSet {
        try contents(path).data
    }

    /// Loads a data set and, from a bundle that carries it, the person's social data (BUNDLE-27).
    static func contents(_ path: String) throws -> (data: DataSet, social: SocialData?) {
        try streaming(path) { next in
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
