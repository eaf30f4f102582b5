import GlowModel
import GlowWire

/// The reader's progress through one bundle: header, stream, trailer.
struct ReadState {
    let limits: BundleLimits

    var fileSize = 0
    var headerBytes: [UInt8] = []
    var header: BundleHeader?
    let inflater = Inflater()
    var crc = CRC32()
    var produced = 0
    /// Uncompressed bytes not yet framed, from `pendingStart` on.
    var pending: [UInt8] = []
    var pendingStart = 0
    /// The uncompressed offset of `pending[pendingStart]`.
    var framesOffset = 0
    /// The bytes after the compressed stream (kept up to a little past a trailer's size).
    var tail: [UInt8] = []
    var tailSize = 0
    var streamEnd = 0

    var manifest: BundleManifest?
    var ended = false
    var counts = RecordCounts()
    var bytesByType: [String: Int] = [:]
    var profileSeen = false
    /// Frames read so far, the manifest included (BUNDLE-25).
    var frames = 0
    var goalIDs = Set<GoalID>()
    var blockIDs = Set<GoalID>()
    var sawSocial = false
    /// The bytes of the frames holding records of unknown types so far (BUNDLE-28).
    var unknownBytes = 0

    init(limits: BundleLimits) {
        self.limits = limits
    }

    mutating func consume(_ chunk: ArraySlice<UInt8>, record: (BundleRecord) -> Void) throws(BundleError) {
        fileSize += chunk.count
        guard fileSize <= limits.maxBundleSize else {
            throw BundleError(
                .limitExceeded, .stream, at: limits.maxBundleSize,
                "the file is larger than the \(limits.maxBundleSize)-byte limit", rule: "BUNDLE-10")
        }
        var rest = chunk
        if header == nil {
            let needed = BundleHeader.size - headerBytes.count
            headerBytes += rest.prefix(needed)
            rest = rest.dropFirst(needed)
            if headerBytes.count < BundleHeader.size {
                if headerBytes.count >= 8 && Array(headerBytes.prefix(8)) != BundleHeader.magic {
                    header = try BundleHeader(parsing: headerBytes + Array(rest))  // throws bad_magic
                }
                return
            }
            header = try BundleHeader(parsing: headerBytes + Array(rest.prefix(512)))
        }
        guard !inflater.ended else {
            appendTail(rest)
            return
        }
        let used: Int
        do {
            used = try inflater.decompress(rest) { output in
                try self.inflated(output, record: record)
            }
        } catch let error as BundleError {
            throw error
        } catch {
            throw BundleError(
                .checksumMismatch, .stream, at: BundleHeader.size,
                "the compressed stream is damaged (\(error)); the file was corrupted in transfer", rule: "BUNDLE-7")
        }
        if inflater.ended {
            streamEnd = BundleHeader.size + inflater.consumed
            appendTail(rest.dropFirst(used))
        }
    }

    private mutating func appendTail(_ bytes: ArraySlice<UInt8>) {
        tailSize += bytes.count
        if tail.count < BundleTrailer.size + 64 { tail += bytes.prefix(BundleTrailer.size + 64 - tail.count) }
    }

