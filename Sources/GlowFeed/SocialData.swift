import GlowWire

/// A person's own social data (FEED-30): their friendships (the stance registers between them
/// and anyone), the reactions they gave and their seen marker. It travels in their export
/// bundle so that a new device restores it; items, visibility and receipt times do not (the
/// data set gives the first two, the relay the third), and credentials never.
public struct SocialData: Hashable, Sendable {
    /// Whose data it is: their feed id.
    public let person: String
    /// The registers, as a replica.
    public let registers: FeedReplica

    /// `person`'s social data as `replica` holds it.
    public init(of person: String, in replica: FeedReplica) {
        self.person = person
        var registers = FeedReplica()
        for (key, register) in replica.stances where key.from == person || key.to == person {
            registers.mergeStance(register, for: key)
        }
        for (key, register) in replica.reactions where key.reactor == person {
            registers.writeReaction(register.value, item: key.item, reactor: person, kind: key.kind, at: register.stamp)
        }
        if let mark = replica.seen[person] { registers.markSeen(person, upTo: mark) }
        self.registers = registers
    }

    /// Social data as given, checked to be `person`'s only.
    ///
    /// - Throws: ``FeedError/Code/notAuthor`` for a register that is not the person's, an item,
    ///   a visibility register or a receipt time (FEED-30).
    public init(person: String, registers: FeedReplica) throws(FeedError) {
        let foreign =
            person.isEmpty || !registers.items.isEmpty || !registers.visibility.isEmpty
            || !registers.receipts.isEmpty
            || registers.stances.keys.contains { $0.from != person && $0.to != person }
            || registers.reactions.keys.contains { $0.reactor != person }
            || registers.seen.keys.contains { $0 != person }
        guard !foreign else {
            throw FeedError(
                .notAuthor,
                "social data holds only its person's stances, reactions given and seen marker", rule: "FEED-30")
        }
        self.person = person
        self.registers = registers
    }
}

extension SocialData: WireRecord {
    package func encodeFields(to writer: inout WireWriter) {
        writer.string(FeedSocialField.person, person)
        writer.message(FeedSocialField.registers) { registers.encodeFields(to: &$0) }
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> SocialData {
        let start = reader.offset
        var person = ""
        var registers = FeedReplica()
        var ignored: [UInt8] = []
        try reader.forEachField(unknown: &ignored) { (r, f) throws(WireError) in
            switch FeedSocialField(rawValue: f.number) {
            case .person: person = try r.readString(f)
            case .registers: registers.merge(try r.readDelta(f))
            case nil: return false
            }
            return true
        }
        do {
            return try SocialData(person: person, registers: registers)
        } catch {
            throw WireError(.invalidValue, at: start, error.message, rule: error.rule)
        }
    }
}

/// `FeedSocial` (FEED-30).
private enum FeedSocialField: UInt32, FeedWireField {
    case person = 1
    case registers = 2
}
