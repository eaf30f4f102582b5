import Foundation

/// Where a tool keeps its data when not told: the XDG base directory for data.
package enum DataFolder {
    /// `$XDG_DATA_HOME/APP`, else `$HOME/.local/share/APP`.
    package static func path(_ app: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        let base =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return base + "/" + app
    }
}
