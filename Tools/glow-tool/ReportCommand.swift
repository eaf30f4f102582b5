import Foundation
import GlowModel
import GlowReport
import GlowRitual
import GlowStorage
import GlowThemes

/// `glow-tool report`: a person's year at a glance as one self-contained HTML page (issue 18),
/// written by ``ReportPage`` from a bundle, a JSON data set or a Glow database.
enum ReportCommand {
    /// What `glow-tool report` was asked.
    struct Options: Equatable {
        var input: String
        var output: String?
        var theme: String?
        var mode: String?
        var day: String?
        var weeks = 53
    }

    static func run(_ options: Options, secrets: Secrets) throws {
        if let output = options.output, Files.isSameFile(output, options.input) {
            throw UsageErrorInRun(message: "-o '\(output)' is the input: the page would replace the person's data")
        }
        let data = try load(options.input, secrets: secrets)
        let boundary = data.dayBoundary
        let today = try parseDay(options.day) ?? boundary.day(containing: .now)
        var mode = Mode.light
        if let text = options.mode {
            do { mode = try Mode(parsing: text) } catch { throw UsageErrorInRun(message: "--mode: \(error.message)") }
        }
        let themeID = options.theme ?? data.profile?.themeID.rawValue ?? Theme.standard.id
        let (theme, fellBack) = Theme.resolve(id: themeID)
        if options.theme != nil && fellBack {
            throw UsageErrorInRun(message: "--theme: there is no theme '\(themeID)'")
        }
        let html: String
        do {
            html = try ReportPage.html(data, today: today, theme: theme, mode: mode, weeks: options.weeks)
        } catch {
            throw UsageErrorInRun(message: "--weeks: \(error.message)")
        }
        try Files.write(Array(html.utf8), to: options.output ?? "-")
    }

    /// The data set in `path`: a Glow database (read without writing), else a bundle or JSON.
    static func load(_ path: String, secrets: Secrets) throws -> DataSet {
        guard path != "-", let handle = FileHandle(forReadingAtPath: path) else {
            return try Files.dataSet(path, secrets: secrets)
        }
        let head: Data?
        do {
            head = try handle.read(upToCount: DatabaseSchema.sqliteMagic.count)
            try handle.close()
        } catch {
            throw DataFailure(message: "cannot read '\(path)': \(error.localizedDescription)")
        }
        guard let head, DatabaseSchema.isDatabase(head: [UInt8](head)) else {
            return try Files.dataSet(path, secrets: secrets)
        }
        do {
            return try RitualDatabase.snapshot(path: path)
        } catch {
            throw DataFailure(message: "\(error)")
        }
    }
}
