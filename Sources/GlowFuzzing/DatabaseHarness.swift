import Foundation
import GlowCore
import GlowModel
import GlowRitual
import GlowStorage

/// Opening a database from arbitrary bytes (issue 27): whatever the file holds, a read neither
/// changes it nor makes anything beside it, and both a read and an open for writing end in the
/// data or a typed ``StoreError``, never a trap.
enum DatabaseHarness {
    /// One folder per process, on a memory file system where there is one.
    static let folder: String = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let folder = "\(base)/glow-fuzz-database-\(getpid())"
        mkdir(folder, 0o700)
        return folder
    }()

    /// The bytes of the file at `path` (read with the C library: Foundation's reader of a whole
    /// file leaks a buffer under LeakSanitizer).
    static func contents(of path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            bytes += chunk[..<count]
            if count < chunk.count { return ferror(file) == 0 ? bytes : nil }
        }
    }

    static func run(_ bytes: [UInt8]) {
        let path = folder + "/input.sqlite"
        for name in [path, path + "-wal", path + "-shm", path + "-journal"] { unlink(name) }
        guard let file = fopen(path, "wb"), fwrite(bytes, 1, bytes.count, file) == bytes.count, fclose(file) == 0 else {
            preconditionFailure("the harness cannot write its input to \(path)")
        }
        // A read: the data or a typed error; the file as it was, and nothing beside it.
        let read: DataSet?
        do { read = try RitualDatabase.snapshot(path: path) } catch { read = nil }
        precondition(contents(of: path) == bytes, "a read changed the file")
        precondition(
            !FileManager.default.fileExists(atPath: path + "-wal")
                && !FileManager.default.fileExists(atPath: path + "-shm"), "a read made a file beside the database")
        // An open for writing: refused with a typed error, or open with the same data as the read.
        // The database works on its own executor; the harness's thread waits for it.
        let opened = waiting { () async -> Result<DataSet, StoreError> in
            do throws(StoreError) {
                let database = try await RitualDatabase(path: path, create: false)
                return .success(try await database.data)
            } catch {
                return .failure(error)
            }
        }
        // A typed refusal is the expected answer to most inputs.
        if case .success(let data) = opened, let read {
            precondition(data == read, "the open's data differ from the read's")
        }
    }

    /// What `work` gives, waited for on this thread (the fuzzer's, never a task's).
    static func waiting<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let result = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let value = await work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        guard let value = result.withLock({ $0 }) else { preconditionFailure("the work gave its value") }
        return value
    }
}
