import Foundation
import GlowFeed
import GlowModel

/// How far a streamed import has got (BUNDLE-26): enough for a progress bar.
public struct ImportProgress: Hashable, Sendable {
    /// Bytes of the bundle read so far.
    public var bytesRead = 0
    /// The bundle's size, when the source knows it.
    public var totalBytes: Int?
    /// Records read so far: the profile, goals, blocks of check-ins and records of unknown types.
    public var records = 0
    /// Check-ins read so far.
    public var checkIns = 0

    /// Progress so far.
    public init(bytesRead: Int = 0, totalBytes: Int? = nil, records: Int = 0, checkIns: Int = 0) {
        self.bytesRead = bytesRead
        self.totalBytes = totalBytes
        self.records = records
        self.checkIns = checkIns
    }

    /// The share read, 0 ... 1, when the total is known.
    public var fraction: Double? {
        guard let totalBytes else { return nil }
        return totalBytes <= 0 ? 1 : min(1, Double(bytesRead) / Double(totalBytes))
    }
}

/// What a finished import did.
public struct ImportResult: Hashable, Sendable {
    /// The bundle as read: header, manifest, counts and sizes.
    public var summary: BundleSummary
    /// What the import changed in the destination (MODEL-62).
    public var changes: DataSet.Changes
    /// The person's social data, when the bundle carried it (BUNDLE-27): the device merges it
    /// into its feed replica (FEED-21), which restores friendships, reactions given and the seen
    /// marker.
    public var social: SocialData?
}

extension DataSet {
    /// Takes one record a reader hands over.
    mutating func take(_ record: BundleRecord) {
        switch record {
        case .profile(let profile): self.profile = profile
        case .goal(let goal): put(goal)
        case .checkIns(let block): put(history: block.history)
        case .other(let frame): keepUnknownRecord(frame)
        case .social: break
        }
    }
}

/// A streamed import under way: the reader's state, the records read so far, and the progress.
private struct Importer {
    var state: ReadState
    var incoming = DataSet()
    var social: SocialData?
    var progress: ImportProgress

    init(limits: BundleLimits, totalBytes: Int?) {
        state = ReadState(limits: limits)
        progress = ImportProgress(totalBytes: totalBytes)
    }

    mutating func consume(_ chunk: [UInt8]) throws(BundleError) {
        var records = 0
        var checkIns = 0
        // Moved out and back rather than copied, so the records read so far are never duplicated.
        var incoming = self.incoming
        self.incoming = DataSet()
        defer { self.incoming = incoming }
        var social = self.social
        defer { self.social = social }
        try state.consume(chunk[...]) { record in
            records += 1
            switch record {
            case .checkIns(let block): checkIns += block.history.count
            case .social(let data): social = data
            default: break
            }
            incoming.take(record)
        }
        progress.bytesRead += chunk.count
        progress.records += records
        progress.checkIns += checkIns
    }

    func stopped(_ code: BundleError.Code, _ message: String) -> BundleError {
        BundleError(code, .stream, at: progress.bytesRead, message + "; nothing was imported", rule: "BUNDLE-26")
    }

    /// Verifies the end of the bundle and merges what it holds into `destination`.
    mutating func finish(into destination: inout DataSet) throws(BundleError) -> ImportResult {
        let summary = try state.finish()
        return ImportResult(
            summary: summary, changes: try BundleReader.merge(incoming, into: &destination), social: social)
    }
}

extension BundleReader {
    /// Imports a bundle read chunk by chunk from `next` into `destination`, all or nothing
    /// (BUNDLE-19, BUNDLE-26): memory holds one chunk, zlib's window and the records read, never
    /// the file. `progress` hears after every chunk how far the import has got and returns
    /// whether to go on.
    ///
    /// - Parameters:
    ///   - next: the next chunk of the bundle, nil at its end; an error it throws stops the import.
    ///   - totalBytes: the bundle's size, when known, for ``ImportProgress/fraction``.
    /// - Returns: the bundle's summary and what the import changed.
    /// - Throws: ``BundleError``: what reading found, `cancelled` when `progress` returned false,
    ///   `read_failed` when `next` threw. `destination` is then exactly as it was.
    @discardableResult
    public func `import`(
        reading next: () throws -> [UInt8]?, totalBytes: Int? = nil, into destination: inout DataSet,
        progress: (ImportProgress) -> Bool = { _ in true }
    ) throws(BundleError) -> ImportResult {
        var importer = Importer(limits: limits, totalBytes: totalBytes)
        while true {
            let chunk: [UInt8]?
            do {
                chunk = try next()
            } catch {
                throw importer.stopped(.readFailed, "reading the bundle failed: \(error)")
            }
            guard let chunk else { break }
            try importer.consume(chunk)
            guard progress(importer.progress) else {
                throw importer.stopped(.cancelled, "the import was cancelled")
            }
        }
        return try importer.finish(into: &destination)
    }

    /// Imports a bundle from an open file, from its current offset to its end, in 64 KiB reads
    /// (BUNDLE-26); the total for progress is what is left of the file.
    ///
    /// - Throws: as ``import(reading:totalBytes:into:progress:)``.
    @discardableResult
    public func `import`(
        from handle: FileHandle, into destination: inout DataSet, progress: (ImportProgress) -> Bool = { _ in true }
    ) throws(BundleError) -> ImportResult {
        var total: Int?
        if let start = try? handle.offset(), let end = try? handle.seekToEnd() {
            total = end >= start ? Int(clamping: end - start) : nil
            try? handle.seek(toOffset: start)
        }
        return try self.import(
            reading: { try handle.read(upToCount: 64 * 1024).map { [UInt8]($0) }.flatMap { $0.isEmpty ? nil : $0 } },
            totalBytes: total, into: &destination, progress: progress)
    }

    /// Imports a bundle from any asynchronous sequence of byte chunks (a download, a file read
    /// asynchronously), all or nothing (BUNDLE-26). Cancelling the task stops the import between
    /// chunks.
    ///
    /// - Throws: ``BundleError``: what reading found, `cancelled` when the task was cancelled (or
    ///   the sequence threw `CancellationError`), `read_failed` when the sequence threw anything
    ///   else. `destination` is then exactly as it was.
    @discardableResult
    public func `import`<Chunks: AsyncSequence>(
        _ chunks: Chunks, totalBytes: Int? = nil, into destination: inout DataSet,
        progress: (ImportProgress) -> Void = { _ in }
    ) async throws(BundleError) -> ImportResult where Chunks.Element == [UInt8] {
        var importer = Importer(limits: limits, totalBytes: totalBytes)
        var iterator = chunks.makeAsyncIterator()
        while true {
            if Task.isCancelled { throw importer.stopped(.cancelled, "the import was cancelled") }
            let chunk: [UInt8]?
            do {
                chunk = try await iterator.next()
            } catch is CancellationError {
                throw importer.stopped(.cancelled, "the import was cancelled")
            } catch {
                throw importer.stopped(.readFailed, "reading the bundle failed: \(error)")
            }
            guard let chunk else { break }
            try importer.consume(chunk)
            progress(importer.progress)
        }
        if Task.isCancelled { throw importer.stopped(.cancelled, "the import was cancelled") }
        return try importer.finish(into: &destination)
    }
}
