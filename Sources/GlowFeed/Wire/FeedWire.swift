import GlowCore
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
            writer.message(FeedDeltaField.stances) { w in
                w.string(FeedStanceRegisterField.from, key.from)
                w.string(FeedStanceRegisterField.to, key.to)
                w.uint(FeedStanceRegisterField.stance, register.stance.wireNumber)
                w.message(FeedStanceRegisterField.stamp) { stamp.encodeFields(to: &$0) }
                if let lastNo = register.lastNo {
                    w.message(FeedStanceRegisterField.lastNo) { lastNo.encodeFields(to: &$0) }
                }
            }
        }
        for (id, register) in items.sorted(by: { $0.key < $1.key }) {
            writer.message(FeedDeltaField.items) { w in
                w.string(FeedItemRegisterField.id, id.text)
                w.message(FeedItemRegisterField.stamp) { register.stamp.encodeFields(to: &$0) }
                if let item = register.value { w.message(FeedItemRegisterField.item) { item.encodeFields(to: &$0) } }
            }
        }
        for (key, register) in visibility.sorted(by: {
            Self.precedes(($0.key.owner, $0.key.goal), ($1.key.owner, $1.key.goal))
        }) {
            writer.message(FeedDeltaField.visibility) { w in
                w.string(FeedVisibilityRegisterField.owner, key.owner)
                w.string(FeedVisibilityRegisterField.goal, key.goal)
                w.uint(FeedVisibilityRegisterField.visibility, register.value.wireNumber)
                w.message(FeedVisibilityRegisterField.stamp) { register.stamp.encodeFields(to: &$0) }
            }
        }
        for (key, register) in reactions.sorted(by: { a, b in
            a.key.item != b.key.item
                ? a.key.item < b.key.item
                : Self.precedes((a.key.reactor, a.key.kind.rawValue), (b.key.reactor, b.key.kind.rawValue))
        }) {
            writer.message(FeedDeltaField.reactions) { w in
                w.string(FeedReactionRegisterField.item, key.item.text)
                w.string(FeedReactionRegisterField.reactor, key.reactor)
                w.uint(FeedReactionRegisterField.kind, key.kind.wireNumber)
                w.bool(FeedReactionRegisterField.on, register.value)
                w.message(FeedReactionRegisterField.stamp) { register.stamp.encodeFields(to: &$0) }
            }
        }
        for (person, time) in seen.sorted(by: { $0.key.precedesInUTF8($1.key) }) {
            writer.message(FeedDeltaField.seen) { w in
                w.string(FeedTimeField.key, person)
                w.sint(FeedTimeField.time, time)
            }
        }
        for (id, time) in receipts.sorted(by: { $0.key < $1.key }) {
            writer.message(FeedDeltaField.receipts) { w in
                w.string(FeedTimeField.key, id.text)
                w.sint(FeedTimeField.time, time)
            }
        }
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> FeedReplica {
        var replica = FeedReplica()
        var ignored: [UInt8] = []
        try reader.forEachField(unknown: &ignored) { (r, f) throws(WireError) in
            guard let member = FeedDeltaField(rawValue: f.number) else { return false }
            try r.expect(f, .lengthDelimited)
            let start = f.start
            try r.nested { (m: inout WireReader) throws(WireError) in
                switch member {
                case .stances: try RegisterFields<FeedStanceRegisterField>(from: &m, at: start).apply(to: &replica)
                case .items: try RegisterFields<FeedItemRegisterField>(from: &m, at: start).apply(to: &replica)
                case .visibility:
                    try RegisterFields<FeedVisibilityRegisterField>(from: &m, at: start).apply(to: &replica)
                case .reactions: try RegisterFields<FeedReactionRegisterField>(from: &m, at: start).apply(to: &replica)
                case .seen, .receipts:
                    try RegisterFields<FeedTimeField>(from: &m, at: start).apply(to: &replica, as: member)
                }
            }
            return true
        }
        return replica
    }

    /// Pairs of texts in the order of their UTF-8 bytes.
    static func precedes(_ a: (String, String), _ b: (String, String)) -> Bool {
        a.0 != b.0 ? a.0.precedesInUTF8(b.0) : a.1.precedesInUTF8(b.1)
    }
}

