import GlowBundle
import GlowModel
import GlowSync

/// The `sync` target (issue 46): a device's reading of hostile pulls (SYNC-6 ... SYNC-8).
///
/// A small authentic log is sealed once: records 1 ... 3 of device A and 1 ... 2 of device B. Each
/// input builds one page from it, two bytes a step: a record as written, one with a bit flipped
/// where the input says, one cut short, bytes of the input itself as a record, or the page's heads
/// and `more` changed. The reader reads the page into a device that holds data of its own. What
/// must hold: a refused page is a typed ``SyncError`` and changes neither the data nor the chain;
/// an accepted page holds only authentic records, unchanged, each the next of its device's chain,
/// and the data is the device's own merged with exactly those records.
enum SyncHarness {
    static let person = "fuzz-person"
    static let keys = SyncKeys(secret: RecoveryKey(bytes: [UInt8](repeating: 0x5A, count: 32)))
    static let deviceA = DeviceID(high: 0x0193_8A6E_7C00_7ABC, low: 0x8DEF_0000_0000_000A)
    static let deviceB = DeviceID(high: 0x0193_8A6E_7C00_7ABC, low: 0x8DEF_0000_0000_000B)
    static let reader = DeviceID(high: 0x0193_8A6E_7C00_7ABC, low: 0x8DEF_0000_0000_000C)

    /// A goal of `index` with a check-in on each of `days` Days from 2025-01-01.
    static func data(_ index: UInt64, days: Int) -> DataSet {
        let start = try! Day(iso: "2025-01-01")
        let created = try! Instant(rfc3339: "2025-01-01T08:00:00Z")
        let goal = try! Goal(
            id: GoalID(high: 0x0193_8A6E_7C00_7ABC, low: 0x8DEF_0000_0000_0100 + index), title: "Goal \(index)",
            kind: .streak, schedule: Schedule(.daily, from: start), startDay: start, createdAt: created,
            modifiedAt: created)
        let checkIns = (0..<days).map { offset in
            try! CheckIn.record(
                .done, for: goal, on: start.advanced(by: offset), at: created, timeZone: .utc, deviceID: deviceA)
        }
        return try! DataSet(profile: nil, goals: [goal], checkIns: checkIns)
    }

    /// The authentic log, in an order a server could send it.
    static let log: [SyncRecord] = {
        var records: [SyncRecord] = []
        var last: [DeviceID: SyncRecord] = [:]
        func write(_ device: DeviceID, _ data: DataSet, seen: [SyncHead] = []) {
            let previous = last[device]
            let sequence = (previous?.header.sequence ?? 0) + 1
            let header = SyncHeader(
                keyID: keys.keyID, device: device, sequence: sequence, previous: previous?.hash ?? [], seen: seen,
                kind: .changes, salt: [UInt8](repeating: UInt8(records.count), count: 16))
            let plaintext = BundleWriter.bundle(data, options: BundleOptions(createdAt: .epoch, deviceID: device))
            let record = try! keys.seal(plaintext, header: header, person: person)
            records.append(record)
            last[device] = record
        }
        write(deviceA, data(1, days: 3))
        write(deviceB, data(2, days: 2))
        write(deviceA, data(1, days: 5), seen: [SyncHead(device: deviceB, sequence: 1, hash: records[1].hash)])
        write(deviceB, data(3, days: 1))
        write(deviceA, data(4, days: 2))
        return records
    }()

    /// What the reading device holds before the page.
    static let destination = data(9, days: 4)

    static func run(_ input: [UInt8]) {
        var records: [[UInt8]] = []
        var heads: [DeviceID: UInt64] = [deviceA: 3, deviceB: 2]
        var more = false
        var index = 0
        while index + 1 < input.count, records.count < 16 {
            let (step, argument) = (input[index], Int(input[index + 1]))
            index += 2
            let original = log[argument % log.count].bytes
            switch step % 6 {
            case 0: records.append(original)
            case 1:
                var changed = original
                let bit = (argument &* 131 &+ Int(step)) % (changed.count * 8)
                changed[bit / 8] ^= UInt8(1 << (bit % 8))
                records.append(changed)
            case 2: records.append(Array(original.prefix(argument % original.count)))
            case 3:
                let end = Swift.min(input.count, index + argument)
                records.append(Array(input[index..<end]))
                index = end
            case 4: more.toggle()
            default: heads[argument % 2 == 0 ? deviceA : deviceB] = UInt64(argument / 2 % 5)
            }
        }
        read(SyncPage(records: records, heads: heads, more: more))
    }

    static func read(_ page: SyncPage) {
        let reader = SyncReader(keys: keys, person: person)
        let start = SyncChain(device: Self.reader)
        var chain = start
        var data = destination
        do {
            _ = try reader.read(page, chain: &chain, into: &data)
        } catch {
            precondition(data == destination && chain == start, "a refused page changed the device: \(error)")
            return
        }
        // Accepted: every record is an authentic one, unchanged, and each device's are 1, 2, 3 ...
        var expected = destination
        var next: [DeviceID: UInt64] = [:]
        for bytes in page.records {
            guard let record = log.first(where: { $0.bytes == bytes }) else {
                preconditionFailure("a page with a record that is not one of the log's was accepted")
            }
            let device = record.header.device
            precondition(record.header.sequence == (next[device] ?? 0) + 1, "a record out of its chain was accepted")
            next[device] = record.header.sequence
            do {
                _ = expected.merge(try keys.dataSet(of: record, person: person))
            } catch {
                preconditionFailure("an accepted record does not open: \(error)")
            }
        }
        precondition(data == expected, "an accepted page merged something else than its records")
        if !page.more {
            for device in [deviceA, deviceB] {
                precondition(
                    (next[device] ?? 0) == (page.heads[device] ?? 0), "a pull that ends short of a head was accepted")
            }
        }
    }
}
