import Foundation
import GlowModel
import GlowThemes
import GlowWire
import Testing

/// Compares what an operation did with what a case expects.
enum CorpusCheck {
    static func check(_ testCase: CorpusCase, _ operation: (JSONValue) throws -> JSONValue) throws {
        let outcome: Result<JSONValue, any Error> = Result { try operation(testCase.input) }
        switch outcome {
        case .success(let output):
            #expect(testCase.valid, "\(testCase.id): expected error \(testCase.error ?? .null), got \(output)")
            // An object lists the outputs the case checks; an implementation may return more.
            if testCase.valid, case .object(let expected)? = testCase.expected, case .object(let actual) = output {
                for (key, value) in expected.sorted(by: { $0.key < $1.key }) {
                    #expect(actual[key] == value, "\(testCase.id) \(key): \(testCase.comment)")
                }
            } else if testCase.valid, let expected = testCase.expected {
                #expect(output == expected, "\(testCase.id): \(testCase.comment)")
            }
        case .failure(let error as ModelError):
            #expect(!testCase.valid, "\(testCase.id): unexpected error \(error)")
            guard !testCase.valid, let expected = testCase.error else { return }
            #expect(expected["code"]?.string == error.code.description, "\(testCase.id): got \(error)")
            if let path = expected["path"]?.string {
                #expect(path == error.path, "\(testCase.id): got \(error)")
            }
            if let issues = expected["issues"]?.array {
                let actual = error.issues.map {
                    JSONValue.object(["field": .string($0.field), "code": .string($0.code.rawValue)])
                }
                #expect(JSONValue.array(actual) == .array(issues), "\(testCase.id): got \(error.issues)")
            }
        case .failure(let error as WireError):
            #expect(!testCase.valid, "\(testCase.id): unexpected error \(error)")
            guard !testCase.valid, let expected = testCase.error else { return }
            #expect(expected["code"]?.string == error.code.description, "\(testCase.id): got \(error)")
            if let offset = expected["offset"]?.int {
                #expect(offset == error.offset, "\(testCase.id): got \(error)")
            }
        case .failure(let error as ThemeError):
            #expect(!testCase.valid, "\(testCase.id): unexpected error \(error)")
            guard !testCase.valid, let expected = testCase.error else { return }
            #expect(expected["code"]?.string == error.code.description, "\(testCase.id): got \(error)")
        case .failure(let error as BundleError):
            #expect(!testCase.valid, "\(testCase.id): unexpected error \(error)")
            guard !testCase.valid, let expected = testCase.error else { return }
            #expect(expected["code"]?.string == error.code, "\(testCase.id): got \(error)")
            #expect(expected["section"]?.string == error.section.rawValue, "\(testCase.id): got \(error)")
            #expect(expected["offset"]?.int == error.offset, "\(testCase.id): got \(error)")
        case .failure(let error):
            Issue.record("\(testCase.id): the case itself is broken: \(error)")
        }
    }
}