extension WireReader {
    /// A `FeedDelta` field, read whole; the caller merges it where a message given twice would
    /// merge (WIRE-6).
    package mutating func readDelta(_ field: Field) throws(WireError) -> FeedReplica {
        try expect(field, .lengthDelimited)
        return try nested { (m: inout WireReader) throws(WireError) in try FeedReplica.decodeFields(from: &m) }
    }
}

// MARK: - Field tables (glow.proto's numbers, each written once for encoder and decoder)

/// `FeedDelta`: one repeated field per kind of register (FEED-28).
private enum FeedDeltaField: UInt32, FeedWireField {
    case stances = 1
    case items = 2
    case visibility = 3
    case reactions = 4
    case seen = 5
    case receipts = 6
}

/// How a register message's field is read: the register messages share their shapes, so one
/// reader serves all of them.
private enum RegisterFieldShape {
    case text, number, stamp, item
}

/// A register message's field table, with each field's shape.
private protocol RegisterField: FeedWireField {
    var shape: RegisterFieldShape { get }
}

/// `FeedStanceRegister` (FEED-3).
private enum FeedStanceRegisterField: UInt32, RegisterField {
    case from = 1
    case to = 2
    case stance = 3
    case stamp = 4
    case lastNo = 5

    var shape: RegisterFieldShape {
        switch self {
        case .from, .to: .text
        case .stance: .number
        case .stamp, .lastNo: .stamp
        }
    }
}

/// `FeedItemRegister` (FEED-7).
private enum FeedItemRegisterField: UInt32, RegisterField {
    case id = 1
    case stamp = 2
    case item = 3

    var shape: RegisterFieldShape {
        switch self {
        case .id: .text
        case .stamp: .stamp
        case .item: .item
        }
    }
}

/// `FeedVisibilityRegister`.
private enum FeedVisibilityRegisterField: UInt32, RegisterField {
    case owner = 1
    case goal = 2
    case visibility = 3
    case stamp = 4

    var shape: RegisterFieldShape {
        switch self {
        case .owner, .goal: .text
        case .visibility: .number
        case .stamp: .stamp
        }
    }
}

/// `FeedReactionRegister`.
private enum FeedReactionRegisterField: UInt32, RegisterField {
    case item = 1
    case reactor = 2
    case kind = 3
    case on = 4
    case stamp = 5

    var shape: RegisterFieldShape {
        switch self {
        case .item, .reactor: .text
        case .kind, .on: .number
        case .stamp: .stamp
        }
    }
}

/// `FeedTime`: a seen marker or a receipt time.
private enum FeedTimeField: UInt32, RegisterField {
    case key = 1
    case time = 2

    var shape: RegisterFieldShape {
        switch self {
        case .key: .text
        case .time: .number
        }
    }
}

/// `FeedStamp` (FEED-1).
private enum FeedStampField: UInt32, FeedWireField {
    case wall = 1
    case counter = 2
    case device = 3
}

/// `FeedItem` (FEED-6).
private enum FeedItemField: UInt32, FeedWireField {
    case owner = 1
    case kind = 2
    case goal = 3
    case time = 4
    case title = 5
    case emoji = 6
    case goalKind = 7
    case day = 8
    case streak = 9
    case milestone = 10
    case streakStart = 11
}

// MARK: - Registers

/// The fields of one register message as read, by the field table `Field`; the register is
/// refused at `offset`, its field tag (FEED-28).
private struct RegisterFields<Field: RegisterField> {
    let offset: Int
    var texts: [Field: String] = [:]
    var numbers: [Field: UInt64] = [:]
    var stamps: [Field: StampFields] = [:]
    var item: ItemFields?

