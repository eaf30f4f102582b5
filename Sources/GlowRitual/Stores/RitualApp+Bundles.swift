import Foundation
import GlowBundle
import GlowClient
import GlowFeed
import GlowModel
import GlowProtocol
import GlowStorage
import GlowSync

/// How an export is protected.
public enum BundleProtection: Sendable {
    /// A plain bundle (BUNDLE-1 ... BUNDLE-9).
    case none
    /// An encrypted bundle (BUNDLE-29 ... BUNDLE-35) that `passphrase` opens, and `recoveryKey`
    /// too when given; `kdf` sets Argon2id's cost.
    case passphrase(String, recoveryKey: RecoveryKey? = nil, kdf: EnvelopeKDF = BundleEnvelope.defaultKDF)
}

/// How far an export has got: frames written of the bundle's frames, and bytes out.
public struct ExportProgress: Hashable, Sendable {
    /// Frames written so far.
    public var frames: Int
    /// Every frame of the bundle.
    public var totalFrames: Int
    /// Bytes of the file produced so far.
    public var bytes: Int

    /// The share done, 0 ... 1.
    public var fraction: Double { totalFrames == 0 ? 1 : Double(frames) / Double(totalFrames) }
}

/// Data in and out: exports and imports of bundles, plain or encrypted.
@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
extension RitualApp {

    /// Exports everything the person has to `path` as a bundle, plain or encrypted: the profile,
    /// goals and check-ins, and the signed-in person's social data (BUNDLE-27). The file is
    /// written atomically when the bundle is whole; `progress` hears after every chunk, on a
    /// background thread. Cancelling the task stops the export and leaves no file.
    ///
    /// - Returns: the file's size in bytes.
    /// - Throws: ``RitualAppError``: `bundle` with `cancelled` when the task was cancelled, or the
    ///   envelope's error; `store` when the data cannot be read or the file written.
    @discardableResult
    public func export(
        to path: String, protection: BundleProtection = .none, now: Instant = .now,
        progress: @escaping @Sendable (ExportProgress) -> Void = { _ in }
    ) async throws(RitualAppError) -> Int {
        let data: DataSet
        do { data = try await database.data } catch {
            throw error.code == .cancelled ? .bundle(Self.cancelled("export")) : .store(error)
        }
        let feed = activity.map { ($0.person.rawValue, $0.replica) }
        let options = BundleOptions(createdAt: now, deviceID: device)
        return try await Self.write(data, feed: feed, options: options, protection, to: path, progress: progress)
    }

    /// Writes the bundle, with the social data of `feed`'s person, off the main actor.
    nonisolated private static func write(
        _ data: DataSet, feed: (person: String, replica: FeedReplica)?, options: BundleOptions,
        _ protection: BundleProtection, to path: String, progress: @escaping @Sendable (ExportProgress) -> Void
    ) async throws(RitualAppError) -> Int {
        let social = feed.map { SocialData(of: $0.person, in: $0.replica) }
        var sealer: EnvelopeSealer?
        if case .passphrase(let passphrase, let key, let kdf) = protection {
            do { sealer = try EnvelopeSealer(passphrase: passphrase, recoveryKey: key, kdf: kdf) } catch {
                throw .bundle(error)
            }
        }
        let cancelled = Self.cancelled("export")
        var file: [UInt8] = []
        var shown = ExportProgress(frames: 0, totalFrames: 0, bytes: 0)
        do {
            try BundleWriter.write(
                data, social: social, options: options,
                to: { (chunk) throws(BundleError) in
                    if Task.isCancelled { throw cancelled }
                    if var open = sealer {
                        file += try open.seal(chunk)
                        sealer = open
                    } else {
                        file += chunk
                    }
                    shown.bytes = file.count
                    progress(shown)
                },
                progress: { written, total in
                    shown.frames = written
                    shown.totalFrames = total
                })
            if var open = sealer { file += try open.finish() }
        } catch let error as BundleError {
            throw .bundle(error)
        } catch {
            throw .bundle(BundleError(.readFailed, .stream, at: 0, "the export failed: \(error)"))
        }
        if Task.isCancelled { throw .bundle(cancelled) }
        do { try AtomicFile.write(file, to: path) } catch { throw .store(error) }
        shown.bytes = file.count
        progress(shown)
        return file.count
    }

