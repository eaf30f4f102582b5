import GlowModel
import GlowWire

// The feed's messages of `Spec/glow.proto` (FEED-28): a replica or a delta is a `FeedDelta`,
// written in one canonical order and read from any valid encoding. Feed messages are exchanged,
// not stored as records: fields this version does not know are skipped, not kept.

extension FeedReplica: WireRecord {
    package func encodeFields(to writer: inout WireWriter) {
        for (key, register) in stances.sorted(by: { Self.precedes(($0.key.from, $0.key.to), ($1.key.from, $1.key.to)) })
        {
            guard let stamp = register.stamp else { continue }
            writer.message(1) { w in
                w.string(1, key.from)
                w.string(2, key.to)
                w.uint(3, register.stance.wireNumber)
                w.message(4) { stamp.encodeFields(to: &$0) }
                if let lastNo = register.lastNo { w.message(5) { lastNo.encodeFields(to: &$0) } }
            }
        }
        for (id, register) in items.sorted(by: { $0.key < $1.key }) {
            writer.message(2) { w in
                w.string(1, id.text)
                w.message(2) { register.stamp.encodeFields(to: &$0) }
                if let item = register.value { w.message(3) { item.encodeFields(to: &$0) } }
            }
        }
        for (key, register) in visibility.sorted(by: {
            Self.precedes(($0.key.owner, $0.key.goal), ($1.key.owner, $1.key.goal))
        }) {
            writer.message(3) { w in
                w.string(1, key.owner)
                w.string(2, key.goal)
                w.uint(3, register.value.wireNumber)
                w.message(4) { register.stamp.encodeFields(to: &$0) }
            }
        }
        for (key, register) in reactions.sorted(by: { a, b in
            a.key.item != b.key.item
                ? a.key.item < b.key.item
                : Self.precedes((a.key.reactor, a.key.kind.rawValue), (b.key.reactor, b.key.kind.rawValue))
        }) {
            writer.message(4) { w in
                w.string(1, key.item.text)
                w.string(2, key.reactor)
                w.uint(3, key.kind.wireNumber)
                w.bool(4, register.value)
                w.message(5) { register.stamp.encodeFields(to: &$0) }
            }
        }
        for (person, time) in seen.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            writer.message(5) { w in
                w.string(1, person)
                w.sint(2, time)
            }
        }
        for (id, time) in receipts.sorted(by: { $0.key < $1.key }) {
            writer.message(6) { w in
                w.string(1, id.text)
                w.sint(2, time)
            }
        }
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> FeedReplica {
        var replica = FeedReplica()
        var ignored: [UInt8] = []
        try reader.forEachField(unknown: &ignored) { (r, f) throws(WireError) in
            guard (1...6).contains(f.number) else { return false }
            try r.expect(f, .lengthDelimited)
            let start = f.start
            try r.nested { (m: inout WireReader) throws(WireError) in
                var fields = RegisterFields()
                try fields.read(from: &m, message: f.number)
                try fields.apply(to: &replica, message: f.number, at: start)
            }
            return true
        }
        return replica
    }

    /// Pairs of texts in the order of their UTF-8 bytes.
    static func precedes(_ a: (String, String), _ b: (String, String)) -> Bool {
        a.0 != b.0 ? a.0.utf8.lexicographicallyPrecedes(b.0.utf8) : a.1.utf8.lexicographicallyPrecedes(b.1.utf8)
    }
}

extension WireReader {
    /// A `FeedDelta` field, read whole; the caller merges it where a message given twice would
    /// merge (WIRE-6).
    mutating func readDelta(_ field: Field) throws(WireError) -> FeedReplica {
        try expect(field, .lengthDelimited)
        return try nested { (m: inout WireReader) throws(WireError) in try FeedReplica.decodeFields(from: &m) }
    }
}

/// The fields of one register message as read: every kind's fields in one place, since the
/// six messages share numbers and shapes.
private struct RegisterFields {
    var texts: [UInt32: String] = [:]
    var numbers: [UInt32: UInt64] = [:]
    var stamps: [UInt32: StampFields] = [:]
    var item: ItemFields?

    /// Field numbers whose wire type is a varint, per message (FEED-28).
    static func isNumber(_ field: UInt32, in message: UInt32) -> Bool {
        switch message {
        case 1, 3: field == 3
        case 4: field == 3 || field == 4
        case 5, 6: field == 2
        default: false
        }
    }

