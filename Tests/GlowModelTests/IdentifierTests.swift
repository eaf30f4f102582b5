import Foundation
import GlowCore
import GlowModel
import Testing

@Suite("Identifiers")
struct IdentifierTests {
    @Test("UUIDv7 identifiers from one generator strictly increase, even within a millisecond")
    func monotonic() {
        let clock = Locked<Int64>(1_735_689_600_000)
        var generator = UUIDv7Generator(
            clock: { try! Instant(millisecondsSince1970: clock.withLock { $0 }) }, random: SeededRandom(seed: 1))
        var previous: GoalID = generator.next()
        for step in 0..<10_000 {
            if step % 3_000 == 0 { clock.withLock { $0 += 1 } }
            if step == 5_000 { clock.withLock { $0 -= 50 } }  // the clock steps back: order still holds
            let next: GoalID = generator.next()
            #expect(previous < next)
            #expect(next.version == 7)
            #expect(next.low >> 62 == 0b10)
            previous = next
        }
    }

    @Test("the same clock and seed give the same identifiers")
    func deterministic() {
        func make() -> [String] {
            var generator = UUIDv7Generator(
                clock: { try! Instant(millisecondsSince1970: 1_700_000_000_000) }, random: SeededRandom(seed: 42))
            return (0..<5).map { _ in (generator.next() as UserID).description }
        }
        #expect(make() == make())
        #expect(make()[0].hasPrefix("018bcfe5-6800-7"))
    }

    @Test("text and Foundation UUID agree")
    func foundation() throws {
        let id = try DeviceID("F47AC10B-58CC-4372-A567-0E02B2C3D479")
        #expect(id.description == "f47ac10b-58cc-4372-a567-0e02b2c3d479")
        #expect(id.uuid.uuidString == "F47AC10B-58CC-4372-A567-0E02B2C3D479")
        #expect(DeviceID(id.uuid) == id)
        #expect(id.version == 4)
    }

    @Test("the system generator makes version 7 identifiers close to now")
    func system() {
        var generator = UUIDv7Generator()
        let id: GoalID = generator.next()
        let millis = Int64(id.high >> 16)
        #expect(abs(millis - Instant.now.millisecondsSince1970) < 60_000)
    }
}
