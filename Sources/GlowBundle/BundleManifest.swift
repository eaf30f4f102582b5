import GlowFeed
import GlowModel
import GlowWire

/// How many records of each type a bundle holds (BUNDLE-6, BUNDLE-9).
public struct RecordCounts: Hashable, Sendable, Codable {
    /// Profiles: 0 or 1.
    public var profiles = 0
    /// Goals, tombstones included.
    public var goals = 0
    /// Check-in blocks: one per goal with check-ins.
    public var checkInBlocks = 0
    /// Check-ins in all blocks.
    public var checkIns = 0
    /// Records of types the writer knew and this reader may not.
    public var other = 0

    /// Counts.
    public init(profiles: Int = 0, goals: Int = 0, checkInBlocks: Int = 0, checkIns: Int = 0, other: Int = 0) {
        self.profiles = profiles
        self.goals = goals
        self.checkInBlocks = checkInBlocks
        self.checkIns = checkIns
        self.other = other
    }

    /// The counts of a data set's records.
    public init(_ data: DataSet) {
        self.init(data, blocks: data.histories.count)
    }

    /// The counts of a data set whose check-ins make `blocks` blocks.
    init(_ data: DataSet, blocks: Int, social: SocialData? = nil) {
        self.init(
            profiles: data.profile == nil ? 0 : 1, goals: data.goals.count, checkInBlocks: blocks,
            checkIns: data.checkInCount, other: data.otherRecordCount + (social == nil ? 0 : 1))
    }

    func encodeFields(to writer: inout WireWriter) {
        writer.uint(1, UInt64(profiles))
        writer.uint(2, UInt64(goals))
        writer.uint(3, UInt64(checkInBlocks))
        writer.uint(4, UInt64(checkIns))
        writer.uint(5, UInt64(other))
    }

    static func decode(from reader: inout WireReader) throws(WireError) -> RecordCounts {
        var counts = RecordCounts()
        var unknown: [UInt8] = []
        try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
            switch f.number {
            case 1: counts.profiles = try r.readUInt32(f)
            case 2: counts.goals = try r.readUInt32(f)
            case 3: counts.checkInBlocks = try r.readUInt32(f)
            case 4: counts.checkIns = Int(clamping: try r.readUInt(f))
            case 5: counts.other = try r.readUInt32(f)
            default: return false
            }
            return true
        }
        return counts
    }
}

/// What a bundle says about itself, in its first frame (BUNDLE-6).
public struct BundleManifest: Hashable, Sendable {
    /// The schema version of the records (this SDK writes 1).
    public var schemaVersion: Int
    /// The lowest reader version that can import the bundle.
    public var minReaderVersion: Int
    /// The app or tool that wrote it.
    public var exporterName: String
    /// Its version.
    public var exporterVersion: String
    /// When the bundle was written.
    public var createdAt: Instant
    /// The device it was written on, if known.
    public var deviceID: DeviceID?
    /// The records it holds.
    public var counts: RecordCounts

    /// The schema version this SDK writes and reads.
    public static let currentSchemaVersion = 1

    /// A manifest.
    public init(
        schemaVersion: Int = BundleManifest.currentSchemaVersion, minReaderVersion: Int = 1, exporterName: String,
        exporterVersion: String, createdAt: Instant, deviceID: DeviceID?, counts: RecordCounts
    ) {
        self.schemaVersion = schemaVersion
        self.minReaderVersion = minReaderVersion
        self.exporterName = exporterName
        self.exporterVersion = exporterVersion
        self.createdAt = createdAt
        self.deviceID = deviceID
        self.counts = counts
    }

    func encodeFields(to writer: inout WireWriter) {
        writer.uint(1, UInt64(schemaVersion))
        writer.uint(2, UInt64(minReaderVersion))
        writer.string(3, exporterName)
        writer.string(4, exporterVersion)
        writer.sint(5, createdAt.millisecondsSince1970)
        if let deviceID { writer.bytes(6, deviceID.bytes) }
        writer.message(7) { counts.encodeFields(to: &$0) }
    }