    static func isStamp(_ field: UInt32, in message: UInt32) -> Bool {
        switch message {
        case 1: field == 4 || field == 5
        case 2: field == 2
        case 3: field == 4
        case 4: field == 5
        default: false
        }
    }

    mutating func read(from reader: inout WireReader, message: UInt32) throws(WireError) {
        var ignored: [UInt8] = []
        try reader.forEachField(unknown: &ignored) { (r, f) throws(WireError) in
            if f.number == 1 || (f.number == 2 && [1, 3, 4].contains(message)) {
                texts[f.number] = try r.readString(f)
            } else if Self.isNumber(f.number, in: message) {
                numbers[f.number] = try r.readUInt(f)
            } else if Self.isStamp(f.number, in: message) {
                try r.expect(f, .lengthDelimited)
                var stamp = stamps[f.number] ?? StampFields()
                try r.nested { (s: inout WireReader) throws(WireError) in try stamp.read(from: &s) }
                stamps[f.number] = stamp
            } else if message == 2 && f.number == 3 {
                try r.expect(f, .lengthDelimited)
                var fields = item ?? ItemFields()
                try r.nested { (i: inout WireReader) throws(WireError) in try fields.read(from: &i) }
                item = fields
            } else {
                return false
            }
            return true
        }
    }

    func text(_ field: UInt32) -> String { texts[field] ?? "" }

    func stamp(_ field: UInt32, at offset: Int) throws(WireError) -> Stamp {
        guard let fields = stamps[field] else {
            throw WireError(.invalidValue, at: offset, "a register has no stamp", rule: "FEED-28")
        }
        return try fields.make(at: offset)
    }

    func apply(to replica: inout FeedReplica, message: UInt32, at offset: Int) throws(WireError) {
        func invalid(_ text: String) -> WireError { WireError(.invalidValue, at: offset, text, rule: "FEED-28") }
        func known<T>(_ value: T?, _ what: String) throws(WireError) -> T {
            guard let value else { throw invalid("\(what) \(numbers[3] ?? 0) is not one this version knows") }
            return value
        }
        switch message {
        case 1:
            guard !text(1).isEmpty, !text(2).isEmpty, text(1) != text(2) else {
                throw invalid("a stance names two different people")
            }
            let stance = try known(Stance(wireNumber: numbers[3] ?? 0), "stance")
            let stamp = try stamp(4, at: offset)
            var register = StanceRegister()
            if stamps[5] != nil {
                let lastNo = try self.stamp(5, at: offset)
                guard lastNo <= stamp else { throw invalid("a stance's last \"no\" is newer than its stamp") }
                register.write(.none, at: lastNo)
            }
            register.write(stance, at: stamp)
            replica.mergeStance(register, for: .init(from: text(1), to: text(2)))
        case 2:
            let stamp = try stamp(2, at: offset)
            let id = FeedItemID(text(1))
            let item = try item.map { (fields) throws(WireError) in try fields.make(at: offset) }
            guard !id.text.isEmpty, item.map({ $0.key == id }) ?? true else {
                throw invalid("an item register's id is not its item's id")
            }
            replica.writeItem(item, id: id, at: stamp)
        case 3:
            guard !text(1).isEmpty, !text(2).isEmpty else { throw invalid("a visibility names its owner and goal") }
            let value = try known(Visibility(wireNumber: numbers[3] ?? 0), "visibility")
            let stamp = try stamp(4, at: offset)
            replica.writeVisibility(value, owner: text(1), goal: text(2), at: stamp)
        case 4:
            guard !text(1).isEmpty, !text(2).isEmpty else { throw invalid("a reaction names its item and reactor") }
            let kind = try known(ReactionKind(wireNumber: numbers[3] ?? 0), "reaction kind")
            let stamp = try stamp(5, at: offset)
            replica.writeReaction(
                (numbers[4] ?? 0) != 0, item: FeedItemID(text(1)), reactor: text(2), kind: kind, at: stamp)
        case 5, 6:
            guard !text(1).isEmpty else { throw invalid("a time names whose it is") }
            let time = unzigzag(numbers[2] ?? 0)
            if message == 5 {
                replica.markSeen(text(1), upTo: time)
            } else {
                replica.receive(item: FeedItemID(text(1)), at: time)
            }
        default:
            break
        }
    }
}

