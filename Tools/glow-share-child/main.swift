import Foundation
import GlowRitual
import GlowStorage

// The writer of the shared-file test (Tests/GlowRitualTests/SharedFileTests.swift): makes COUNT
// changes to DATABASE, each after opening a second connection of this process on the file (as a
// second store, the app's watcher or glow-server's several stores on one file do), and says
// `wrote I` on standard output only after change I committed. The parent runs two of it while an
// outside SQLite client opens and closes the file, then checks that every change said is there.
//
//     glow-share-child app|server DATABASE NAME COUNT
//     glow-share-child hold DATABASE MILLISECONDS
//
// `app` writes the device value `NAME.I` of a person's database; `server` writes a row of the mail
// outbox of a glow-server database, addressed to NAME, whose message is I. `hold` is the other
// process of the main-actor test (Tests/GlowRitualTests/MainActorTests.swift), a widget keeping
// the file busy: it takes DATABASE's write lock (`BEGIN IMMEDIATE`), says `held`, keeps it for
// MILLISECONDS, then commits and says `released`.

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
let usage =
    "usage: glow-share-child app|server DATABASE NAME COUNT\n       glow-share-child hold DATABASE MILLISECONDS\n"
if arguments.dropFirst().contains(where: { $0 == "-h" || $0 == "--help" }) {
    print(
        "The shared-file test's writer: COUNT changes to DATABASE, each said once committed.\n" + usage, terminator: "")
    exit(0)
}
if arguments.count == 4, arguments[1] == "hold", let milliseconds = Int(arguments[3]), milliseconds >= 0 {
    do {
        let connection = try SQLiteConnection(path: arguments[2], mode: .readWrite)
        try connection.execute("BEGIN IMMEDIATE")
        say("held")
        // The thread sleeps with the lock held, as a suspended widget's would.
        var span = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var left = timespec()
        while nanosleep(&span, &left) != 0 { span = left }
        try connection.execute("COMMIT")
        say("released")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("glow-share-child: \(error)\n".utf8))
        exit(1)
    }
}
guard arguments.count == 5, ["app", "server"].contains(arguments[1]), let count = Int(arguments[4]), count >= 0
else {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(64)
}
let (path, name) = (arguments[2], arguments[3])

/// A glow-server database's store that keeps no state: each write goes straight to the file.
func serverStore() throws(StoreError) -> SQLiteStore<Int> {
    try SQLiteStore(path: path, schema: .server, create: false) { _ throws(StoreError) in 0 }
}

do {
    if arguments[1] == "app" {
        let database = try await RitualDatabase(path: path, create: false)
        for index in 0..<count {
            let second = try await RitualDatabase(path: path, create: false)
            try await database.setDeviceValue(Array(String(index).utf8), for: "\(name).\(index)")
            say("wrote \(index)")
            withExtendedLifetime(second) { _ = usleep(500) }
        }
    } else {
        let store = try serverStore()
        for index in 0..<count {
            let second = try serverStore()
            _ = try store.write { (_, connection) throws(StoreError) in
                try connection.prepare(
                    "INSERT INTO mail_outbox (recipient, kind, message, created_at) VALUES (?, 'probe', ?, ?)"
                ).run([.text(name), .text(String(index)), .integer(Int64(index))])
            }
            say("wrote \(index)")
            withExtendedLifetime(second) { _ = usleep(500) }
        }
    }
} catch {
    FileHandle.standardError.write(Data("glow-share-child: \(error)\n".utf8))
    exit(1)
}