    static func decode(from reader: inout WireReader) throws(WireError) -> BundleManifest {
        var manifest = BundleManifest(
            schemaVersion: 0, minReaderVersion: 0, exporterName: "", exporterVersion: "",
            createdAt: Instant.epoch, deviceID: nil, counts: RecordCounts())
        var unknown: [UInt8] = []
        try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
            switch f.number {
            case 1: manifest.schemaVersion = try r.readUInt32(f)
            case 2: manifest.minReaderVersion = try r.readUInt32(f)
            case 3: manifest.exporterName = try r.readString(f)
            case 4: manifest.exporterVersion = try r.readString(f)
            case 5: manifest.createdAt = try r.readInstant(f)
            case 6: manifest.deviceID = try r.readID(f)
            case 7:
                try r.expect(f, .lengthDelimited)
                manifest.counts = try r.nested { (c: inout WireReader) throws(WireError) in
                    try RecordCounts.decode(from: &c)
                }
            default: return false
            }
            return true
        }
        return manifest
    }
}

/// One frame of the compressed stream (BUNDLE-5).
enum BundleFrame {
    case manifest(BundleManifest)
    case profile(Profile)
    case goal(Goal)
    case checkIns(CheckInBlock)
    case social(SocialData)
    case end(RecordCounts)
    /// A record type this version does not know: the frame's whole payload.
    case other([UInt8])

    /// The frame: a varint length, then the BundleFrame message.
    var bytes: [UInt8] {
        var payload = WireWriter()
        switch self {
        case .manifest(let manifest): payload.message(1) { manifest.encodeFields(to: &$0) }
        case .profile(let profile): payload.message(2) { profile.encodeFields(to: &$0) }
        case .goal(let goal): payload.message(3) { goal.encodeFields(to: &$0) }
        case .checkIns(let block): payload.message(4) { block.encodeFields(to: &$0) }
        case .social(let data): payload.message(5) { data.encodeFields(to: &$0) }
        case .end(let counts): payload.message(15) { w in w.message(1) { counts.encodeFields(to: &$0) } }
        case .other(let raw): payload.raw(raw)
        }
        var framed = WireWriter(capacity: payload.bytes.count + 5)
        framed.varint(UInt64(payload.bytes.count))
        framed.raw(payload.bytes)
        return framed.bytes
    }

    /// Decodes one frame's payload.
    static func decode(_ payload: ArraySlice<UInt8>, limits: WireLimits) throws(WireError) -> BundleFrame {
        try WireReader.read(payload, limits: limits) { (reader) throws(WireError) in try decodeFields(&reader) }
    }

    private static func decodeFields(_ reader: inout WireReader) throws(WireError) -> BundleFrame {
        var frame: BundleFrame?
        var unknown: [UInt8] = []
        try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
            guard [1, 2, 3, 4, 5, 15].contains(f.number) else { return false }
            try r.expect(f, .lengthDelimited)
            frame = try r.nested { (m: inout WireReader) throws(WireError) -> BundleFrame in
                switch f.number {
                case 1: return .manifest(try BundleManifest.decode(from: &m))
                case 2: return .profile(try Profile.decodeFields(from: &m))
                case 3: return .goal(try Goal.decodeFields(from: &m))
                case 4: return .checkIns(try CheckInBlock.decodeFields(from: &m))
                case 5: return .social(try SocialData.decodeFields(from: &m))
                default:
                    var counts = RecordCounts()
                    var rest: [UInt8] = []
                    try m.forEachField(unknown: &rest) { (e, g) throws(WireError) in
                        guard g.number == 1 else { return false }
                        try e.expect(g, .lengthDelimited)
                        counts = try e.nested { (c: inout WireReader) throws(WireError) in
                            try RecordCounts.decode(from: &c)
                        }
                        return true
                    }
                    return .end(counts)
                }
            }
            return true
        }
        if let frame, unknown.isEmpty { return frame }
        if frame == nil { return .other(unknown) }
        throw WireError(.invalidValue, at: 0, "a frame holds a record and unknown fields besides", rule: "BUNDLE-5")
    }
}
