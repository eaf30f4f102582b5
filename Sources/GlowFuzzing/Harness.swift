import Foundation
import GlowBundle
import GlowConformance
import GlowModel
import GlowStreaks
import GlowThemes
import GlowWire

/// The fuzzing harnesses (issue 11): what each libFuzzer target of `FuzzTesting/` runs on one
/// input, and what `swift test` replays from `FuzzTesting/Regressions/`.
///
/// A harness never expects input to be valid; it checks what must hold for every input: decoding
/// either throws a typed error or gives a value that writes and reads back to itself, an import
/// that fails leaves its destination unchanged, and nothing traps, hangs or grows past what the
/// input justifies. A broken invariant stops the process (`precondition`), which libFuzzer
/// reports as a crash and keeps the input. Not for apps.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Every wire record decoder: the first byte picks the record.
    case records
    /// The schema-less field tree of `decode-raw`.
    case raw
    /// The bundle reader: verify, and an all-or-nothing import.
    case bundle
    /// The JSON data set decoder; what it accepts must export to a bundle that verifies.
    case dataSetJSON = "dataset-json"
    /// Colour parsing.
    case color
    /// The conformance protocol's frame reader.
    case framing
    /// Structure-aware: valid check-in blocks with hostile field values, decoded and evaluated.
    case hostileBlock = "hostile-block"
    /// GlowAuth's readers: ID tokens, key sets, PHC strings, passwords.
    case auth
    /// The feed's messages (deltas, relay requests and responses, social data) and one relay.
    case feed
    /// A database file of arbitrary bytes: read and opened without a trap or a change.
    case database
    /// Encrypted bundles: any bytes opened, and any bytes sealed, opened, and refused when changed.
    case envelope
    /// glow-server's request handler: any method, path, headers and body answered, never a 500.
    case service
    /// The package's own crypto against libcrypto and libargon2 (issue 42).
    case crypto
    /// A device reading hostile pulls of sync records: tampered, replayed, reordered, cut (issue 46).
    case sync

    /// Runs the harness on one input.
    public func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .records: Harness.records(bytes)
        case .raw: Harness.raw(bytes)
        case .bundle: Harness.bundle(Array(bytes))
        case .dataSetJSON: Harness.dataSetJSON(Data(bytes))
        case .color: Harness.color(Array(bytes))
        case .framing: Harness.framing(Array(bytes))
        case .hostileBlock: HostileBlock.run(Array(bytes))
        case .auth: AuthHarness.run(Array(bytes))
        case .feed: FeedHarness.run(bytes)
        case .database: DatabaseHarness.run(Array(bytes))
        case .envelope: EnvelopeHarness.run(Array(bytes))
        case .service: ServiceHarness.run(Array(bytes))
        case .crypto: CryptoHarness.run(Array(bytes))
        case .sync: SyncHarness.run(Array(bytes))
        }
    }

    /// Runs the harness on one input held in an array.
    public func run(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { run($0) }
    }
}

enum Harness {
    /// Decodes with the record the first byte picks; a value must write back to a fixed point.
    static func records(_ input: UnsafeRawBufferPointer) {
        guard let selector = input.first else { return }
        let body = UnsafeRawBufferPointer(rebasing: input.dropFirst())
        switch selector % 8 {
        case 0: roundTrip(Goal.self, body)
        case 1: roundTrip(Profile.self, body)
        case 2: roundTrip(CheckIn.self, body)
        case 3: roundTrip(CheckInBlock.self, body)
        case 4: roundTrip(GoalDraft.self, body)
        case 5: roundTrip(GoalTemplate.self, body)
        case 6: roundTrip(Interest.self, body)
        default: roundTrip(DayBoundary.self, body)
        }
    }

    static func roundTrip<T: WireMessage & Equatable>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer) {
        let value: T
        do {
            value = try T(wireBuffer: bytes, limits: .default)
        } catch {
            precondition(error.offset >= 0 && error.offset <= bytes.count, "an error outside the input: \(error)")
            return
        }
        let canonical = value.wireEncoded()
        guard let again = try? T(wire: canonical) else {
            preconditionFailure("\(T.self) does not read back its own bytes")
        }
        precondition(again == value, "\(T.self) reads back a different value")
        precondition(again.wireEncoded() == canonical, "\(T.self)'s canonical bytes are not a fixed point")
    }

    static func raw(_ bytes: UnsafeRawBufferPointer) {
        guard let fields = try? RawMessage.parse(Array(bytes)) else { return }
        _ = RawMessage.text(fields)
    }

    /// A device that already holds a profile and a goal.
    static let destination: DataSet = {
        let created = try! Instant(rfc3339: "2025-01-01T08:00:00Z")
        let goal = try! Goal(
            id: GoalID(high: 0x0193_8A6E_7C00_7ABC, low: 0x8DEF_0000_0000_00A1), title: "Drink water",
            kind: .streak, schedule: Schedule(.daily, from: Day(iso: "2025-01-01")), startDay: Day(iso: "2025-01-01"),
            createdAt: created, modifiedAt: created)
        var data = DataSet()
        data.put(goal)
        return data
    }()

    static func bundle(_ bytes: [UInt8]) {
        let limits = BundleLimits(
            maxBundleSize: 1 << 24, maxUncompressedSize: 1 << 26, maxFrameSize: 1 << 22, maxFrames: 10_000,
            maxCheckIns: 200_000, maxCheckInsPerBlock: 50_000, maxUnknownRecords: 5_000)
        var store = destination
        do {
            try BundleReader(limits: limits).import(bytes, into: &store)
        } catch {
            precondition(store == destination, "a failed import changed the destination")
            return
        }
        // What imported must write out as a bundle that reads back to the same data.
        let written = BundleWriter.bundle(store, options: BundleOptions(createdAt: .epoch))
        guard let (read, _) = try? BundleReader().dataSet(written) else {
            preconditionFailure("an imported data set does not export to a readable bundle")
        }
        precondition(read == store, "an imported data set exports to different data")
    }

    static func dataSetJSON(_ data: Data) {
        guard let set = try? GlowJSON.decode(DataSet.self, from: data) else { return }
        let written = BundleWriter.bundle(set, options: BundleOptions(createdAt: .epoch))
        guard let (read, _) = try? BundleReader().dataSet(written) else {
            preconditionFailure("a JSON data set that decodes does not export to a bundle that verifies")
        }
        precondition(read == set, "a JSON data set exports to different data")
    }

    static func color(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let color = try? Color(hex: text) else { return }
        let again = try? Color(hex: color.hex)
        precondition(again == color, "a colour does not read back its own text")
    }

    static func framing(_ bytes: [UInt8]) {
        guard case .frame(let message, let consumed) = Framing.parse(bytes[...]) else { return }
        precondition(consumed <= bytes.count, "a frame consumed more than the input")
        guard case .frame(let again, _) = Framing.parse(Framing.encode(message)[...]) else {
            preconditionFailure("a frame does not read back its own encoding")
        }
        precondition(again == message, "a frame reads back a different message")
    }
}
