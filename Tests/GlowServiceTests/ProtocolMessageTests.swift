import Foundation
import GlowProtocol
import GlowWire
import Testing

/// The server protocol's message codec (SERVER-2, SERVER-4) and its schema against glow.proto.
@Suite("protocol messages")
struct ProtocolMessageTests {
    static let proto = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Spec/glow.proto")

    @Test("a message writes canonically: number order, defaults left out, optional presence kept")
    func canonical() {
        let tokens = ProtocolMessage("SessionTokens").with("refresh_token", "r").with("account", "a")
            .with("access_expires_at", .unsigned(0)).with("refresh_expires_at", .unsigned(300))
        #expect(tokens.wireEncoded() == [0x0A, 0x01, 0x61, 0x22, 0x01, 0x72, 0x30, 0xAC, 0x02])
        let relay = ProtocolMessage("RelayRequest").with("changes_since", .unsigned(0))
        #expect(relay.wireEncoded() == [0x10, 0x00], "a oneof member at its default is still written")
        #expect(ProtocolMessage("Done").wireEncoded().isEmpty)
    }

    @Test("what is written reads back equal, nested and repeated messages included")
    func roundTrip() throws {
        let entry = { (id: String) in
            ProtocolValue.message(
                ProtocolMessage("SessionEntry").with("id", id).with("current", .bool(true))
                    .with("signed_in_at", .unsigned(1_764_000_000_000)))
        }
        let list = ProtocolMessage("SessionList").with("sessions", .list([entry("a"), entry("b")]))
        let type = try #require(ProtocolSchema.type("SessionList"))
        #expect(try ProtocolMessage(type, wire: list.wireEncoded()) == list)
        let stamp = ProtocolMessage("FeedStamp").with("wall", .signed(-5)).with("device", "d")
        let stampType = try #require(ProtocolSchema.type("FeedStamp"))
        #expect(try ProtocolMessage(stampType, wire: stamp.wireEncoded()).values["wall"] == .signed(-5))
    }

    @Test(
        "reading skips unknown fields (SERVER-4) and refuses what a declared field cannot hold",
        arguments: [
            // field 999 (a string), then email: the unknown field is skipped.
            ("SignUpRequest", "ba3e036162630a0161", nil as String?),
            // a group-free fixed64 of an unknown number is skipped too.
            ("SignUpRequest", "f1ff0301020304050607080a0161", nil),
            ("SignUpRequest", "0801", "invalid_wire_type"),
            ("SignUpRequest", "0a05616263", "truncated"),
            ("SignUpRequest", "0a02c328", "invalid_utf8"),
            ("ServiceError", "28ffffffff1f", "invalid_value"),
            ("FeedItem", "40feffffff1f", "invalid_value"),
            ("SignUpRequest", "00", "invalid_field_number"),
        ])
    func reading(_ typeName: String, _ hex: String, _ code: String?) throws {
        let type = try #require(ProtocolSchema.type(typeName))
        let bytes = try HexText.bytes(Array(hex.utf8))
        if let code {
            #expect(throws: WireError.self) { try ProtocolMessage(type, wire: bytes) }
            do {
                _ = try ProtocolMessage(type, wire: bytes)
            } catch {
                #expect(error.code.description == code)
            }
        } else {
            let message = try ProtocolMessage(type, wire: bytes)
            #expect(message.string("email") == "a")
            #expect(message.values.count == 1)
        }
    }

    @Test("a message field given twice merges; a repeated one appends (WIRE-6)")
    func merging() throws {
        let type = try #require(ProtocolSchema.type("RelayChanges"))
        // delta: stances [A], cursor 1; then delta: stances [B], cursor 2.
        let first = ProtocolMessage("RelayChanges")
            .with(
                "delta",
                .message(
                    ProtocolMessage("FeedDelta").with(
                        "stances", .list([.message(ProtocolMessage("FeedStanceRegister").with("from", "a"))])))
            )
            .with("cursor", .unsigned(1)).wireEncoded()
        let second = ProtocolMessage("RelayChanges")
            .with(
                "delta",
                .message(
                    ProtocolMessage("FeedDelta").with(
                        "stances", .list([.message(ProtocolMessage("FeedStanceRegister").with("from", "b"))])))
            )
            .with("cursor", .unsigned(2)).wireEncoded()
        let merged = try ProtocolMessage(type, wire: first + second)
        #expect(merged.unsigned("cursor") == 2)
        let stances = merged.message("delta")?.list("stances") ?? []
        #expect(stances.count == 2)
    }