/// A `FeedStamp` as read; a message given twice merges (WIRE-6).
private struct StampFields {
    var wall: Int64 = 0
    var counter = 0
    var device = ""

    mutating func read(from reader: inout WireReader) throws(WireError) {
        var ignored: [UInt8] = []
        try reader.forEachField(unknown: &ignored) { (r, f) throws(WireError) in
            switch f.number {
            case 1: wall = try r.readSInt(f)
            case 2: counter = try r.readUInt32(f)
            case 3: device = try r.readString(f)
            default: return false
            }
            return true
        }
    }

    func make(at offset: Int) throws(WireError) -> Stamp {
        do {
            return try Stamp(wall: wall, counter: Int64(counter), device: device)
        } catch {
            throw WireError(.invalidValue, at: offset, error.message, rule: "FEED-28")
        }
    }
}

extension Stamp {
    func encodeFields(to writer: inout WireWriter) {
        writer.sint(1, wall)
        writer.uint(2, UInt64(counter))
        writer.string(3, device)
    }
}

/// A `FeedItem` as read, before validation (FEED-6).
private struct ItemFields {
    var owner = ""
    var kind: UInt64 = 0
    var goal = ""
    var time: Int64 = 0
    var title = ""
    var emoji = ""
    var goalKind = ""
    var day: Int64?
    var streak: Int?
    var milestone: Int?
    var streakStart: Int64?

    mutating func read(from reader: inout WireReader) throws(WireError) {
        var ignored: [UInt8] = []
        try reader.forEachField(unknown: &ignored) { (r, f) throws(WireError) in
            switch f.number {
            case 1: owner = try r.readString(f)
            case 2: kind = try r.readUInt(f)
            case 3: goal = try r.readString(f)
            case 4: time = try r.readSInt(f)
            case 5: title = try r.readString(f)
            case 6: emoji = try r.readString(f)
            case 7: goalKind = try r.readString(f)
            case 8: day = try r.readSInt(f)
            case 9: streak = try r.readUInt32(f)
            case 10: milestone = try r.readUInt32(f)
            case 11: streakStart = try r.readSInt(f)
            default: return false
            }
            return true
        }
    }

    func make(at offset: Int) throws(WireError) -> FeedItem {
        guard let kind = FeedItem.Kind(wireNumber: kind) else {
            throw WireError(
                .invalidValue, at: offset, "item kind \(kind) is not one this version knows", rule: "FEED-28")
        }
        var days: [Day?] = []
        for value in [day, streakStart] {
            guard let value else {
                days.append(nil)
                continue
            }
            guard let number = Int(exactly: value), let day = try? Day(daysSince1970: number) else {
                throw WireError(.invalidValue, at: offset, "day \(value) is outside years 1...9999", rule: "WIRE-17")
            }
            days.append(day)
        }
        do {
            return try FeedItem(
                owner: owner, kind: kind, goal: goal, time: time, title: title, emoji: emoji, goalKind: goalKind,
                day: days[0], streak: streak, milestone: milestone, streakStart: days[1])
        } catch {
            throw WireError(.invalidValue, at: offset, error.message, rule: error.rule)
        }
    }
}

extension FeedItem {
    func encodeFields(to writer: inout WireWriter) {
        writer.string(1, owner)
        writer.uint(2, kind.wireNumber)
        writer.string(3, goal)
        writer.sint(4, time)
        writer.string(5, title)
        writer.string(6, emoji)
        writer.string(7, goalKind)
        if let day { writer.presentSInt(8, Int64(day.daysSince1970)) }
        if let streak { writer.presentUInt(9, UInt64(streak)) }
        if let milestone { writer.presentUInt(10, UInt64(milestone)) }
        if let streakStart { writer.presentSInt(11, Int64(streakStart.daysSince1970)) }
    }
}

/// The feed's enums number their cases in declaration order, as `Spec/glow.proto` does.
protocol FeedWireCase: CaseIterable, Equatable where AllCases == [Self] {}

extension FeedWireCase {
    var wireNumber: UInt64 { UInt64(Self.allCases.firstIndex(of: self)!) }

    init?(wireNumber: UInt64) {
        guard wireNumber < Self.allCases.count else { return nil }
        self = Self.allCases[Int(wireNumber)]
    }
}

extension FeedItem.Kind: FeedWireCase {}
extension Stance: FeedWireCase {}
extension ReactionKind: FeedWireCase {}
