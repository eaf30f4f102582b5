import Foundation
import GlowAuth
import GlowBundle
import GlowCore
import GlowModel
import GlowReminders
import GlowRitual
import GlowSync
import GlowThemes
import GlowWire

/// The conformance protocol's messages and the SDK's own answers (Spec/conformance.md).
package enum Conformance {
    /// Every operation this SDK implements, by name.
    package static let operations: [String: ModelOperations.Operation] = [
        ModelOperations.all, StreakOperations.all, DataSetOperations.all, WireOperations.all, BundleOperations.all,
        ThemeOperations.all,
        AuthOperations.all,
        IDTokenOperations.all,
        AccountOperations.all,
        FeedOperations.all,
        FeedOperations.derive,
        FeedOperations.relay,
        ServerOperations.all,
        ReminderOperations.all,
        SyncOperations.all,
    ].reduce(into: [:]) { $0.merge($1) { first, _ in first } }

    /// The request for a case: `{"id", "area", "operation", "input"}`; an input that names a
    /// corpus `file` also carries its bytes as `fileBase64` (CONF-3).
    package static func request(for testCase: CorpusCase, corpus: Corpus) -> JSONValue {
        var input = testCase.input
        if case .object(var members) = input, let file = members["file"]?.string {
            let url = corpus.directory.appendingPathComponent(testCase.area).appendingPathComponent(file)
            if let data = FileManager.default.contents(atPath: url.path) {
                members["fileBase64"] = .string(data.base64EncodedString())
            }
            input = .object(members)
        }
        return .object([
            "id": .string(testCase.reference), "area": .string(testCase.area),
            "operation": .string(testCase.operation), "input": input,
        ])
    }

    /// The SDK's answer to a request: `{"result": ...}`, `{"error": {"code", ...}}`, or
    /// `{"skipped": reason}` for an operation it does not know (CONF-4).
    package static func respond(to request: JSONValue) -> JSONValue {
        guard let name = request["operation"]?.string, let input = request["input"] else {
            return .object(["skipped": .string("the request has no operation or input")])
        }
        guard let operation = operations[name] else {
            return .object(["skipped": .string("operation \(name) is not implemented")])
        }
        do {
            return .object(["result": try operation(input)])
        } catch {
            if let json = errorJSON(error) { return .object(["error": json]) }
            return .object(["skipped": .string("the request is not one this testee understands: \(error)")])
        }
    }

    /// An SDK error as the protocol carries it: its code and where it was found.
    package static func errorJSON(_ error: any Error) -> JSONValue? {
        switch error {
        case let error as ModelError:
            var members: [String: JSONValue] = [
                "code": .string(error.code.description), "message": .string(error.message),
            ]
            if let path = error.path { members["path"] = .string(path) }
            if error.code == .draftInvalid {
                members["issues"] = .array(
                    error.issues.map { .object(["field": .string($0.field), "code": .string($0.code.rawValue)]) })
            }
            return .object(members)
        case let error as WireError:
            return .object([
                "code": .string(error.code.description), "offset": .int(error.offset),
                "message": .string(error.message),
            ])
        case let error as BundleError:
            return .object([
                "code": .string(error.code.description), "section": .string(error.section.rawValue),
                "offset": .int(error.offset),
                "message": .string(error.message),
            ])
        case let error as SyncError:
            var members: [String: JSONValue] = [
                "code": .string(error.code.description), "message": .string(error.message),
            ]
            if let page = error.page { members["page"] = .int(page) }
            if let record = error.record { members["record"] = .int(record) }
            if let device = error.device { members["device"] = .string(device.description) }
            return .object(members)
        case let error as ThemeError:
            return .object(["code": .string(error.code.description), "message": .string(error.message)])
        case let error as AuthError:
            return .object(["code": .string(error.code.description), "message": .string(error.message)])
        case let error as SignInFlowError:
            return .object(["code": .string(error.code.description), "message": .string(error.message)])
        default:
            return nil
        }
    }

    /// How one case went.
    package enum Verdict: Equatable, Sendable {
        case passed
        case failed(String)
        case skipped(String)
    }

    /// Compares a response with what the case expects (CONF-5): for a valid case the result
    /// (each member of an expected object; an implementation may return more), for an invalid one
    /// the error's code and each other member the case names (path, offset, section, issues).
    package static func verdict(_ testCase: CorpusCase, response: JSONValue) -> Verdict {
        if let reason = response["skipped"] {
            return .skipped(reason.string ?? "skipped")
        }
        if let result = response["result"] {
            guard testCase.valid else {
                return .failed("expected error \(testCase.error?["code"]?.string ?? "?"), got result \(result)")
            }
            guard let expected = testCase.expected else { return .passed }
            if case .object(let wanted) = expected, case .object(let actual) = result {
                for (key, value) in wanted.sorted(by: { $0.key < $1.key }) where actual[key] != value {
                    return .failed("\(key): expected \(value), got \(actual[key] ?? .null)")
                }
                return .passed
            }
            return result == expected ? .passed : .failed("expected \(expected), got \(result)")
        }
        if let error = response["error"] {
            guard !testCase.valid else {
                return .failed("expected a result, got error \(error)")
            }
            guard case .object(let wanted)? = testCase.error else { return .passed }
            for (key, value) in wanted.sorted(by: { $0.key < $1.key }) where error[key] != value {
                return .failed("error \(key): expected \(value), got \(error[key] ?? .null)")
            }
            return .passed
        }
        return .failed("the response is neither a result, an error nor skipped: \(response)")
    }
}