    init(from reader: inout WireReader, at offset: Int) throws(WireError) {
        self.offset = offset
        var ignored: [UInt8] = []
        try reader.forEachField(unknown: &ignored) { (r, f) throws(WireError) in
            guard let field = Field(rawValue: f.number) else { return false }
            switch field.shape {
            case .text: texts[field] = try r.readString(f)
            case .number: numbers[field] = try r.readUInt(f)
            case .stamp:
                try r.expect(f, .lengthDelimited)
                var stamp = stamps[field] ?? StampFields()
                try r.nested { (s: inout WireReader) throws(WireError) in try stamp.read(from: &s) }
                stamps[field] = stamp
            case .item:
                try r.expect(f, .lengthDelimited)
                var fields = item ?? ItemFields()
                try r.nested { (i: inout WireReader) throws(WireError) in try fields.read(from: &i) }
                item = fields
            }
            return true
        }
    }

    func text(_ field: Field) -> String { texts[field] ?? "" }

    func number(_ field: Field) -> UInt64 { numbers[field] ?? 0 }

    func stamp(_ field: Field) throws(WireError) -> Stamp {
        guard let fields = stamps[field] else { throw invalid("a register has no stamp") }
        return try fields.make(at: offset)
    }

    func invalid(_ text: String) -> WireError { WireError(.invalidValue, at: offset, text, rule: "FEED-28") }

    /// The case an enum field's number names; a number this version does not name refuses the
    /// register (FEED-28).
    func known<T>(_ field: Field, _ what: String, _ make: (UInt64) -> T?) throws(WireError) -> T {
        guard let value = make(number(field)) else {
            throw invalid("\(what) \(number(field)) is not one this version knows")
        }
        return value
    }
}

extension RegisterFields where Field == FeedStanceRegisterField {
    func apply(to replica: inout FeedReplica) throws(WireError) {
        guard !text(.from).isEmpty, !text(.to).isEmpty, text(.from) != text(.to) else {
            throw invalid("a stance names two different people")
        }
        let stance = try known(.stance, "stance", Stance.init(wireNumber:))
        let stamp = try stamp(.stamp)
        var register = StanceRegister()
        // FEED-3: the register as writing `none` at its last "no" and then its stance gives.
        if stamps[.lastNo] != nil {
            let lastNo = try self.stamp(.lastNo)
            guard lastNo <= stamp else { throw invalid("a stance's last \"no\" is newer than its stamp") }
            register.write(.none, at: lastNo)
        }
        register.write(stance, at: stamp)
        replica.mergeStance(register, for: .init(from: text(.from), to: text(.to)))
    }
}

extension RegisterFields where Field == FeedItemRegisterField {
    func apply(to replica: inout FeedReplica) throws(WireError) {
        let stamp = try stamp(.stamp)
        let id = FeedItemID(text(.id))
        let item = try item.map { (fields) throws(WireError) in try fields.make(at: offset) }
        guard !id.text.isEmpty, item.map({ $0.key == id }) ?? true else {
            throw invalid("an item register's id is not its item's id")
        }
        replica.writeItem(item, id: id, at: stamp)
    }
}

extension RegisterFields where Field == FeedVisibilityRegisterField {
    func apply(to replica: inout FeedReplica) throws(WireError) {
        guard !text(.owner).isEmpty, !text(.goal).isEmpty else {
            throw invalid("a visibility names its owner and goal")
        }
        let value = try known(.visibility, "visibility", Visibility.init(wireNumber:))
        let stamp = try stamp(.stamp)
        replica.writeVisibility(value, owner: text(.owner), goal: text(.goal), at: stamp)
    }
}

