import Foundation
import GlowModel
import GlowReminders

/// `glow-tool reminders`: the local notifications a device would schedule for a bundle's or data
/// set's person (Spec/reminders.md), from the settings kept in their goals and profile.
enum RemindersCommand {
    struct Options: Equatable {
        /// A bundle or data set, or -.
        var input: String
        /// The instant to plan from, RFC 3339; nil for now.
        var from: String?
        /// The Days the plan covers, 1 ... 31.
        var days: Int
        var json: Bool
    }

    static func run(_ options: Options, secrets: Secrets) throws {
        let now: Instant
        if let from = options.from {
            do { now = try Instant(rfc3339: from) } catch { throw UsageErrorInRun(message: "--from: \(error.message)") }
        } else {
            now = .now
        }
        let data = try Files.dataSet(options.input, secrets: secrets)
        let boundary = data.dayBoundary
        if let warning = boundary.warning {
            FileHandle.standardError.write(Data("glow-tool: warning: \(warning)\n".utf8))
        }
        let plan: ReminderPlan
        do {
            plan = try ReminderPlanner.plan(data: data, boundary: boundary, now: now, days: options.days)
        } catch {
            throw UsageErrorInRun(message: "--days: \(error.message)")
        }
        if options.json {
            print(try json(plan, boundary: boundary, from: now, days: options.days), terminator: "")
        } else {
            print(text(plan, data: data, boundary: boundary, from: now, days: options.days), terminator: "")
        }
    }

    /// One notification as `--json` prints it: the members of Spec/reminders.md 10.5, and the
    /// wall-clock reading of its instant in the profile's zone.
    struct Row: Encodable {
        let id: String
        let at: String
        let local: String
        let goal: String
        let kind: String
        let day: String
        let thread: String
        let key: String
        let arguments: [String]
    }

    struct Plan: Encodable {
        let from: String
        let timeZone: String
        let days: Int
        let notifications: [Row]
        let leftOut: [Row]
    }

    static func json(_ plan: ReminderPlan, boundary: DayBoundary, from: Instant, days: Int) throws -> String {
        func row(_ n: PlannedNotification) -> Row {
            let (date, minute) = boundary.wallClock(at: n.at)
            return Row(
                id: n.id, at: n.at.description, local: "\(date)T\(ReminderPlanner.clock(minute))",
                goal: n.goal.description, kind: n.kind.rawValue, day: n.day.description, thread: n.thread, key: n.key,
                arguments: n.arguments)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let document = Plan(
            from: from.description, timeZone: boundary.timeZone.identifier, days: days,
            notifications: plan.notifications.map(row), leftOut: plan.leftOut.map(row))
        return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
    }

    static func text(_ plan: ReminderPlan, data: DataSet, boundary: DayBoundary, from: Instant, days: Int) -> String {
        let (fromDate, fromMinute) = boundary.wallClock(at: from)
        let who = data.profile.map { " for \($0.displayName)" } ?? ""
        var out =
            "Reminders\(who) from \(ReminderText.date(fromDate)) \(ReminderPlanner.clock(fromMinute))"
            + " (\(boundary.timeZone.identifier)), \(days) Day\(days == 1 ? "" : "s"): "
            + "\(plan.notifications.count) planned, \(plan.leftOut.count) left out\n"
        if plan.notifications.isEmpty {
            out += "\nNothing to remind: no goal has reminders on, or every Day they serve is done.\n"
        }
        var shownDate: Day?
        for notification in plan.notifications {
            let (date, minute) = boundary.wallClock(at: notification.at)
            if date != shownDate {
                out += "\n\(ReminderText.date(date))\n"
                shownDate = date
            }
            out += "  \(ReminderPlanner.clock(minute))  \(ReminderText.line(notification, wallDate: date))\n"
        }
        if let first = plan.leftOut.first {
            let (date, minute) = boundary.wallClock(at: first.at)
            out +=
                "\nLeft out by the limit of \(ReminderPlan.limit): \(plan.leftOut.count), the first at "
                + "\(ReminderText.date(date)) \(ReminderPlanner.clock(minute)); plan again before then.\n"
        }
        return out
    }
}

/// How `glow-tool reminders` words a notification (an app words it in the person's language
/// from its key and arguments).
enum ReminderText {
    /// `Wed 2026-06-10`.
    static func date(_ day: Day) -> String {
        day.weekday.rawValue.prefix(3).capitalized + " \(day)"
    }

    /// The kind, the goal, and what it serves when that is not the wall-clock date.
    static func line(_ notification: PlannedNotification, wallDate: Day) -> String {
        let kind: String
        var detail = ""
        switch notification.kind {
        case .due: kind = "due"
        case .streakAtRisk:
            kind = "streak at risk"
            if let length = notification.streakLength { detail = " (a \(length)-Day streak would break tonight)" }
        case .snooze: kind = "snoozed"
        }
        let emoji = notification.emoji.isEmpty ? "" : notification.emoji + " "
        let serves = notification.day == wallDate ? "" : " (for \(date(notification.day)))"
        return kind.padding(toLength: 15, withPad: " ", startingAt: 0) + emoji + notification.title + detail + serves
    }
}
