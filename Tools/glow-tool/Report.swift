import Foundation
import GlowBundle
import GlowModel
import GlowStreaks
import GlowThemes
import GlowWire

/// What the commands print: tables for people, JSON for programs.
enum Report {
    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self) + "\n"
    }

    // MARK: inspect

    struct Inspect: Encodable {
        let version: String
        let requiredFlags: UInt32
        let optionalFlags: UInt32
        let schemaVersion: Int
        let minReaderVersion: Int
        let exporter: String
        let createdAt: String
        let deviceID: String?
        let counts: RecordCounts
        let fileSize: Int
        let compressedSize: Int
        let uncompressedSize: Int
        let ratio: Double
        let bytesByType: [String: Int]

        init(_ summary: BundleSummary) {
            version = "\(summary.header.major).\(summary.header.minor)"
            requiredFlags = summary.header.requiredFlags
            optionalFlags = summary.header.optionalFlags
            schemaVersion = summary.manifest.schemaVersion
            minReaderVersion = summary.manifest.minReaderVersion
            exporter = "\(summary.manifest.exporterName) \(summary.manifest.exporterVersion)"
            createdAt = summary.manifest.createdAt.description
            deviceID = summary.manifest.deviceID?.description
            counts = summary.counts
            fileSize = summary.fileSize
            compressedSize = summary.compressedSize
            uncompressedSize = summary.uncompressedSize
            ratio =
                summary.compressedSize == 0
                ? 0 : (Double(summary.uncompressedSize) / Double(summary.compressedSize) * 100).rounded() / 100
            bytesByType = summary.bytesByType
        }
    }

    static func text(_ summary: BundleSummary) -> String {
        let report = Inspect(summary)
        var out = """
            format        \(report.version) (required flags 0x\(String(report.requiredFlags, radix: 16)), optional 0x\(String(report.optionalFlags, radix: 16)))
            schema        \(report.schemaVersion) (readers from version \(report.minReaderVersion))
            exporter      \(report.exporter)
            created       \(report.createdAt)
            device        \(report.deviceID ?? "-")
            records       \(report.counts.profiles) profile, \(report.counts.goals) goals, \(report.counts.checkIns) check-ins in \(report.counts.checkInBlocks) blocks, \(report.counts.other) other
            size          \(report.fileSize) bytes; stream \(report.compressedSize) compressed, \(report.uncompressedSize) uncompressed (ratio \(report.ratio))

            """
        out += "bytes by type (uncompressed)\n"
        for (type, bytes) in report.bytesByType.sorted(by: { $0.key < $1.key }) {
            let perRecord =
                type == "checkIns" && report.counts.checkIns > 0
                ? String(format: "  %.2f per check-in", Double(bytes) / Double(report.counts.checkIns)) : ""
            out +=
                "  " + type.padding(toLength: 10, withPad: " ", startingAt: 0) + String(format: "%10d", bytes)
                + perRecord + "\n"
        }
        return out
    }

    // MARK: themes

    struct AuditRow: Encodable {
        let theme: String
        let mode: String
        let foreground: String
        let background: String
        let requirement: String
        let minimum: Double
        let ratio: Double
        let passed: Bool

        init(_ result: AuditResult) {
            theme = result.theme
            mode = result.mode.rawValue
            foreground = result.pair.foreground.rawValue
            background = result.pair.background.rawValue
            requirement = result.pair.requirement.rawValue
            minimum = result.pair.requirement.minimum
            ratio = (result.ratio * 100).rounded(.down) / 100
            passed = result.passed
        }
    }

    static func auditTable(_ results: [AuditResult]) -> String {
        var out = ""
        let groups = Dictionary(grouping: results) { "\($0.theme) / \($0.mode.rawValue)" }
        for (title, rows) in groups.sorted(by: { $0.key < $1.key }) {
            let failed = rows.filter { !$0.passed }.count
            out +=
                "\(title): \(failed == 0 ? "all \(rows.count) pairs pass" : "\(failed) of \(rows.count) pairs FAIL")\n"
            for row in rows {
                let pair = "\(row.pair.foreground.rawValue) on \(row.pair.background.rawValue)"
                out +=
                    "  " + pair.padding(toLength: 36, withPad: " ", startingAt: 0)
                    + String(
                        format: "%6.2f:1  needs %4.1f (%@)  ", (row.ratio * 100).rounded(.down) / 100,
                        row.pair.requirement.minimum, row.pair.requirement.rawValue)
                    + (row.passed ? "pass" : "FAIL") + "\n"
            }
        }
        return out
    }

    // MARK: verify

    struct Verify: Encodable {
        struct Failure: Encodable {
            let code: String
            let section: String
            let offset: Int
            let message: String

            init(_ error: BundleError) {
                code = error.code.description
                section = error.section.rawValue
                offset = error.offset
                message = error.message
            }
        }

        let ok: Bool
        let error: Failure?
        let counts: RecordCounts?
    }

    // MARK: stats

    struct Stats: Encodable {
        struct Row: Encodable {
            let goalID: String
            let title: String
            let kind: String
            let today: String
            let onToday: Bool
            let currentStreak: Int
            let longestStreak: Int
            let last7: Consistency?
            let last30: Consistency?
            let completion: Int?
            /// Strength in thousandths, and its change over 7 and 30 Days (STREAK-27, STREAK-29);
            /// nil for one-off kinds.
            let strength: Int?
            let strengthChange7: Int?
            let strengthChange30: Int?
            /// What lifted strength most in the last 30 Days and what pulled it down most
            /// (STREAK-29), nil for one-off kinds.
            let strengthMoves: [StrengthMove]?
            /// The 30 Days in words ("up 12.4 points in 30 days: done on ..."), nil for one-off kinds.
            let strengthMonth: String?
        }

        /// A Day that moved strength, its outcome, and by how much in thousandths of the reported
        /// strength.
        struct StrengthMove: Encodable {
            let day: String
            let outcome: String
            let change: Int
        }

        let name: String?
        let day: String
        let timeZone: String
        let goals: [Row]

        init(name: String?, day: String, timeZone: String, goals: [Row]) {
            self.name = name
            self.day = day
            self.timeZone = timeZone
            self.goals = goals
        }

        init(_ data: DataSet, boundary: DayBoundary, today: Day) {
            name = data.profile?.displayName
            day = today.description
            timeZone = boundary.timeZone.identifier
            goals = TodayQuery.evaluations(data, weekStart: boundary.weekStart, today: today).map { evaluation in
                Row(
                    goalID: evaluation.goal.id.description, title: evaluation.goal.title,
                    kind: evaluation.goal.kind.name.rawValue, today: evaluation.status(on: today).name,
                    onToday: evaluation.isOnToday, currentStreak: evaluation.currentStreak?.length ?? 0,
                    longestStreak: evaluation.longestStreak?.length ?? 0, last7: evaluation.consistency(lastDays: 7),
                    last30: evaluation.consistency(lastDays: 30), completion: evaluation.completion?.thousandths,
                    strength: evaluation.strength?.thousandths,
                    strengthChange7: evaluation.strength?.change(overLast: 7),
                    strengthChange30: evaluation.strength?.change(overLast: 30),
                    strengthMoves: evaluation.strength?.moves.map { move in
                        StrengthMove(day: move.day.description, outcome: move.outcome, change: move.reportedChange)
                    },
                    strengthMonth: evaluation.strength?.monthSummary)
            }
        }

        var text: String {
            // Names people typed are isolated (U+2068 ... U+2069): a right-to-left override in a
            // title stays inside it instead of reordering the columns after it.
            var out = "\(name.map(Self.isolated) ?? "(no profile)") · \(goals.count) goals · \(day) (\(timeZone))\n"
            out += "Today: \(goals.filter(\.onToday).count) goals to look at\n\n"
            let header = ["GOAL", "KIND", "TODAY", "STREAK", "BEST", "7 DAYS", "30 DAYS", "STRENGTH (WEEK)"]
            var rows = [header]
            for goal in goals {
                func rate(_ value: Consistency?) -> String {
                    guard let value, let thousandths = value.thousandths else {
                        return goal.completion.map { "\(Percent.of(thousandths: $0))% done" } ?? "-"
                    }
                    return "\(Percent.of(thousandths: thousandths))% (\(value.done)/\(value.due))"
                }
                let title = goal.title.count > 28 ? String(goal.title.prefix(27)) + "…" : goal.title
                rows.append([
                    title, goal.kind, goal.onToday ? goal.today : "-", "\(goal.currentStreak)", "\(goal.longestStreak)",
                    rate(goal.last7), rate(goal.last30), Self.strength(goal),
                ])
            }
            let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
            for (number, row) in rows.enumerated() {
                out +=
                    row.indices.map { column in
                        let padded = row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
                        // The title (after the header) is isolated; its padding stays outside.
                        guard column == 0, number > 0 else { return padded }
                        return Self.isolated(row[column]) + padded.dropFirst(row[column].count)
                    }
                    .joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
            }
            // Why each strength moved, under the table: the 30 Days and the Days that did it.
            let moved = goals.compactMap { goal in goal.strengthMonth.map { (goal.title, $0) } }
            if !moved.isEmpty {
                out += "\nStrength over 30 days:\n"
                for (title, month) in moved { out += "  \(Self.isolated(title)): \(month)\n" }
            }
            return out
        }

        /// "72% (+6.1)": the strength as a percentage rounded half up and its change over 7 Days
        /// in points to a tenth ("±0.0" only for no change at all); a dash for kinds without one.
        static func strength(_ goal: Row) -> String {
            guard let strength = goal.strength, let change = goal.strengthChange7 else { return "-" }
            return "\(Percent.of(thousandths: strength))% (\(Strength.signedPoints(change)))"
        }

        /// `text` between U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE.
        static func isolated(_ text: String) -> String { "\u{2068}\(text)\u{2069}" }
    }
}
