import GlowBundle
import GlowModel
import GlowWire
import Testing

/// README's GlowWire and GlowBundle blocks, compiled and run (Tests/PackageTests/ReadmeBlocksTests.swift
/// checks that the code between each pair of markers is a block).
@Suite("README: GlowWire and GlowBundle")
struct ReadmeWireTests {
    static let today = try! Day(iso: "2026-11-28")

    /// A goal with a few Days done, and the data set that holds it.
    static func person() throws -> (Goal, [CheckIn], DataSet) {
        let start = today.advanced(by: -10)
        let goal = try Goal(
            id: GoalID(high: 1, low: 1), title: "Stretch", kind: .streak, schedule: Schedule(.daily, from: start),
            startDay: start, createdAt: .epoch, modifiedAt: .epoch)
        var data = try DataSet(profile: nil, goals: [goal], checkIns: [])
        for back in [1, 2, 4] {
            try data.tap(
                .done, goal: goal.id, on: today.advanced(by: -back), at: try Instant(rfc3339: "2026-11-28T12:00:00Z"),
                device: DeviceID(high: 9, low: 9), boundary: .utc)
        }
        return (goal, data.checkIns(of: goal.id), data)
    }

    @Test("a goal and its check-ins round-trip through their canonical bytes")
    func wire() throws {
        let (goal, checkIns, _) = try Self.person()
        // README: begin
        let bytes = goal.wireEncoded()  // [UInt8], canonical
        let again = try Goal(wire: bytes)  // also from Data or Span<UInt8>
        let block = try CheckInBlock(goalID: goal.id, checkIns: checkIns)
        let read = try CheckInBlock(wire: block.wireEncoded()).checkIns  // == checkIns
        // README: end
        #expect(again == goal && read == checkIns && read.count == 3)
    }

    @Test("a bundle merges into the data already on a device")
    func bundle() throws {
        let (goal, _, dataSet) = try Self.person()
        var onThisDevice = try DataSet(profile: nil, goals: [], checkIns: [])
        try onThisDevice.add(
            try Goal(
                id: GoalID(high: 2, low: 2), title: "Read", kind: .streak, schedule: Schedule(.daily, from: Self.today),
                startDay: Self.today, createdAt: .epoch, modifiedAt: .epoch))
        // README: begin
        let bytes = BundleWriter.bundle(dataSet, options: BundleOptions(createdAt: .now))
        let merged = try BundleReader().importing(bytes, into: onThisDevice)  // verified first, or nothing
        // README: end
        #expect(merged.goals.count == 2 && merged.checkIns(of: goal.id).count == 3)
        #expect(throws: BundleError.self) { try BundleReader().importing(Array(bytes.dropLast()), into: onThisDevice) }
    }

    @Test("an encrypted bundle opens with its passphrase")
    func envelope() throws {
        let (_, _, data) = try Self.person()
        let bytes = BundleWriter.bundle(data, options: BundleOptions(createdAt: .now))
        let passphrase = "correct horse battery staple"
        // README: begin
        let key = RecoveryKey.random()  // show key.words once
        let file = try EnvelopeSealer.seal(bytes, passphrase: passphrase, recoveryKey: key)
        var opener = EnvelopeOpener(secret: .passphrase(passphrase))
        let plain = try opener.open(file) + opener.finish()  // or chunk by chunk as a download arrives
        // README: end
        #expect(plain == bytes && key.words.count == 34)
        var wrong = EnvelopeOpener(secret: .passphrase("another passphrase"))
        #expect(throws: BundleError.self) { try wrong.open(file) + wrong.finish() }
    }
}