    /// Takes inflated bytes: counts them against the limit as they come (BUNDLE-10), checks them
    /// into the CRC, and reads every complete frame.
    private mutating func inflated(_ output: [UInt8], record: (BundleRecord) -> Void) throws {
        produced += output.count
        guard produced <= limits.maxUncompressedSize else {
            throw BundleError(
                .limitExceeded, .frames, at: limits.maxUncompressedSize,
                "the stream inflates past the \(limits.maxUncompressedSize)-byte limit (a decompression bomb?)",
                rule: "BUNDLE-10")
        }
        crc.update(output)
        pending += output
        try readFrames(record: record)
        if pendingStart > 64 * 1024 && pendingStart * 2 > pending.count {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
    }

    private mutating func readFrames(record: (BundleRecord) -> Void) throws(BundleError) {
        while pendingStart < pending.count {
            // The varint length of the next frame, if it is all there.
            var length: UInt64 = 0
            var shift: UInt64 = 0
            var index = pendingStart
            var complete = false
            while index < pending.count {
                let byte = pending[index]
                index += 1
                guard shift < 63 || byte <= 1 else {
                    throw BundleError(
                        .malformedFrame, .frames, at: framesOffset, "a frame length is not a varint", rule: "BUNDLE-5"
                    )
                }
                length |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 {
                    complete = true
                    break
                }
                shift += 7
            }
            guard complete else { return }
            guard length <= UInt64(limits.maxFrameSize) else {
                throw BundleError(
                    .limitExceeded, .frames, at: framesOffset,
                    "a frame of \(length) bytes is larger than the \(limits.maxFrameSize)-byte limit", rule: "BUNDLE-10"
                )
            }
            // BUNDLE-5: a frame holds exactly one record, so an empty one (a zero byte) is
            // malformed; runs of zeros cannot make the reader spin through empty frames.
            guard length > 0 else {
                throw BundleError(
                    .malformedFrame, .frames, at: framesOffset, "an empty frame holds no record", rule: "BUNDLE-5")
            }
            let payloadStart = index
            guard pending.count - payloadStart >= Int(length) else { return }
            frames += 1
            guard frames <= limits.maxFrames else {
                throw BundleError(
                    .limitExceeded, .frames, at: framesOffset,
                    "the bundle holds more than \(limits.maxFrames) frames",
                    rule: "BUNDLE-25")
            }
            let payloadOffset = framesOffset + (payloadStart - pendingStart)
            let frame: BundleFrame
            do {
                frame = try BundleFrame.decode(
                    pending[payloadStart..<(payloadStart + Int(length))], limits: limits.wire)
            } catch {
                throw BundleError(
                    .record(error.code), .frames, at: payloadOffset + error.offset, error.message, rule: error.rule,
                    recordError: error)
            }
            try handle(
                frame, at: framesOffset, size: payloadStart - pendingStart + Int(length), length: Int(length),
                record: record)
            framesOffset += payloadStart - pendingStart + Int(length)
            pendingStart = payloadStart + Int(length)
        }
    }

    /// The frame rules (BUNDLE-5, BUNDLE-6, BUNDLE-9, BUNDLE-14).
    private mutating func handle(
        _ frame: BundleFrame, at offset: Int, size: Int, length: Int, record: (BundleRecord) -> Void
    ) throws(BundleError) {
        func fail(_ code: BundleError.Code, _ message: String, _ rule: String) -> BundleError {
            BundleError(code, .frames, at: offset, message, rule: rule)
        }
        if ended { throw fail(.malformedFrame, "a frame follows the end frame", "BUNDLE-5") }
        guard let manifest else {
            try readManifest(frame, at: offset, size: size)
            return
        }
        /// BUNDLE-9: a record beyond what the manifest declared is an error as soon as it is read,
        /// so the work a bundle can cause is bounded by the (checked) manifest.
        func beyond(_ read: Int, _ declared: Int, _ what: String) throws(BundleError) {
            guard read <= declared else {
                throw fail(
                    .malformedFrame, "the bundle holds more \(what) than its manifest declares (\(declared))",
                    "BUNDLE-9")
            }
        }
        switch frame {
        case .manifest:
            throw fail(.malformedFrame, "a second manifest", "BUNDLE-6")
        case .profile(let profile):
            guard !profileSeen else { throw fail(.duplicateID, "a second profile", "BUNDLE-14") }
            profileSeen = true
            counts.profiles += 1
            try beyond(counts.profiles, manifest.counts.profiles, "profiles")
            bytesByType["profile", default: 0] += size
            record(.profile(profile))
        case .goal(let goal):
            guard goalIDs.insert(goal.id).inserted else {
                throw fail(.duplicateID, "goal \(goal.id) appears twice", "BUNDLE-14")
            }
            counts.goals += 1
            try beyond(counts.goals, manifest.counts.goals, "goals")
            bytesByType["goals", default: 0] += size
            record(.goal(goal))
        case .checkIns(let block):
            guard blockIDs.insert(block.goalID).inserted else {
                throw fail(.duplicateID, "the check-ins of goal \(block.goalID) appear twice", "BUNDLE-14")
            }
            guard goalIDs.contains(block.goalID) else {
                throw fail(
                    .malformedFrame, "check-ins of goal \(block.goalID), which the bundle does not hold before them",
                    "BUNDLE-5")
            }
            counts.checkInBlocks += 1
            counts.checkIns += block.history.count
            try beyond(counts.checkInBlocks, manifest.counts.checkInBlocks, "check-in blocks")
            try beyond(counts.checkIns, manifest.counts.checkIns, "check-ins")
            bytesByType["checkIns", default: 0] += size
            record(.checkIns(block))
        case .social(let data):
            // A type added after the first three (BUNDLE-27): counted among `other`, so a reader
            // that does not know it still finds the counts right.
            guard !sawSocial else { throw fail(.duplicateID, "a second frame of social data", "BUNDLE-27") }
            sawSocial = true
            counts.other += 1
            try beyond(counts.other, manifest.counts.other, "records of types added after 1.0")
            bytesByType["social", default: 0] += size
            record(.social(data))
        case .other(let raw):
            counts.other += 1
            try beyond(counts.other, manifest.counts.other, "records of unknown types")
            // BUNDLE-28: kept whole, so bounded in bytes too, frame by frame.
            unknownBytes += length
            guard unknownBytes <= limits.maxUnknownBytes else {
                throw BundleError(
                    .limitExceeded, .frames, at: offset,
                    "records of unknown types take more than \(limits.maxUnknownBytes) bytes", rule: "BUNDLE-28")
            }
            bytesByType["other", default: 0] += size
            record(.other(raw))
        case .end(let declared):
            guard declared == counts, manifest.counts == counts else {
                throw fail(
                    .malformedFrame,
                    "the counts disagree: manifest \(manifest.counts), end frame \(declared), read \(counts)",
                    "BUNDLE-9")
            }
            ended = true
            bytesByType["end", default: 0] += size
        }
    }

    /// The first frame, which must be a manifest this reader can read (BUNDLE-6) declaring counts
    /// within the limits (BUNDLE-25).
    private mutating func readManifest(_ frame: BundleFrame, at offset: Int, size: Int) throws(BundleError) {
        guard case .manifest(let first) = frame else {
            throw BundleError(
                .malformedFrame, .frames, at: offset, "the first frame is not the manifest", rule: "BUNDLE-6")
        }
        guard first.minReaderVersion <= BundleManifest.currentSchemaVersion else {
            throw BundleError(
                .unsupportedVersion, .frames, at: offset,
                "the bundle needs reader version \(first.minReaderVersion); this reads \(BundleManifest.currentSchemaVersion). Update the app",
                rule: "BUNDLE-6")
        }
        try checkDeclared(first.counts, at: offset)
        manifest = first
        bytesByType["manifest", default: 0] += size
    }

    /// Checks the manifest's counts against the record limits before any record is read
    /// (BUNDLE-25).
    private func checkDeclared(_ declared: RecordCounts, at offset: Int) throws(BundleError) {
        func exceeded(_ what: String, _ count: Int, _ limit: Int) -> BundleError {
            BundleError(
                .limitExceeded, .frames, at: offset,
                "the manifest declares \(count) \(what); the limit is \(limit)", rule: "BUNDLE-25")
        }
        let (records, overflow) = [declared.profiles, declared.goals, declared.checkInBlocks, declared.other]
            .reduce((2, false)) { total, count in
                let (sum, overflow) = total.0.addingReportingOverflow(count)
                return (sum, total.1 || overflow)
            }
        if overflow || records > limits.maxFrames { throw exceeded("frames", records, limits.maxFrames) }
        if declared.checkIns > limits.maxCheckIns { throw exceeded("check-ins", declared.checkIns, limits.maxCheckIns) }
        if declared.other > limits.maxUnknownRecords {
            throw exceeded("records of unknown types", declared.other, limits.maxUnknownRecords)
        }
    }

    /// Checks what only the end of the file can show (BUNDLE-7 ... BUNDLE-9).
    mutating func finish() throws(BundleError) -> BundleSummary {
        guard let header else {
            // A file that ends inside the signature itself is cut short, not something else
            // (BUNDLE-2); an empty file, or one whose first bytes are not the signature's, is
            // bad_magic with its hint (BUNDLE-1).
            let signature = headerBytes.prefix(BundleHeader.magic.count)
            if signature.isEmpty || !BundleHeader.magic.starts(with: signature) {
                _ = try BundleHeader(parsing: headerBytes)
            }
            throw BundleError(
                .truncated, .header, at: headerBytes.count, "the file ends inside the header", rule: "BUNDLE-2")
        }
        guard inflater.ended else {
            throw BundleError(
                .truncated, .stream, at: fileSize, "the file ends inside the compressed stream; it was cut short",
                rule: "BUNDLE-7")
        }
        guard pendingStart == pending.count else {
            throw BundleError(
                .truncated, .frames, at: framesOffset, "the stream ends inside a frame", rule: "BUNDLE-5")
        }
        guard let manifest, ended else {
            throw BundleError(
                .malformedFrame, .frames, at: framesOffset, "the stream has no end frame", rule: "BUNDLE-9")
        }
        guard tailSize >= BundleTrailer.size else {
            throw BundleError(.truncated, .trailer, at: fileSize, "the file ends inside the trailer", rule: "BUNDLE-8")
        }
        guard let trailer = BundleTrailer(Array(tail.prefix(BundleTrailer.size))) else {
            let second = tail.first == 0x78
            throw BundleError(
                second ? .trailingData : .checksumMismatch, .trailer, at: streamEnd,
                second
                    ? "a second compressed stream follows the first; a bundle has exactly one"
                    : "the trailer is damaged (its signature is missing)",
                rule: "BUNDLE-8")
        }
        guard tailSize == BundleTrailer.size else {
            throw BundleError(
                .trailingData, .trailer, at: streamEnd + BundleTrailer.size,
                "\(tailSize - BundleTrailer.size) bytes follow the trailer; nothing may", rule: "BUNDLE-8")
        }
        guard trailer.compressedLength == inflater.consumed, trailer.uncompressedLength == produced,
            trailer.crc == crc.value
        else {
            throw BundleError(
                .checksumMismatch, .trailer, at: streamEnd,
                "the trailer's lengths or CRC-32 do not match the stream (\(trailer.compressedLength)/\(inflater.consumed) compressed, \(trailer.uncompressedLength)/\(produced) uncompressed)",
                rule: "BUNDLE-8")
        }
        return BundleSummary(
            header: header, manifest: manifest, counts: counts, fileSize: fileSize, compressedSize: inflater.consumed,
            uncompressedSize: produced, bytesByType: bytesByType)
    }
}
