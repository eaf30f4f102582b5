// The README's "Your first app", as a program: an app's life from its first launch to a check-in
// synced through glow-server, on the app object alone and through `import GlowSDK`, as a
// third-party app links the SDK. Tests/GlowServiceTests/ExampleAppTests.swift runs it against a
// real server, and runs it again on the same database and secrets, as a relaunch: the second run
// is signed in already, with no password. The lines between the README markers are the README's
// block, word for word.
//
//     swift run glow-first-app --database mia.sqlite --server http://127.0.0.1:8080 \
//         --email mia@example.com --password "correct horse battery staple"
//     swift run glow-first-app --database mia.sqlite --server http://127.0.0.1:8080
import Foundation
import GlowSDK

let usage = "usage: glow-first-app --database PATH --server URL [--email ADDRESS --password TEXT]\n"

/// The value after `name` on the command line, or a usage error.
func argument(_ name: String) -> String {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else {
        FileHandle.standardError.write(Data(usage.utf8))
        exit(64)
    }
    return arguments[index + 1]
}

let databasePath = argument("--database")
guard let serverURL = URL(string: argument("--server")) else {
    FileHandle.standardError.write(Data("--server is not a URL\n".utf8))
    exit(64)
}
/// Asked for only when the app signs in: a relaunch that is signed in already needs neither.
var email: String { argument("--email") }
var password: String { argument("--password") }
let backupPath = databasePath + ".backup.glow"

if #available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *) {
    do {
        // README: begin
        // First launch: one app object over the person's database, made once and handed to the views. Its
        // session and sync secret go to a secret store, never the file (an iOS app gives KeychainSecretStore).
        let app = try await RitualApp(
            path: databasePath, device: DeviceID(UUID()), secrets: FileSecretStore(database: databasePath))
        if app.profile.profile == nil {
            let now = Instant.now
            try await app.profile.create(
                Profile(userID: UserID(UUID()), displayName: "Mia", boundary: .utc, createdAt: now, modifiedAt: now))
        }

        // Add goal: a daily stretch with a reminder at 18:30, stored with the goal in one change.
        var draft = GoalDraft(title: "Stretch", emoji: "🧘", kind: .streak, schedule: .daily, visibility: .friends)
        draft.reminders = try GoalReminders(times: [18 * 60 + 30])
        let found = app.goals.rows.first { $0.goal.title == "Stretch" }?.goal
        let stretch = if let found { found } else { try await app.addGoal(draft) }

        // Today: a tap, on disk when it returns (the screen draws meanwhile); the row, its streak and the
        // reminders follow it.
        if app.goals.row(stretch.id)?.status != .done { try await app.goals.tap(.done, goal: stretch.id) }
        let row = app.goals.row(stretch.id)  // status .done, currentStreak 1
        let toSchedule = app.reminders.plan.notifications  // for UNUserNotificationCenter

        // Sign in from any screen (no onboarding required), once: the session is kept in the secret
        // store, so the next launch is signed in already. Then sync: the check-in reaches friends.
        let relaunched = app.account != nil
        if !relaunched {
            let client = ServiceClient(base: serverURL)
            try await app.signIn(try await client.signIn(email: email, password: password), client: client)
        }
        try await app.sync()

        // A backup, encrypted; any device imports it with the passphrase or the recovery words.
        let words = RecoveryKey.random()
        try await app.export(to: backupPath, protection: .passphrase("a long passphrase", recoveryKey: words))
        // README: end
        print("today: \(row?.goal.title ?? "none") \(row?.status.name ?? "none"), streak \(row?.currentStreak ?? 0)")
        print("reminders: \(toSchedule.filter { $0.goal == stretch.id }.count) planned for \(stretch.title)")
        print("signed in: \(app.account?.rawValue ?? "nobody"), route \(app.route)")
        print("session: \(relaunched ? "kept from an earlier launch" : "signed in now")")
        print("synced: \(app.activity?.items.filter { $0.goal == stretch.id.description }.count ?? 0) item(s) of mine")
        print("backup: \(backupPath), recovery words \(words.words.count)")
    } catch {
        FileHandle.standardError.write(Data("glow-first-app: \(error)\n".utf8))
        exit(1)
    }
} else {
    // The app object is @Observable, which needs macOS 14 (iOS 17): an app on iOS 16 keeps a
    // RitualDatabase and reads its changes() instead.
    FileHandle.standardError.write(Data("glow-first-app needs macOS 14 or later\n".utf8))
    exit(1)
}
