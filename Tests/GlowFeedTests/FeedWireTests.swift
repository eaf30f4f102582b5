import Foundation
import GlowModel
import GlowProtocol
import GlowRelay
import GlowWire
import Testing

@testable import GlowFeed

/// The feed's messages (FEED-28, FEED-29) over random histories: what the corpus shows case by
/// case, here for every kind of register at once.
@Suite("Feed messages")
struct FeedWireTests {
    @Test("a replica reads back equal from its bytes, and equal replicas have equal bytes", arguments: 0..<30)
    func roundTrip(seed: UInt64) throws {
        let replicas = try FeedReplicaTests.replicas(seed: seed)
        var whole = replicas[0]
        whole.merge(replicas[1])
        whole.merge(replicas[2])
        var otherWay = replicas[2]
        otherWay.merge(replicas[0])
        otherWay.merge(replicas[1])
        let bytes = whole.wireEncoded()
        #expect(bytes == otherWay.wireEncoded(), "merged in another order, the same bytes")
        let back = try FeedReplica(wire: bytes)
        #expect(back == whole)
        #expect(back.wireEncoded() == bytes)
        // A delta's bytes split anywhere between registers and read as two merge like the replicas.
        let first = try FeedReplica(wire: replicas[0].wireEncoded() + replicas[1].wireEncoded())
        var expected = replicas[0]
        expected.merge(replicas[1])
        #expect(first == expected)
    }

    @Test("every prefix of a replica's bytes is read or refused with a typed error, never trapping")
    func prefixes() throws {
        let replicas = try FeedReplicaTests.replicas(seed: 7)
        let bytes = replicas[0].wireEncoded()
        var refused = 0
        for end in 0..<bytes.count {
            do {
                _ = try FeedReplica(wire: Array(bytes[..<end]))
            } catch {
                refused += 1
                #expect(error.offset <= end)
            }
        }
        #expect(refused > bytes.count / 2, "most cuts fall inside a register")
    }

    @Test("the relay's answers in bytes are its typed answers")
    func relayInBytes() throws {
        let relay = FeedRelay()
        let stamp = try Stamp(wall: 5, counter: 0, device: "ana1")
        var mine = FeedReplica()
        mine.writeStance(.want, from: "ana", to: "bob", at: stamp)
        mine.writeVisibility(.public, owner: "ana", goal: "g1", at: stamp)
        let submitted = relay.handle(RelayRequest.submit(mine).wireEncoded(), from: "ana", now: 1_000)
        #expect(try RelayResponse(wire: submitted) == .submitted(2))
        let asked = relay.handle(RelayRequest.changes(since: 0).wireEncoded(), from: "bob", now: 1_001)
        let direct = try relay.changes(for: "bob", since: 0)
        #expect(try RelayResponse(wire: asked) == .changes(direct.delta, cursor: direct.cursor))
        let refused = relay.respond(to: RelayRequest.submit(mine).wireEncoded(), from: "bob", now: 1_002)
        guard case .error(let code, let message, let rule) = refused else {
            Issue.record("bob sent ana's writes and was not refused: \(refused)")
            return
        }
        #expect(code == "not_author" && rule == "FEED-25" && !message.isEmpty)
        #expect(try RelayResponse(wire: refused.wireEncoded()) == refused)
        #expect(try relay.changes(for: "cat", since: 0).cursor == 2, "the refused submit changed nothing")
    }

    @Test(
        "each enum on the feed's wire writes and reads its cases as Spec/glow.proto numbers them",
        arguments: PinnedEnum.all)
    func enumNumbers(_ pinned: PinnedEnum) throws {
        let proto = try Self.protoEnum(named: pinned.proto)
        let constants = pinned.cases.map { pinned.prefix + Self.screamingSnake($0.name) }
        #expect(Set(constants) == Set(proto.keys), "one Swift case for each value of \(pinned.proto)")
        for ((name, number), constant) in zip(pinned.cases, constants) {
            let declared = try #require(proto[constant], "\(constant) is not in glow.proto")
            #expect(number == declared, "\(name) is written as \(constant)")
            #expect(pinned.read(declared) == name, "\(constant) reads as \(name)")
        }
        // A number glow.proto does not name reads as no case, so its register is refused (FEED-28).
        let unnamed = (proto.values.max() ?? 0) + 1
        for number in [unnamed, UInt64(Int32.max), UInt64.max] {
            #expect(pinned.read(number) == nil, "\(number) names no \(pinned.proto)")
        }
    }

    /// The values of one enum of `Spec/glow.proto`, by constant name.
    static func protoEnum(named name: String) throws -> [String: UInt64] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Spec/glow.proto")
        var lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            // A line's comment is no part of its declaration.
            String($0.prefix { $0 != "/" }).trimmingCharacters(in: .whitespaces)
        }[...]
        guard let start = lines.firstIndex(of: "enum \(name) {") else { throw ProtoError("no enum \(name)") }
        lines = lines[(start + 1)...].prefix { $0 != "}" }
        var values: [String: UInt64] = [:]
        for line in lines where !line.isEmpty {
            let parts = line.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[1].hasSuffix(";"), let number = UInt64(parts[1].dropLast()) else {
                throw ProtoError("\(name): \"\(line)\" is not CONSTANT = number;")
            }
            values[parts[0]] = number
        }
        return values
    }

    /// `goalStarted` as glow.proto spells its constants: `GOAL_STARTED`.
    static func screamingSnake(_ name: String) -> String {
        name.map { $0.isUppercase ? "_\($0)" : $0.uppercased() }.joined()
    }

    struct ProtoError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// One enum the feed's messages carry, as the Swift code numbers it: each case by name with the
/// number it is written as, and a reader from number back to a case's name.
struct PinnedEnum: Sendable, CustomTestStringConvertible {
    /// The enum's name in glow.proto.
    let proto: String
    /// The prefix of its constants, as proto3's style gives them.
    let prefix: String
    /// Each case's name (its raw value) and the number it is written as.
    let cases: [(name: String, number: UInt64)]
    /// The name of the case a number reads as, or nil for none.
    let read: @Sendable (UInt64) -> String?

    var testDescription: String { proto }

    init<E: CaseIterable & RawRepresentable<String> & Sendable>(
        _ proto: String, prefix: String, _: E.Type, number: (E) -> UInt64, read: @escaping @Sendable (UInt64) -> E?
    ) {
        self.proto = proto
        self.prefix = prefix
        self.cases = E.allCases.map { ($0.rawValue, number($0)) }
        self.read = { read($0)?.rawValue }
    }

    // Visibility's numbers are GlowWire's, but the feed's visibility registers carry them too.
    static let all = [
        PinnedEnum("FeedItemKind", prefix: "FEED_ITEM_KIND_", FeedItem.Kind.self, number: \.wireNumber) {
            FeedItem.Kind(wireNumber: $0)
        },
        PinnedEnum("Stance", prefix: "STANCE_", Stance.self, number: \.wireNumber) { Stance(wireNumber: $0) },
        PinnedEnum("ReactionKind", prefix: "REACTION_KIND_", ReactionKind.self, number: \.wireNumber) {
            ReactionKind(wireNumber: $0)
        },
        PinnedEnum("Visibility", prefix: "VISIBILITY_", Visibility.self, number: \.wireNumber) {
            Visibility(wireNumber: $0)
        },
    ]
}