extension RegisterFields where Field == FeedReactionRegisterField {
    func apply(to replica: inout FeedReplica) throws(WireError) {
        guard !text(.item).isEmpty, !text(.reactor).isEmpty else {
            throw invalid("a reaction names its item and reactor")
        }
        let kind = try known(.kind, "reaction kind", ReactionKind.init(wireNumber:))
        let stamp = try stamp(.stamp)
        replica.writeReaction(
            number(.on) != 0, item: FeedItemID(text(.item)), reactor: text(.reactor), kind: kind, at: stamp)
    }
}

extension RegisterFields where Field == FeedTimeField {
    /// A seen marker or a receipt time, as `member` of the delta says.
    func apply(to replica: inout FeedReplica, as member: FeedDeltaField) throws(WireError) {
        guard !text(.key).isEmpty else { throw invalid("a time names whose it is") }
        let time = unzigzag(number(.time))
        if member == .seen {
            replica.markSeen(text(.key), upTo: time)
        } else {
            replica.receive(item: FeedItemID(text(.key)), at: time)
        }
    }
}

// MARK: - Stamps and items

/// A `FeedStamp` as read; a message given twice merges (WIRE-6).
private struct StampFields {
    var wall: Int64 = 0
    var counter = 0
    var device = ""

    mutating func read(from reader: inout WireReader) throws(WireError) {
        var ignored: [UInt8] = []
        try reader.forEachField(unknown: &ignored) { (r, f) throws(WireError) in
            switch FeedStampField(rawValue: f.number) {
            case .wall: wall = try r.readSInt(f)
            case .counter: counter = try r.readUInt32(f)
            case .device: device = try r.readString(f)
            case nil: return false
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
        writer.sint(FeedStampField.wall, wall)
        writer.uint(FeedStampField.counter, UInt64(counter))
        writer.string(FeedStampField.device, device)
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
            switch FeedItemField(rawValue: f.number) {
            case .owner: owner = try r.readString(f)
            case .kind: kind = try r.readUInt(f)
            case .goal: goal = try r.readString(f)
            case .time: time = try r.readSInt(f)
            case .title: title = try r.readString(f)
            case .emoji: emoji = try r.readString(f)
            case .goalKind: goalKind = try r.readString(f)
            case .day: day = try r.readSInt(f)
            case .streak: streak = try r.readUInt32(f)
            case .milestone: milestone = try r.readUInt32(f)
            case .streakStart: streakStart = try r.readSInt(f)
            case nil: return false
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
        writer.string(FeedItemField.owner, owner)
        writer.uint(FeedItemField.kind, kind.wireNumber)
        writer.string(FeedItemField.goal, goal)
        writer.sint(FeedItemField.time, time)
        writer.string(FeedItemField.title, title)
        writer.string(FeedItemField.emoji, emoji)
        writer.string(FeedItemField.goalKind, goalKind)
        if let day { writer.presentSInt(FeedItemField.day, Int64(day.daysSince1970)) }
        if let streak { writer.presentUInt(FeedItemField.streak, UInt64(streak)) }
        if let milestone { writer.presentUInt(FeedItemField.milestone, UInt64(milestone)) }
        if let streakStart { writer.presentSInt(FeedItemField.streakStart, Int64(streakStart.daysSince1970)) }
    }
}

// MARK: - Wire numbers

/// A message's field table: one case per field of `Spec/glow.proto`, named as there, whose raw
/// value is the field's number. Encoder and decoder both read it, so a number is written once.
/// Every case states its number rather than taking the next one, so reordering the cases changes
/// nothing on the wire.
package protocol FeedWireField: RawRepresentable<UInt32>, Hashable {}

// The writer's field methods, taking a field from a table instead of a bare number.
extension WireWriter {
    package mutating func uint(_ field: some FeedWireField, _ value: UInt64) { uint(field.rawValue, value) }
    package mutating func sint(_ field: some FeedWireField, _ value: Int64) { sint(field.rawValue, value) }
    package mutating func bool(_ field: some FeedWireField, _ value: Bool) { bool(field.rawValue, value) }
    package mutating func string(_ field: some FeedWireField, _ value: String) { string(field.rawValue, value) }
    package mutating func presentUInt(_ field: some FeedWireField, _ value: UInt64) {
        presentUInt(field.rawValue, value)
    }
    package mutating func presentSInt(_ field: some FeedWireField, _ value: Int64) {
        presentSInt(field.rawValue, value)
    }
    package mutating func message(_ field: some FeedWireField, _ body: (inout WireWriter) -> Void) {
        message(field.rawValue, body)
    }
}

/// An enum of `Spec/glow.proto` (FEED-28). Each case states its number: the order the Swift
/// cases are declared in is no part of the format.
protocol FeedWireCase: CaseIterable {
    /// The case's number in `Spec/glow.proto`.
    var wireNumber: UInt64 { get }
}

extension FeedWireCase {
    /// The case `wireNumber` names, read from the same table the encoder writes from; nil for a
    /// number this version does not name, which refuses the register (FEED-28).
    init?(wireNumber: UInt64) {
        guard let known = Self.allCases.first(where: { $0.wireNumber == wireNumber }) else { return nil }
        self = known
    }
}

extension FeedItem.Kind: FeedWireCase {
    var wireNumber: UInt64 {
        switch self {
        case .checkIn: 0
        case .milestone: 1
        case .goalStarted: 2
        case .goalCompleted: 3
        }
    }
}

extension Stance: FeedWireCase {
    var wireNumber: UInt64 {
        switch self {
        case .none: 0
        case .want: 1
        case .block: 2
        }
    }
}

extension ReactionKind: FeedWireCase {
    var wireNumber: UInt64 {
        switch self {
        case .heart: 0
        case .fire: 1
        case .clap: 2
        }
    }
}

extension FeedReplica {
    /// The most bytes one register of a delta may take (FEED-25): written alone as a `FeedDelta`,
    /// with nothing else in it. No honest register comes near (FEED-6 bounds an item's texts), and
    /// so no one register is past a page of the relay's answers (FEED-27).
    public static let maxRegisterBytes = 4_096

    /// A register of this replica that is longer than `limit` bytes written alone as a
    /// `FeedDelta` (the first in FEED-28's order among stances, items and visibility), named for
    /// its sender, and its length; nil when none is.
    package func registerLonger(than limit: Int) -> (name: String, bytes: Int)? {
        func alone(_ write: (inout FeedReplica) -> Void) -> Int {
            var one = FeedReplica()
            write(&one)
            return one.wireEncoded().count
        }
        for (key, register) in stances.sorted(by: { Self.precedes(($0.key.from, $0.key.to), ($1.key.from, $1.key.to)) })
        {
            let bytes = alone { $0.stances[key] = register }
            if bytes > limit { return ("the stance of \(key.from) toward \(key.to)", bytes) }
        }
        for (id, register) in items.sorted(by: { $0.key < $1.key }) {
            let bytes = alone { $0.items[id] = register }
            if bytes > limit { return ("the item \(id.text)", bytes) }
        }
        for (key, register) in visibility.sorted(by: {
            Self.precedes(($0.key.owner, $0.key.goal), ($1.key.owner, $1.key.goal))
        }) {
            let bytes = alone { $0.visibility[key] = register }
            if bytes > limit { return ("the visibility of \(key.owner)'s goal \(key.goal)", bytes) }
        }
        for (key, register) in reactions {
            let bytes = alone { $0.reactions[key] = register }
            if bytes > limit { return ("a reaction of \(key.reactor) on \(key.item.text)", bytes) }
        }
        for (person, mark) in seen {
            let bytes = alone { $0.seen[person] = mark }
            if bytes > limit { return ("the seen marker of \(person)", bytes) }
        }
        for (id, time) in receipts {
            let bytes = alone { $0.receipts[id] = time }
            if bytes > limit { return ("the receipt time of \(id.text)", bytes) }
        }
        return nil
    }
}
