import Foundation
import Testing

/// Every Swift block of `README.md` is compiled and run by a test (issue 42): each stands, line
/// for line, between `// README: begin` and `// README: end` in a test under `Tests/` (or an
/// example app under `Examples/`, which a test runs), whose file
/// imports what the block imports. A block that drifts from the API fails the build; one that
/// drifts from its test fails here.
@Suite("README's Swift blocks")
struct ReadmeBlocksTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A block of code: its lines without their common indentation, and the modules it imports.
    struct Block: CustomStringConvertible {
        let lines: [String]
        let imports: Set<String>
        var description: String { lines.first(where: { !$0.isEmpty }) ?? "(empty)" }

        init(_ raw: [Substring]) {
            var imports: Set<String> = []
            var body: [String] = []
            for line in raw {
                if line.hasPrefix("import ") {
                    imports.insert(String(line.dropFirst("import ".count)).trimmingCharacters(in: .whitespaces))
                } else {
                    body.append(String(line))
                }
            }
            while body.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { body.removeFirst() }
            while body.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { body.removeLast() }
            let indent =
                body.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
                .map { $0.prefix(while: { $0 == " " }).count }.min() ?? 0
            lines = body.map { $0.trimmingCharacters(in: .whitespaces).isEmpty ? "" : String($0.dropFirst(indent)) }
            self.imports = imports
        }
    }

    /// The README's ```swift blocks.
    static func readmeBlocks() throws -> [Block] {
        let text = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks: [Block] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(Block(current!))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The marked regions of every Swift file under `Tests/` and `Examples/`, with the modules each
    /// file imports.
    static func testRegions() throws -> [(file: String, block: Block, fileImports: Set<String>)] {
        var files: [URL] = []
        for folder in ["Tests", "Examples"] {
            let enumerator = FileManager.default.enumerator(
                at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            files += (enumerator?.allObjects ?? []).compactMap { $0 as? URL }
        }
        var regions: [(String, Block, Set<String>)] = []
        for file in files where file.pathExtension == "swift" {
            let lines = try String(contentsOf: file, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            let imports = Set(
                lines.compactMap { line -> String? in
                    let words = line.split(separator: " ")
                    guard let index = words.firstIndex(of: "import"), index + 1 < words.count else { return nil }
                    return words[..<index].allSatisfy({ $0.hasPrefix("@") }) ? String(words[index + 1]) : nil
                })
            var current: [Substring]?
            for line in lines {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed == "// README: begin" {
                    current = []
                } else if trimmed == "// README: end", let body = current {
                    regions.append((file.lastPathComponent, Block(body), imports))
                    current = nil
                } else {
                    current?.append(line)
                }
            }
        }
        return regions
    }

    @Test("the README has Swift blocks, and each is a test's code")
    func everyBlockIsTested() throws {
        let blocks = try Self.readmeBlocks()
        let regions = try Self.testRegions()
        #expect(blocks.count >= 10)
        for block in blocks {
            let match = regions.first { $0.block.lines == block.lines }
            guard let match else {
                Issue.record("README's block '\(block)' is not the code of any test between README markers")
                continue
            }
            #expect(
                block.imports.isSubset(of: match.fileImports),
                "\(match.file) does not import \(block.imports.subtracting(match.fileImports).sorted()), as the block does"
            )
        }
    }

    @Test("a block that differs by one line is not taken for its test")
    func oneLineDiffers() throws {
        let regions = try Self.testRegions()
        let region = try #require(regions.first)
        var lines = region.block.lines
        lines[lines.count / 2] += " "
        #expect(regions.allSatisfy { $0.block.lines != lines })
    }
}
