import Foundation
import Testing

/// Every call of the server's protocol has a typed method (issue 58): each name of SERVER-2's table
/// is made by a method of GlowClient, and no README block or example app names a call.
@Suite("Typed calls")
struct TypedCallsTests {
    static let root = PlatformTests.root

    /// The calls of SERVER-2's table in Spec/server.md.
    static func calls() throws -> [String] {
        let spec = try String(contentsOf: root.appendingPathComponent("Spec/server.md"), encoding: .utf8)
        let table = try #require(spec.components(separatedBy: "| call | request | response | session |").last)
        return table.split(separator: "\n").dropFirst().prefix { $0.hasPrefix("| `") }.compactMap { row in
            row.split(separator: "`").dropFirst().first.map(String.init)
        }
    }

    /// The text of every Swift file under `folder`.
    static func swift(under folder: String) throws -> String {
        let walker = FileManager.default.enumerator(
            at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
        var text = ""
        for case let url as URL in walker?.allObjects ?? [] where url.pathExtension == "swift" {
            text += try String(contentsOf: url, encoding: .utf8)
        }
        return text
    }

    @Test("the table is read: 26 calls, health first")
    func tableRead() throws {
        let calls = try Self.calls()
        #expect(calls.count == 26 && calls.first == "health" && calls.contains("provider-sign-in"))
    }

    @Test("every call of SERVER-2's table is made by a typed method of GlowClient")
    func everyCallTyped() throws {
        // A call's name may start the line after `call(`.
        let client = try Self.swift(under: "Sources/GlowClient").replacingOccurrences(
            of: #"call\(\s+"#, with: "call(", options: .regularExpression)
        let untyped = try Self.calls().filter { !client.contains("call(\"\($0)\"") }
        #expect(untyped.isEmpty, "no typed method makes \(untyped)")
    }

    @Test("no README block and no example app names a call")
    func noCallByName() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let examples = try Self.swift(under: "Examples")
        for (what, text) in [("README.md", readme), ("Examples", examples)] {
            #expect(!text.contains(".call(\""), "\(what) calls the server by name")
        }
    }
}