    /// Imports the bundle at `path`, plain or encrypted, all or nothing (BUNDLE-19): merged into
    /// the person's data (BUNDLE-21), and its social data into the feed when it is the signed-in
    /// person's. `progress` hears after every chunk, on a background thread. Cancelling the task
    /// stops the import and changes nothing.
    ///
    /// - Parameters:
    ///   - secret: the passphrase or recovery key of an encrypted bundle
    ///     (``BundleSecret/init(typed:)`` classes what a person typed).
    ///   - memoryBudgetKiB: the most memory an encrypted bundle's key derivation may ask for here
    ///     (BUNDLE-30): the cap by default; less in a share extension or a watch app.
    /// - Returns: the import's summary and what it changed.
    /// - Throws: ``RitualAppError``: `encrypted` for an encrypted bundle without `secret`;
    ///   `bundle` with what reading or opening found (`kdf_over_budget` naming the memory asked
    ///   for, `cancelled` when the task was cancelled); `store` when the file cannot be read or the
    ///   database written. Nothing changed then.
    @discardableResult
    public func importBundle(
        from path: String, secret: BundleSecret? = nil, memoryBudgetKiB: Int = BundleEnvelope.maximumMemoryKiB,
        progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }
    ) async throws(RitualAppError) -> ImportResult {
        let person = activity?.person.rawValue
        let database = database
        let outcome = await withCancellationFlag { cancelled -> Result<ImportResult, RitualAppError> in
            do throws(StoreError) {
                return try await database.runShown { (database) throws(StoreError) in
                    let read = Self.read(
                        path, secret: secret, memoryBudgetKiB: memoryBudgetKiB, into: database,
                        progress: { step in
                            progress(step)
                            return !cancelled()
                        })
                    // The person's own social data goes to their feed, in a transaction of its own.
                    if case .success(let result) = read, let social = result.social, social.person == person {
                        try database.recordFeed(social.registers)
                    }
                    return read
                }
            } catch {
                return .failure(error.code == .cancelled ? .bundle(Self.cancelled("import")) : .store(error))
            }
        }
        return try outcome.get()
    }

    /// The error of an export or import (`work`) its task cancelled.
    nonisolated static func cancelled(_ work: String) -> BundleError {
        BundleError(.cancelled, .stream, at: 0, "the \(work) was cancelled")
    }

    /// Reads the bundle at `path` and imports it, on the database's executor: `progress` hears
    /// after each chunk, and returns whether to go on.
    nonisolated private static func read(
        _ path: String, secret: BundleSecret?, memoryBudgetKiB: Int, into database: RitualDatabase.Job,
        progress: (ImportProgress) -> Bool
    ) -> Result<ImportResult, RitualAppError> {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)) } catch {
            return .failure(.store(StoreError(.cannotOpen, "the bundle cannot be opened: \(error)", path: path)))
        }
        defer {
            // A handle opened for reading: closing it cannot lose anything.
            do { try handle.close() } catch {}
        }
        let size: UInt64
        let head: [UInt8]
        do {
            size = try handle.seekToEnd()
            try handle.seek(toOffset: 0)
            head = [UInt8](try handle.read(upToCount: BundleEnvelope.magic.count) ?? Data())
            try handle.seek(toOffset: 0)
        } catch {
            return .failure(.store(StoreError(.cannotOpen, "the bundle cannot be read: \(error)", path: path)))
        }
        var opener: EnvelopeOpener?
        if BundleEnvelope.isEncrypted(head: head) {
            guard let secret else { return .failure(.encrypted(path: path)) }
            opener = EnvelopeOpener(secret: secret, memoryBudgetKiB: memoryBudgetKiB)
        }
        // The envelope's own error, kept whole: the import sees only that reading failed.
        var opened: BundleError?
        var ended = false
        func next() throws -> [UInt8]? {
            while !ended {
                guard let data = try handle.read(upToCount: 64 * 1024), !data.isEmpty else {
                    ended = true
                    guard var open = opener else { return nil }
                    do { return try open.finish() } catch {
                        opened = error
                        throw error
                    }
                }
                guard var open = opener else { return [UInt8](data) }
                let plain: [UInt8]
                do { plain = try open.open([UInt8](data)) } catch {
                    opened = error
                    throw error
                }
                opener = open
                if !plain.isEmpty { return plain }
            }
            return nil
        }
        do {
            // The plain bundle's size when it is plain; an envelope's overhead is small beside it.
            return .success(
                try database.importBundle(reading: next, totalBytes: Int(clamping: size), progress: progress))
        } catch {
            if let opened { return .failure(.bundle(opened)) }
            if let refusal = error.refusal as? BundleError { return .failure(.bundle(refusal)) }
            return .failure(.store(error))
        }
    }
}
