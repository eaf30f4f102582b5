import GlowBundle
import GlowModel
import GlowPostgresStores
import GlowRelay
import GlowSync
import Testing

extension PostgresStoreTests {
    /// Issue 59 item 6 on PostgreSQL: what every log keeps, counted across processes.
    @Test("PostgreSQL: two processes together keep at most the sync capacity; past it 507 sync_server_full")
    func syncCapacity() throws {
        let keys = SyncKeys(secret: RecoveryKey(bytes: [UInt8](repeating: 0x22, count: 32)))
        let device = DeviceID(high: 0xCA, low: 1)
        let header = SyncHeader(
            keyID: [], device: device, sequence: 1, previous: [], seen: [], kind: .changes,
            salt: [UInt8](repeating: 1, count: 16))
        let record = try keys.seal([UInt8](repeating: 7, count: 300), header: header, person: "p").bytes
        let stores = try (0..<2).map { _ in try PostgresServerDatabase(url: cluster.conninfo).sync }
        let capacity = try stores[0].keptByEveryLog() + 2 * (Int64(record.count) + SyncLog.headBytes)
        let (one, other) = (
            SyncLog(store: stores[0], capacity: capacity, countInterval: .zero),
            SyncLog(store: stores[1], capacity: capacity, countInterval: .zero)
        )
        #expect(try one.push([record], device: device.bytes, of: "cap-ana", confirming: nil) == 1)
        #expect(try other.push([record], device: device.bytes, of: "cap-bob", confirming: nil) == 1)
        for log in [one, other] {
            let error = #expect(throws: SyncError.self) {
                try log.push([record], device: device.bytes, of: "cap-cat", confirming: nil)
            }
            #expect(error?.code == .serverFull && error?.rule == "SYNC-9")
        }
    }
}
