import GlowModel
import GlowWire
import Testing

@Suite("Robustness")
struct RobustnessTests {

    static var seeds: [[UInt8]] {
        let goal = Samples.goals[5]
        let block = try! CheckInBlock(goalID: goal.id, checkIns: Samples.checkIns(for: goal, days: 30))
        return [goal.wireEncoded(), Samples.profile.wireEncoded(), block.wireEncoded()]
    }

    /// Flipped bytes, cut inputs and spliced garbage: every input either decodes to a value that
    /// re-encodes to a fixed point, or throws a WireError that points inside the input and names
    /// its rule; nothing crashes, traps or hangs.
    @Test("mutated inputs decode or fail cleanly", arguments: 0..<3)
    func mutations(seedIndex: Int) throws {
        var random = SeededRandom(seed: UInt64(seedIndex) + 1)
        let seed = Self.seeds[seedIndex]
        var failures = 0
        for _ in 0..<3000 {
            var bytes = seed
            switch random.next() % 4 {
            case 0: bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            case 1: bytes.removeLast(Int(random.next() % UInt64(bytes.count)))
            case 2: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: Int(random.next() % UInt64(bytes.count)))
            default:
                let at = Int(random.next() % UInt64(bytes.count))
                bytes.replaceSubrange(at..<min(bytes.count, at + 4), with: [0xFF, 0xFF, 0xFF, 0x7F])
            }
            for decode in [Self.check(Goal.self), Self.check(Profile.self), Self.check(CheckInBlock.self)] {
                if let error = decode(bytes) {
                    failures += 1
                    #expect((0...bytes.count).contains(error.offset), "\(error) for \(bytes.count) bytes")
                    #expect(error.rule != nil, "\(error)")
                }
            }
            do {
                _ = try RawMessage.parse(bytes)
            } catch {
                #expect((0...bytes.count).contains(error.offset) && error.rule != nil, "\(error)")
            }
        }
        #expect(failures > 0, "mutations must be able to fail")
    }

    /// Decodes `bytes` as `T`: nil when it decodes (and then re-encodes to a fixed point), the
    /// error otherwise.
    static func check<T: WireMessage & Equatable>(_ type: T.Type) -> ([UInt8]) -> WireError? {
        { bytes in
            let value: T
            do throws(WireError) {
                value = try T(wire: bytes)
            } catch {
                return error
            }
            #expect((try? T(wire: value.wireEncoded())) == value, "a decoded value re-encodes to itself")
            return nil
        }
    }

    @Test("a decoded value re-encodes to bytes that decode to the same value")
    func canonicalFixedPoint() throws {
        var random = SeededRandom(seed: 99)
        for goal in Samples.goals {
            var bytes = goal.wireEncoded()
            // Append unknown fields of every wire type.
            bytes += [0xF8, 0x06, 0x2A]  // field 111, varint 42
            bytes += [0xFA, 0x06, 0x03, 0x61, 0x62, 0x63]  // field 111, "abc"
            bytes += [0xFD, 0x06] + (0..<4).map { _ in UInt8(truncatingIfNeeded: random.next()) }  // fixed32
            bytes += [0xF9, 0x06] + (0..<8).map { _ in UInt8(truncatingIfNeeded: random.next()) }  // fixed64
            let decoded = try Goal(wire: bytes)
            #expect(decoded.unknownFields.bytes.count == 3 + 6 + 6 + 10)
            #expect(decoded.wireEncoded() == bytes, "unknown fields are written back in order")
            #expect(try Goal(wire: decoded.wireEncoded()) == decoded)
        }
    }

    @Test("errors carry a code, an offset and a rule")
    func errorShape() {
        do {
            _ = try Goal(wire: [0x0A, 0x05, 0x01])
            Issue.record("decoded a truncated goal")
        } catch {
            #expect(error.code == .truncated)
            #expect(error.offset == 1)
            #expect(error.rule == "WIRE-9")
            #expect(error.description.contains("truncated at offset 1"))
        }
    }

    @Test("a span decodes like an array")
    func span() throws {
        let bytes = Samples.profile.wireEncoded()
        #expect(try Profile(wire: bytes.span) == Samples.profile)
    }
}