    @Test("nesting past the limit is depth_limit, not a crash")
    func depth() throws {
        let type = try #require(ProtocolSchema.type("RelayResponse"))
        var limits = WireLimits.default
        limits.maxDepth = 2
        // changes { delta { stances { stamp {} } } }: four levels.
        let bytes: [UInt8] = [0x12, 0x06, 0x0A, 0x04, 0x0A, 0x02, 0x22, 0x00]
        #expect(throws: WireError.self) { try ProtocolMessage(type, wire: bytes, limits: limits) }
        #expect(try ProtocolMessage(type, wire: bytes).message("changes") != nil)
    }

    /// The messages of glow.proto as its text declares them: name → field → (number, type, label).
    static func declared() throws -> [String: [String: (number: UInt32, type: String, label: String)]] {
        let text = try String(contentsOf: proto, encoding: .utf8)
        var messages: [String: [String: (UInt32, String, String)]] = [:]
        var current: String?
        var depth = 0
        for raw in text.split(separator: "\n") {
            let line =
                raw.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? ""
            if line.hasPrefix("message "), depth == 0 {
                current = String(line.dropFirst(8).split(separator: " ").first ?? "")
                messages[current!] = [:]
            }
            if line.hasPrefix("oneof ") { depth += 1; continue }
            if line == "}" {
                if depth > 0 { depth -= 1 } else { current = nil }
                continue
            }
            guard let message = current, line.hasSuffix(";"), line.contains(" = "), !line.hasPrefix("reserved") else {
                continue
            }
            var words = line.dropLast().split(separator: " ").map(String.init)
            var label = depth > 0 ? "oneof" : ""
            if words.first == "optional" || words.first == "repeated" { label = words.removeFirst() }
            guard words.count == 4, let number = UInt32(words[3]) else { continue }
            messages[message]?[words[1]] = (number, words[0], label)
        }
        return messages
    }

    @Test("the schema is glow.proto's: every message, field, number, type and label")
    func schemaMatchesProto() throws {
        let declared = try Self.declared()
        let enums: Set<String> = ["FeedItemKind", "Stance", "ReactionKind", "Visibility"]
        for (name, type) in ProtocolSchema.types {
            let fields = try #require(declared[name], "\(name) is not in glow.proto")
            #expect(Set(fields.keys) == Set(type.fields.map(\.name)), "\(name)'s fields")
            for field in type.fields {
                guard let proto = fields[field.name] else { continue }
                #expect(proto.number == field.number, "\(name).\(field.name)'s number")
                let expected: String =
                    switch field.type {
                    case .string: "string"
                    case .bytes: "bytes"
                    case .bool: "bool"
                    case .uint32: "uint32"
                    case .uint64: "uint64"
                    case .sint32: "sint32"
                    case .sint64: "sint64"
                    case .enumeration: "enum"
                    case .message(let inner): inner
                    }
                let actual = enums.contains(proto.type) ? "enum" : proto.type
                #expect(actual == expected, "\(name).\(field.name)'s type")
                #expect(field.repeated == (proto.label == "repeated"), "\(name).\(field.name) repeats")
                let presence = proto.label == "optional" || (proto.label == "oneof" && !expected.first!.isUppercase)
                #expect(field.optional == presence, "\(name).\(field.name)'s presence")
            }
        }
        for call in ["SignUpRequest", "SessionTokens", "ServiceError", "Health", "DeleteAccountRequest"] {
            #expect(ProtocolSchema.type(call) != nil)
        }
    }
}
