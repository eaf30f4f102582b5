import GlowFeed
import GlowModel
import GlowWire

/// A record read from a bundle.
public enum BundleRecord: Sendable {
    /// The profile.
    case profile(Profile)
    /// A goal.
    case goal(Goal)
    /// A goal's check-ins.
    case checkIns(CheckInBlock)
    /// The person's social data (BUNDLE-27, FEED-30).
    case social(SocialData)
    /// A record type this version does not know, as its raw frame.
    case other([UInt8])
}

/// Everything a bundle holds, fully verified.
public struct BundleContents: Hashable, Sendable {
    /// The data set.
    public var data: DataSet
    /// The person's social data, when the bundle carries it (BUNDLE-27).
    public var social: SocialData?
    /// The bundle as read.
    public var summary: BundleSummary
}

/// What reading a bundle found: its header and manifest, what it actually holds, and sizes.
public struct BundleSummary: Hashable, Sendable {
    /// The header.
    public var header: BundleHeader
    /// The manifest.
    public var manifest: BundleManifest
    /// The records counted while reading (equal to the manifest's and the end frame's).
    public var counts: RecordCounts
    /// The file's size.
    public var fileSize: Int
    /// The compressed stream's size.
    public var compressedSize: Int
    /// The uncompressed frames' size.
    public var uncompressedSize: Int
    /// Uncompressed bytes per record type: `manifest`, `profile`, `goals`, `checkIns`, `other`, `end`.
    public var bytesByType: [String: Int]
}

/// Reads and verifies bundles as a stream, frame by frame (BUNDLE-1 ... BUNDLE-19).
public struct BundleReader: Sendable {
    /// The bounds every read enforces.
    public var limits: BundleLimits

    /// A reader with these limits.
    public init(limits: BundleLimits = .default) {
        self.limits = limits
    }

    /// Reads a bundle from `next` (the next chunk of the file, nil at its end), handing each record
    /// to `record` as soon as its frame is complete; returns the summary once the end frame,
    /// lengths and checksums have verified (BUNDLE-11).
    ///
    /// Records reach `record` before the whole file is verified: a caller that imports must keep
    /// them aside until this returns (``importing(_:into:)`` does).
    /// - Throws: ``BundleError``; nothing after the error is read.
    public func read(_ next: () -> [UInt8]?, record: (BundleRecord) -> Void) throws(BundleError) -> BundleSummary {
        var state = ReadState(limits: limits)
        while let chunk = next() {
            try state.consume(chunk[...], record: record)
        }
        return try state.finish()
    }

    /// Verifies a bundle in memory without keeping its records.
    public func verify(_ bytes: [UInt8]) throws(BundleError) -> BundleSummary {
        try read(Self.chunks(bytes)) { _ in }
    }

    /// The data set a bundle holds, fully verified; ``contents(_:)`` gives its social data too.
    public func dataSet(_ bytes: [UInt8]) throws(BundleError) -> (DataSet, BundleSummary) {
        try dataSet(reading: Self.chunks(bytes))
    }

    /// The data set a streamed bundle holds, fully verified.
    public func dataSet(reading next: () -> [UInt8]?) throws(BundleError) -> (DataSet, BundleSummary) {
        let contents = try contents(reading: next)
        return (contents.data, contents.summary)
    }

    /// The data set and social data a bundle holds, fully verified.
    public func contents(_ bytes: [UInt8]) throws(BundleError) -> BundleContents {
        try contents(reading: Self.chunks(bytes))
    }

    /// The data set and social data a streamed bundle holds, fully verified.
    public func contents(reading next: () -> [UInt8]?) throws(BundleError) -> BundleContents {
        var data = DataSet()
        var social: SocialData?
        let summary = try read(next) { record in
            if case .social(let found) = record { social = found } else { data.take(record) }
        }
        return BundleContents(data: data, social: social, summary: summary)
    }

    /// `destination` merged with the bundle, all or nothing: the bundle is read and verified to
    /// its last byte before anything is merged, so a bad bundle leaves the destination as it was
    /// (BUNDLE-19, BUNDLE-20).
    ///
    /// - Throws: ``BundleError``, also `user_mismatch` when both hold a profile of different people.
    public func importing(_ bytes: [UInt8], into destination: DataSet) throws(BundleError) -> DataSet {
        var merged = destination
        try self.import(bytes, into: &merged)
        return merged
    }

    /// Imports a bundle into `destination` in place, all or nothing: `destination` changes only
    /// after the whole bundle verified (BUNDLE-19, BUNDLE-20).
    ///
    /// - Returns: what the import changed (MODEL-62).
    /// - Throws: ``BundleError``; `destination` is then exactly as it was.
    @discardableResult
    public func `import`(_ bytes: [UInt8], into destination: inout DataSet) throws(BundleError) -> DataSet.Changes {
        let (incoming, _) = try dataSet(bytes)
        return try Self.merge(incoming, into: &destination)
    }

    /// Merges a verified bundle's data into `destination`, unless it is another person's.
    static func merge(_ incoming: DataSet, into destination: inout DataSet) throws(BundleError) -> DataSet.Changes {
        if let theirs = destination.otherPerson(in: incoming) {
            throw BundleError(
                .userMismatch, .frames, at: 0,
                "the bundle belongs to user \(theirs), this device to \(destination.profile!.userID); nothing was imported",
                rule: "BUNDLE-20")
        }
        return destination.merge(incoming)
    }

    /// A source that hands out `bytes` in 64 KiB chunks.
    public static func chunks(_ bytes: [UInt8]) -> () -> [UInt8]? {
        var offset = 0
        return {
            guard offset < bytes.count else { return nil }
            let end = min(bytes.count, offset + 64 * 1024)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
    }
}
