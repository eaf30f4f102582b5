import Foundation
import GlowCore
import GlowProtocol
import GlowWire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Plays the `server` area's scripts of exchanges against a running server over HTTP
/// (`Spec/server.md` 9.6): `glow-tool conformance --server URL --mail-dir DIR`.
package final class ServerRunner: Sendable {
    /// The servers' base URLs, without a trailing `/`: the processes of one deployment, each
    /// exchange sent to the next in turn, so a case shows that any process sees what another
    /// committed.
    package let bases: [String]
    /// The folder the server writes each mail into, or nil when the server's mail is not readable.
    package let mailDirectory: String?
    /// What replaces `{run}`: new for each runner, so addresses never meet an earlier run's.
    package let run: String
    /// Seconds to wait for each answer.
    package let timeout: Double
    private let taken = Locked<Set<String>>([])
    private let played = Locked(0)
    private let sent = Locked(0)
    private let session: URLSession

    package convenience init(base: String, mailDirectory: String?, timeout: Double = 10, run: String? = nil) {
        self.init(bases: [base], mailDirectory: mailDirectory, timeout: timeout, run: run)
    }

    /// A runner that sends each exchange to the next of `bases` in turn.
    package init(bases: [String], mailDirectory: String?, timeout: Double = 10, run: String? = nil) {
        precondition(!bases.isEmpty, "a runner needs a server")
        self.bases = bases.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.mailDirectory = mailDirectory
        self.timeout = timeout
        self.run = run ?? String(UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(12))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    /// Plays every case, in order; a case of another operation is failed as unknown.
    package func run(_ cases: [CorpusCase], failureList: FailureList) -> [ConformanceRunner.Result] {
        cases.map { testCase in
            let outcome: ConformanceRunner.Outcome =
                switch play(testCase) {
                case .passed: .passed
                case .failed(let why): .failed(why)
                case .skipped(let why): .skipped(why)
                }
            return ConformanceRunner.Result(
                testCase: testCase, outcome: outcome, listed: failureList.contains(testCase))
        }
    }

    /// How one case went.
    package func play(_ testCase: CorpusCase) -> Conformance.Verdict {
        guard testCase.operation == "server.exchanges" else {
            return .skipped("operation \(testCase.operation) is not a server's")
        }
        guard let exchanges = testCase.input["exchanges"]?.array, !exchanges.isEmpty else {
            return .failed("the case has no exchanges")
        }
        var captured: [String: String] = [:]
        // Each case its own client address and /64 (9.6), so throttles and limits of one never reach
        // another.
        let number = played.withLock { count in
            count += 1
            return count
        }
        let groups = stride(from: 0, to: 12, by: 4).map { start in
            String(run.dropFirst(start).prefix(4))
        }
        let client = "2001:db8:\(String(number, radix: 16)):\(groups.joined(separator: ":"))::1"
        for (index, exchange) in exchanges.enumerated() {
            let label = exchange["call"]?.string ?? exchange["path"]?.string ?? (exchange["mail"] != nil ? "mail" : "?")
            do {
                if let mail = exchange["mail"] {
                    try takeMail(mail, &captured)
                } else {
                    try perform(exchange, client: client, &captured)
                }
            } catch {
                return .failed("exchange \(index + 1) (\(label)): \(error.reason)")
            }
        }
        return .passed
    }

    /// Why an exchange failed.
    struct Failure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    // MARK: Requests

    private func perform(_ exchange: JSONValue, client: String, _ captured: inout [String: String]) throws(Failure) {
        let call = exchange["call"]?.string.flatMap(ServiceCalls.call(named:))
        if let name = exchange["call"]?.string, call == nil { throw Failure("no call named \(name) in SERVER-2") }
        guard let path = call?.path ?? exchange["path"]?.string else {
            throw Failure("an exchange names a call or a path")
        }
        let base = sent.withLock { count in
            count += 1
            return bases[count % bases.count]
        }
        guard let url = URL(string: base + substitute(path, captured)) else { throw Failure("\(path) makes no URL") }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = exchange["method"]?.string ?? call?.method ?? "POST"
        request.setValue(client, forHTTPHeaderField: "X-Forwarded-For")
        if let body = try requestBody(exchange, call: call, captured) {
            request.httpBody = Data(body)
            request.setValue(ServiceCalls.contentType, forHTTPHeaderField: "Content-Type")
        }
        if let name = exchange["token"]?.string {
            guard let token = captured[name] else { throw Failure("nothing was captured as \(name)") }
            request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
        }
        if case .object(let headers)? = exchange["headers"] {
            // `{client}`: the case's own address without its last group, so `{client}2` is another
            // address of the case's /64 (9.6).
            let network = client.hasSuffix("::1") ? String(client.dropLast()) : client
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
                let text: String? =
                    if let raw = value.string {
                        try substituteOrFail(raw.replacingOccurrences(of: "{client}", with: network), captured)
                    } else { nil }
                request.setValue(text, forHTTPHeaderField: name)
            }
        }
        var (status, headers, body) = try send(request)
        // A case longer than SERVER-11's burst is held to its rate: the runner waits the seconds it
        // is given, as a client should, and asks again (9.6); a case that expects a 429 gets it.
        for _ in 0..<3 where status == 429 && exchange["expect"]?["status"]?.int != 429 {
            guard let wait = headers["retry-after"].flatMap(Double.init), wait <= 5,
                Self.errorRule(body) == "SERVER-11"
            else { break }
            Thread.sleep(forTimeInterval: wait)
            (status, headers, body) = try send(request)
        }
        guard let expect = exchange["expect"] else { return }
        if let wanted = expect["status"]?.int, wanted != status {
            throw Failure("status \(status), expected \(wanted)\(Self.errorSummary(body, status))")
        }
        if case .object(let wanted)? = expect["headers"] {
            for (name, value) in wanted.sorted(by: { $0.key < $1.key }) {
                let actual = headers[name.lowercased()]
                if value["present"] == .bool(true) {
                    guard actual != nil else { throw Failure("no header \(name)") }
                } else if let text = value.string {
                    let text = try substituteOrFail(text, captured)
                    guard actual == text else {
                        throw Failure("header \(name) is \(actual ?? "absent"), expected \(text)")
                    }
                }
            }
        }
        let errorExpected = expect["error"]
        let bodyExpected = expect["body"]
        guard errorExpected != nil || bodyExpected != nil else { return }
        let media = headers["content-type"].map { $0.split(separator: ";").first.map(String.init) ?? $0 }
        guard media?.trimmingCharacters(in: .whitespaces).lowercased() == ServiceCalls.contentType else {
            throw Failure("Content-Type is \(headers["content-type"] ?? "absent"), not \(ServiceCalls.contentType)")
        }
        let type: ProtocolMessageType
        if errorExpected != nil {
            guard let serviceError = ProtocolSchema.type("ServiceError") else { preconditionFailure("declared") }
            type = serviceError
        } else {
            guard let call else { throw Failure("a body can be expected only of a call") }
            type = call.response
        }
        let message: ProtocolMessage
        do {
            message = try ProtocolMessage(type, wire: body)
        } catch {
            throw Failure("the answer is not a \(type.name): \(error)")
        }
        try compare(Self.json(message), with: errorExpected ?? bodyExpected ?? .null, at: type.name, &captured)
    }

    /// The rule a `ServiceError` body names, nil when the body is not one.
    private static func errorRule(_ body: [UInt8]) -> String? {
        guard let type = ProtocolSchema.type("ServiceError") else { return nil }
        do {
            return try ProtocolMessage(type, wire: body).string("rule")
        } catch {
            return nil  // not a ServiceError: the expectation judges it
        }
    }

    private func requestBody(_ exchange: JSONValue, call: ServiceCall?, _ captured: [String: String]) throws(Failure)
        -> [UInt8]?
    {
        if let json = exchange["body"] {
            guard let type = call?.request else { throw Failure("this call takes no body") }
            var bytes = try Self.message(substitute(json, captured), type).wireEncoded()
            if let hex = exchange["unknownFields"]?.string {
                do {
                    bytes += try HexText.bytes(Array(hex.utf8), allowingWhiteSpace: true)
                } catch {
                    throw Failure("unknownFields: \(error)")
                }
            }
            return bytes
        }
        if let hex = exchange["bodyHex"]?.string {
            do {
                return try HexText.bytes(Array(hex.utf8), allowingWhiteSpace: true)
            } catch {
                throw Failure("bodyHex: \(error)")
            }
        }
        if let fill = exchange["bodyFill"] {
            guard let byte = fill["byte"]?.int.flatMap(UInt8.init(exactly:)), let count = fill["count"]?.int,
                (0...(64 << 20)).contains(count)
            else { throw Failure("bodyFill is {\"byte\": 0...255, \"count\": 0...64 MiB}") }
            return [UInt8](repeating: byte, count: count)
        }
        return nil
    }

    private func send(_ request: URLRequest) throws(Failure) -> (Int, [String: String], [UInt8]) {
        let answer = Locked<Result<(Int, [String: String], [UInt8]), Failure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { data, response, error in
            let result: Result<(Int, [String: String], [UInt8]), Failure>
            if let response = response as? HTTPURLResponse {
                var headers: [String: String] = [:]
                for (name, value) in response.allHeaderFields {
                    headers[String(describing: name).lowercased()] = String(describing: value)
                }
                result = .success((response.statusCode, headers, Array(data ?? Data())))
            } else {
                result = .failure(Failure("no answer: \(error.map { "\($0.localizedDescription)" } ?? "none")"))
            }
            answer.withLock { $0 = result }
            done.signal()
        }.resume()
        done.wait()
        guard let result = answer.withLock({ $0 }) else { throw Failure("no answer") }
        return try result.get()
    }

    // MARK: Setup (9.6)

    /// What to change before the first case, in one line, or nil when the setup is right
    /// (`Spec/server.md` 9.6): a server set up otherwise fails cases for reasons that are not its
    /// own, and a person should read the reason, not dozens of failures. In order: the mail folder
    /// is given and readable; every server answers health, and not with `429`; the server takes
    /// the client from `X-Forwarded-For`; its mail arrives in the folder.
    package func setupProblem() -> String? {
        let start = "glow-server --mail-dir DIR --trust-forwarded-for"
        guard let folder = mailDirectory else {
            return "give --mail-dir DIR, the folder the server writes its mail into (\(start)): the cases read mail"
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            return "--mail-dir \(folder) is not a folder here: name the folder the server was started with (\(start))"
        }
        guard FileManager.default.isReadableFile(atPath: folder) else {
            return "--mail-dir \(folder) cannot be read by this user: let it read the folder"
        }
        // Addresses of the run's own, apart from the cases' (2001:db8:N:RUN::1, N from 1).
        let groups = stride(from: 0, to: 12, by: 4).map { String(run.dropFirst($0).prefix(4)) }.joined(separator: ":")
        let client = { (number: Int) in "2001:db8:ffff:\(groups):\(number)" }
        for base in bases {
            let answer: (status: Int, body: [UInt8])
            do { answer = try call("health", at: base, body: nil, client: client(1)) } catch {
                return "cannot reach the server at \(base) (\(error.reason)): start it (\(start)) or correct --server"
            }
            if answer.status == 429 {
                return "the server at \(base) throttles this runner already (429, SERVER-11): start it with "
                    + "--trust-forwarded-for and the default --client-interval and --client-burst"
            }
            guard answer.status == 200 else {
                return "the server at \(base) answers health with \(answer.status)"
                    + "\(Self.errorSummary(answer.body, answer.status)): make GET /v1/health answer 200 (SERVER-7)"
            }
        }
        // AUTH-39: five failed sign-ins from one client make its next one wait; from another client
        // the next is checked, unless the server counts every request as its peer's.
        let trust =
            "the server does not take the client from X-Forwarded-For, so every case is one client and "
            + "cases fail with 429 throttled: start it with --trust-forwarded-for"
        for attempt in 0..<6 {
            let body: JSONValue = .object([
                "email": .string("setup-\(run)-\(attempt)@example.com"), "password": .string("not the password"),
            ])
            let answer: (status: Int, body: [UInt8])
            do {
                answer = try call(
                    "sign-in", at: bases[attempt % bases.count], body: body, client: client(attempt < 5 ? 2 : 3))
            } catch { return "the server stopped answering: \(error.reason)" }
            if answer.status == 429 {
                return Self.rule(answer.body) == "SERVER-11"
                    ? "the server throttles this runner's calls (429, SERVER-11): start it with the default "
                        + "--client-interval and --client-burst" : trust
            }
            guard answer.status == 401 else {
                return "a sign-in with an unknown address answers \(answer.status)"
                    + "\(Self.errorSummary(answer.body, answer.status)), not 401 invalid_credentials (AUTH-39)"
            }
        }
        // SERVER-8: a sign-up's mail arrives in the folder.
        let address = "setup-\(run)@example.com"
        let body: JSONValue = .object([
            "email": .string(address), "password": .string("correct horse battery staple"),
        ])
        do {
            let answer = try call("sign-up", at: bases[0], body: body, client: client(4))
            guard answer.status == 200 else {
                return "a sign-up answers \(answer.status)\(Self.errorSummary(answer.body, answer.status)), not 200"
            }
            var captured: [String: String] = [:]
            try takeMail(.object(["to": .string(address), "kind": .string("confirmSignUp")]), &captured)
        } catch {
            return
                "the server's mail does not arrive in \(folder) (\(error.reason)): start it with --mail-dir \(folder)"
        }
        return nil
    }

    /// One call of SERVER-2 to `base` from `client`: its status and body.
    private func call(_ name: String, at base: String, body: JSONValue?, client: String) throws(Failure)
        -> (status: Int, body: [UInt8])
    {
        guard let call = ServiceCalls.call(named: name), let url = URL(string: base + call.path) else {
            preconditionFailure("SERVER-2 names \(name)")
        }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = call.method
        request.setValue(client, forHTTPHeaderField: "X-Forwarded-For")
        if let body, let type = call.request {
            request.httpBody = Data(try Self.message(body, type).wireEncoded())
            request.setValue(ServiceCalls.contentType, forHTTPHeaderField: "Content-Type")
        }
        let (status, _, answer) = try send(request)
        return (status, answer)
    }

    /// The rule a `ServiceError` body names, or "" when it names none or is no `ServiceError`.
    static func rule(_ body: [UInt8]) -> String {
        guard let type = ProtocolSchema.type("ServiceError") else { return "" }
        do { return try ProtocolMessage(type, wire: body).string("rule") } catch { return "" }
    }

    // MARK: Mail (SERVER-8)

    private func takeMail(_ spec: JSONValue, _ captured: inout [String: String]) throws(Failure) {
        guard let folder = mailDirectory else {
            throw Failure("the case reads the server's mail: run with --mail-dir and a server that writes there")
        }
        guard let to = spec["to"]?.string, let kind = spec["kind"]?.string else {
            throw Failure("a mail step names to and kind")
        }
        let address = try substituteOrFail(to, captured).lowercased()
        // As long as a request may take: a loaded server delivers later, not never.
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".eml") }
                    .sorted()
            } catch {
                throw Failure("the mail folder \(folder) cannot be read: \(error.localizedDescription)")
            }
            for name in names {
                let path = folder + "/" + name
                guard !taken.withLock({ $0.contains(path) }),
                    let data = FileManager.default.contents(atPath: path)
                else { continue }
                let headers = Self.mailHeaders(String(decoding: data, as: UTF8.self))
                guard headers["to"]?.lowercased() == address, headers["x-glow-mail"] == kind else { continue }
                taken.withLock { _ = $0.insert(path) }
                if let name = spec["capture"]?.string {
                    guard let token = headers["x-glow-token"], !token.isEmpty else {
                        throw Failure("the \(kind) mail to \(address) carries no X-Glow-Token")
                    }
                    captured[name] = token
                }
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        throw Failure(
            "no \(kind) mail to \(address) arrived in \(folder) within \(String(format: "%g", timeout)) seconds")
    }

    /// The header fields of an RFC 5322 message, by lower-case name.
    static func mailHeaders(_ text: String) -> [String: String] {
        var headers: [String: String] = [:]
        // "\r\n" is one Character in Swift, a line break as "\n" is.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return headers
    }

    // MARK: JSON and messages

    private func substitute(_ text: String, _ captured: [String: String]) -> String {
        text.replacingOccurrences(of: "{run}", with: run)
    }

    /// `"$NAME"` as a whole, `{$NAME}` inside a text, and `{run}` (9.6).
    private func substituteOrFail(_ text: String, _ captured: [String: String]) throws(Failure) -> String {
        if text.hasPrefix("$") {
            guard let value = captured[String(text.dropFirst())] else {
                throw Failure("nothing was captured as \(text)")
            }
            return value
        }
        var result = substitute(text, captured)
        while let open = result.range(of: "{$"), let close = result[open.upperBound...].firstIndex(of: "}") {
            let name = String(result[open.upperBound..<close])
            guard let value = captured[name] else { throw Failure("nothing was captured as $\(name)") }
            result.replaceSubrange(open.lowerBound...close, with: value)
        }
        return result
    }

    private func substitute(_ value: JSONValue, _ captured: [String: String]) throws(Failure) -> JSONValue {
        switch value {
        case .string(let text): return .string(try substituteOrFail(text, captured))
        case .array(let items):
            var result: [JSONValue] = []
            for item in items { result.append(try substitute(item, captured)) }
            return .array(result)
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, member) in members { result[key] = try substitute(member, captured) }
            return .object(result)
        default: return value
        }
    }

    /// Compares `actual` with the members `expected` names (9.6), capturing where asked.
    private func compare(
        _ actual: JSONValue, with expected: JSONValue, at path: String, _ captured: inout [String: String]
    )
        throws(Failure)
    {
        switch expected {
        case .object(let members):
            if let name = members["capture"]?.string, members.count == 1 {
                let text: String? =
                    switch actual {
                    case .string(let value): value.isEmpty ? nil : value
                    case .int(let value): value == 0 ? nil : String(value)
                    default: nil
                    }
                guard let text else {
                    throw Failure("\(path) is empty, where a value to capture as \(name) was expected")
                }
                captured[name] = text
                return
            }
            guard case .object(let fields) = actual else { throw Failure("\(path) is \(actual), not a message") }
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                guard let field = fields[key] else { throw Failure("\(path) has no field \(key)") }
                try compare(field, with: member, at: path + "." + key, &captured)
            }
        case .array(let items):
            guard case .array(let actualItems) = actual, actualItems.count == items.count else {
                throw Failure("\(path) is \(actual), expected \(items.count) entries")
            }
            for (index, item) in items.enumerated() {
                try compare(actualItems[index], with: item, at: "\(path)[\(index)]", &captured)
            }
        default:
            let wanted = try substitute(expected, captured)
            guard wanted == actual else { throw Failure("\(path) is \(actual), expected \(wanted)") }
        }
    }

    /// A message from its JSON form (9.6): proto field names, numbers, objects, arrays.
    static func message(_ json: JSONValue, _ type: ProtocolMessageType) throws(Failure) -> ProtocolMessage {
        guard case .object(let members) = json else { throw Failure("a \(type.name) is written as an object") }
        var message = ProtocolMessage(type: type)
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            guard let field = type.field(named: name) else { throw Failure("\(type.name) has no field \(name)") }
            if field.repeated {
                guard case .array(let items) = value else { throw Failure("\(type.name).\(name) is a list") }
                var values: [ProtocolValue] = []
                for item in items { values.append(try Self.value(item, field, type)) }
                message.set(name, .list(values))
            } else {
                message.set(name, try Self.value(value, field, type))
            }
        }
        return message
    }

    private static func value(_ json: JSONValue, _ field: ProtocolField, _ type: ProtocolMessageType) throws(Failure)
        -> ProtocolValue
    {
        let place = "\(type.name).\(field.name)"
        switch (field.type, json) {
        case (.string, .string(let text)): return .string(text)
        case (.bytes, .string(let hex)):
            do {
                return .bytes(try HexText.bytes(Array(hex.utf8), allowingWhiteSpace: true))
            } catch {
                throw Failure("\(place) is bytes in hexadecimal: \(error)")
            }
        case (.bool, .bool(let flag)): return .bool(flag)
        case (.uint32, .int(let number)) where (0...Int(UInt32.max)).contains(number): return .unsigned(UInt64(number))
        case (.uint64, .int(let number)) where number >= 0: return .unsigned(UInt64(number))
        case (.enumeration, .int(let number)) where (0...Int(Int32.max)).contains(number):
            return .unsigned(UInt64(number))
        case (.sint32, .int(let number)) where Int32(exactly: number) != nil: return .signed(Int64(number))
        case (.sint64, .int(let number)): return .signed(Int64(number))
        case (.message(let name), .object):
            guard let inner = ProtocolSchema.type(name) else { preconditionFailure("the schema declares \(name)") }
            return .message(try message(json, inner))
        default: throw Failure("\(place) cannot be \(json)")
        }
    }

    /// A message's JSON form: every declared field, a scalar or message absent on the wire as its
    /// default, an absent `optional` field left out, a repeated field as a list.
    static func json(_ message: ProtocolMessage) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for field in message.type.fields {
            let value = message.values[field.name]
            if field.repeated {
                if case .list(let items)? = value {
                    members[field.name] = .array(items.map(json))
                } else {
                    members[field.name] = .array([])
                }
            } else if let value {
                members[field.name] = json(value)
            } else if !field.optional {
                switch field.type {
                case .string, .bytes: members[field.name] = .string("")
                case .bool: members[field.name] = .bool(false)
                case .uint32, .uint64, .sint32, .sint64, .enumeration: members[field.name] = .int(0)
                case .message(let name):
                    // An absent message reads as its default, an empty one (the schema has no cycles).
                    guard let inner = ProtocolSchema.type(name) else { preconditionFailure("declared") }
                    members[field.name] = json(ProtocolMessage(type: inner))
                }
            }
        }
        return .object(members)
    }

    private static func json(_ value: ProtocolValue) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .bytes(let bytes): .string(HexText.text(bytes))
        case .bool(let flag): .bool(flag)
        case .unsigned(let number): Int(exactly: number).map(JSONValue.int) ?? .string(String(number))
        case .signed(let number): .int(Int(number))
        case .message(let message): json(message)
        case .list(let items): .array(items.map(json))
        }
    }

    /// `: code (message)` of a ServiceError body, for a failure's reason.
    static func errorSummary(_ body: [UInt8], _ status: Int) -> String {
        guard status != 200, let type = ProtocolSchema.type("ServiceError") else { return "" }
        do {
            let error = try ProtocolMessage(type, wire: body)
            return ": \(error.string("code")) (\(error.string("message")))"
        } catch {
            return " (the body is not a ServiceError: \(error))"
        }
    }
}
