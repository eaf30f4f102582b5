internal import CPostgres
import GlowCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value bound to a statement's `$1`, `$2`, ... or read from a result's cell.
public enum PostgresValue: Sendable, Hashable {
    /// Text (`text`, `varchar`), sent in binary; PostgreSQL refuses text holding U+0000
    /// (SQLSTATE 22021).
    case text(String)
    /// Bytes (`bytea`), sent in binary.
    case bytes([UInt8])
    /// A whole number (`int2`, `int4`, `int8`).
    case int(Int64)
    /// SQL's null.
    case null
}

/// What went wrong talking to PostgreSQL: a stable code, the server's message, and its
/// SQLSTATE when the server gave one (`23505` a unique violation, `40001` a serialisation
/// failure), so that a caller can retry what may be retried.
public struct PostgresError: CodedError {
    /// A stable code.
    public typealias Code = ErrorCode<PostgresError>

    /// What kind of problem this is.
    public let code: Code
    /// The server's or the library's words.
    public let message: String
    /// The five-character SQLSTATE, when the server sent one.
    public let sqlState: String?

    package init(_ code: Code, _ message: String, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
    }

    /// No spec rule: these are the database's.
    public var rule: String? { nil }
    /// `(SQLSTATE 23505)`, when there is one.
    public var location: String? { sqlState.map { "(SQLSTATE \($0))" } }
}

extension ErrorCode where Domain == PostgresError {
    /// The server cannot be reached, or refused the connection.
    public static var connectionFailed: Self { Self("connection_failed") }
    /// A statement the server refused; ``PostgresError/sqlState`` says why.
    public static var queryFailed: Self { Self("query_failed") }
    /// A cell read as a type it does not hold.
    public static var typeMismatch: Self { Self("type_mismatch") }
    /// The server did not answer within the connection's wait: the connection is closed.
    public static var timedOut: Self { Self("timed_out") }
}

/// How long a connection waits on PostgreSQL, and the timeouts it sets on the server's side, so
/// that neither a frozen server nor a stalled client holds anyone for long.
public struct PostgresLimits: Sendable, Hashable {
    /// The longest, in seconds, that connecting or one statement's round trip waits; past it the
    /// connection is closed and the call fails `timed_out`. The server is told the same wait as
    /// its `statement_timeout` and `idle_in_transaction_session_timeout`, and half of it as its
    /// `lock_timeout`, so a statement, a lock wait or a client gone quiet inside a transaction (a
    /// paused process holding row locks) ends there too.
    public let wait: Double

    /// Limits of `wait` seconds, clamped to 0.05 ... 3,600.
    public init(wait: Double) {
        self.wait = wait.isFinite ? Swift.min(Swift.max(wait, 0.05), 3_600) : 3_600
    }

    /// Two seconds: long enough for any one of glow-server's statements on a healthy server,
    /// short enough that a device hears `503` before it gives up on its own.
    public static let standard = PostgresLimits(wait: 2)

    /// The wait in whole milliseconds, as the server's settings take it.
    var milliseconds: Int64 { Int64((wait * 1_000).rounded(.up)) }
}

/// One connection to PostgreSQL through libpq. Statements take their values as parameters
/// (never spliced into the text) and come back as ``PostgresResult``. A connection is used by
/// one thread at a time (libpq allows a connection to move between threads, never to be shared
/// by two at once): its owner keeps it under a lock, as the PostgreSQL stores of glow-server do.
///
/// Every wait is bounded (``PostgresLimits``): connecting and each statement run through libpq's
/// non-blocking calls and `poll`, and a server that does not answer in time costs the caller the
/// wait and the connection, never a thread.
public final class PostgresConnection: @unchecked Sendable {
    /// Nil once closed (after a wait ran out).
    private var connection: OpaquePointer?
    /// The waits this connection keeps to.
    public let limits: PostgresLimits
    /// When set, no call waits past it, whatever is left of ``PostgresLimits/wait``.
    private var deadline: ContinuousClock.Instant?
    /// The statements prepared on this connection, by their text: each is parsed and planned
    /// once, then only bound and run, which is most of a short statement's cost on the server.
    private var prepared: [String: String] = [:]
    /// The most statements a connection keeps prepared; past it, statements run unprepared.
    static let preparedLimit = 256

    /// Connects with a libpq connection string (`host=/run/glow dbname=glow user=glow`) or URL
    /// (`postgres://glow@localhost/glow`), waiting at most `limits.wait`, and sets the server's
    /// timeouts to the same wait.
    ///
    /// - Throws: ``PostgresError`` `connection_failed`, with libpq's reason, or `timed_out`.
    public init(_ conninfo: String, limits: PostgresLimits = .standard) throws(PostgresError) {
        self.limits = limits
        guard let started = PQconnectStart(conninfo) else {
            throw PostgresError(.connectionFailed, "libpq could not allocate a connection")
        }
        connection = started
        let until = ContinuousClock.now + .milliseconds(limits.milliseconds)
        // libpq's polling loop: as if the last poll had asked to write.
        var polling = PGRES_POLLING_WRITING
        while PQstatus(started) != CONNECTION_BAD,
            polling == PGRES_POLLING_READING || polling == PGRES_POLLING_WRITING
        {
            try wait(for: polling == PGRES_POLLING_READING ? .reading : .writing, until: until, doing: "connecting")
            polling = PQconnectPoll(started)
        }
        guard PQstatus(started) == CONNECTION_OK, PQsetnonblocking(started, 1) == 0 else {
            let reason = Self.trimmed(PQerrorMessage(started))
            close()
            throw PostgresError(.connectionFailed, reason)
        }
        // A lock wait ends first, so that it reads as what it is (lock_not_available, 55P03)
        // rather than as a slow statement (57014).
        let wait = limits.milliseconds
        try executeScript(
            "SET statement_timeout = \(wait); SET lock_timeout = \((wait + 1) / 2); "
                + "SET idle_in_transaction_session_timeout = \(wait)")
    }

    deinit { close() }

    /// Whether the connection is still open: false once a wait ran out.
    public var isOpen: Bool { connection != nil }

    /// Whether the connection can take another statement: open, and not lost. A store drops one
    /// that cannot after a failure, and connects again.
    public var isUsable: Bool { connection.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Runs `body` with every call on this connection bounded by `deadline` as well as by the
    /// limits' wait: a transaction that must end by a request's deadline.
    ///
    /// - Throws: the body's error.
    @discardableResult
    public func until<T, E: Error>(_ deadline: ContinuousClock.Instant, _ body: () throws(E) -> T) throws(E) -> T {
        let outer = self.deadline
        self.deadline = outer.map { Swift.min($0, deadline) } ?? deadline
        defer { self.deadline = outer }
        return try body()
    }

    private func close() {
        if let connection { PQfinish(connection) }
        connection = nil
    }

    private enum Direction { case reading, writing }

    /// Waits until the socket is ready in `direction`, or fails `timed_out` at `until` (or the
    /// deadline, when sooner), closing the connection.
    private func wait(for direction: Direction, until: ContinuousClock.Instant, doing what: String)
        throws(PostgresError)
    {
        guard let connection else { throw Self.closed }
        let end = deadline.map { Swift.min($0, until) } ?? until
        var descriptor = pollfd(
            fd: PQsocket(connection), events: Int16(direction == .reading ? POLLIN : POLLOUT), revents: 0)
        while true {
            let left = ContinuousClock.now.duration(to: end)
            let ready = poll(&descriptor, 1, left <= .zero ? 0 : Self.milliseconds(left))
            if ready > 0 { return }
            if ready < 0, errno == EINTR { continue }
            if ready == 0, ContinuousClock.now < end { continue }
            close()
            let reason = end < until ? "before the request's deadline" : "within \(limits.wait) s"
            throw PostgresError(
                .timedOut, "PostgreSQL did not answer \(reason) while \(what): the connection is closed")
        }
    }

    /// `duration` in whole milliseconds, rounded up, for `poll`.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        // A day is more than any wait: poll is asked again when it returns early.
        return Int32(Swift.min(seconds, 86_400) * 1_000 + attoseconds / 1_000_000_000_000_000 + 1)
    }

    private static var closed: PostgresError {
        PostgresError(.connectionFailed, "the connection was closed after PostgreSQL did not answer in time")
    }

    /// Runs `sql` with `parameters` bound to `$1`, `$2`, ...
    ///
    /// - Throws: ``PostgresError`` `query_failed` with the server's SQLSTATE, or
    ///   `connection_failed` when the connection was lost.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> PostgresResult {
        // Text and bytes go in binary with their length, so a U+0000 in text reaches the server
        // (which refuses it) instead of cutting the text short; numbers go as their decimal text.
        let encoded: [[UInt8]?] = parameters.map { value in
            switch value {
            case .text(let text): Array(text.utf8)
            case .bytes(let bytes): bytes
            case .int(let number): Array(String(number).utf8) + [0]
            case .null: nil
            }
        }
        let lengths = zip(parameters, encoded).map { value, bytes -> Int32 in
            if case .int = value { return 0 }
            return Int32(clamping: bytes?.count ?? 0)
        }
        let formats = parameters.map { value -> Int32 in
            if case .int = value { return 0 }
            return 1
        }
        guard let connection else { throw Self.closed }
        if let name = try preparedName(sql, parameters: parameters.count) {
            let sent = withPointers(encoded) { pointers in
                PQsendQueryPrepared(connection, name, Int32(parameters.count), pointers, lengths, formats, 0)
            }
            return try results(sent: sent, doing: "running a statement")
        }
        let sent = withPointers(encoded) { pointers in
            PQsendQueryParams(connection, sql, Int32(parameters.count), nil, pointers, lengths, formats, 0)
        }
        return try results(sent: sent, doing: "running a statement")
    }

    /// The name `sql` is prepared under on this connection, preparing it first (one round trip,
    /// once per connection); nil for a statement that is not prepared: one that controls the
    /// transaction or changes the schema (run as it comes), or any once ``preparedLimit`` are.
    private func preparedName(_ sql: String, parameters: Int) throws(PostgresError) -> String? {
        if let name = prepared[sql] { return name }
        let verb = sql.prefix(while: { $0 != " " }).uppercased()
        guard ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"].contains(verb), prepared.count < Self.preparedLimit,
            let connection
        else { return nil }
        let name = "glow\(prepared.count)"
        _ = try results(
            sent: PQsendPrepare(connection, name, sql, Int32(parameters), nil), doing: "preparing a statement")
        prepared[sql] = name
        return name
    }

    /// Adds `rows` to `table` in one `COPY ... FROM STDIN` statement, each row's values in the
    /// order of `columns`: what a bulk load uses instead of `INSERT`s. The values go as COPY's
    /// text, escaped, so any text, bytes or null arrive as they were. Returns the rows added.
    ///
    /// - Throws: ``PostgresError`` `query_failed` with the server's SQLSTATE when the server
    ///   refuses the statement or a row (nothing of it is added), `connection_failed` when the
    ///   connection was lost, `timed_out` as ``execute(_:_:)``.
    @discardableResult
    public func copy(into table: String, columns: [String], rows: [[PostgresValue]]) throws(PostgresError) -> Int {
        guard let connection else { throw Self.closed }
        let sql =
            "COPY \(Self.identifier(table)) (\(columns.map(Self.identifier).joined(separator: ", "))) FROM STDIN"
        let until = ContinuousClock.now + .milliseconds(limits.milliseconds)
        let what = "copying rows into \(table)"
        guard PQsendQuery(connection, sql) == 1 else { throw failure(nil) }
        try flush(until: until, doing: what)
        // The server answers COPY_IN, or refuses the statement (a table or column not there).
        guard let started = try nextResult(until: until, doing: what) else { throw failure(nil) }
        let status = PQresultStatus(started)
        guard status == PGRES_COPY_IN else {
            let refusal = failure(started)
            PQclear(started)
            try drain(until: until, doing: what)
            throw refusal
        }
        PQclear(started)
        var chunk: [UInt8] = []
        chunk.reserveCapacity(1 << 16)
        for row in rows {
            guard row.count == columns.count else {
                // The server ends the COPY as failed, adding nothing of it.
                guard PQputCopyEnd(connection, "a row does not have a value for each column") != -1 else {
                    throw failure(nil)
                }
                try flush(until: until, doing: what)
                try drain(until: until, doing: what)
                throw PostgresError(
                    .queryFailed, "a row of \(row.count) values for \(columns.count) columns of \(table)")
            }
            for (index, value) in row.enumerated() {
                if index > 0 { chunk.append(UInt8(ascii: "\t")) }
                Self.appendCopyText(value, to: &chunk)
            }
            chunk.append(UInt8(ascii: "\n"))
            if chunk.count >= 1 << 16 {
                try putCopyData(chunk, until: until, doing: what)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { try putCopyData(chunk, until: until, doing: what) }
        while true {
            let ended = PQputCopyEnd(connection, nil)
            if ended == 1 { break }
            guard ended == 0 else { throw failure(nil) }
            try wait(for: .writing, until: until, doing: what)
        }
        return try results(sent: 1, doing: what).affectedRows
    }

    /// Queues `data` of a COPY, waiting while the socket's buffer is full.
    private func putCopyData(_ data: [UInt8], until: ContinuousClock.Instant, doing what: String)
        throws(PostgresError)
    {
        guard let connection else { throw Self.closed }
        while true {
            let queued = data.withUnsafeBytes { bytes in
                PQputCopyData(
                    connection, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(clamping: bytes.count))
            }
            if queued == 1 { break }
            guard queued == 0 else { throw failure(nil) }
            try wait(for: .writing, until: until, doing: what)
        }
        try flush(until: until, doing: what)
    }

    /// Reads and frees the results left of a statement that failed, so the connection is ready
    /// for the next.
    private func drain(until: ContinuousClock.Instant, doing what: String) throws(PostgresError) {
        while let result = try nextResult(until: until, doing: what) { PQclear(result) }
    }

    /// The statement's next result once it has arrived (the caller frees it), or nil when every
    /// result was read.
    private func nextResult(until: ContinuousClock.Instant, doing what: String) throws(PostgresError)
        -> OpaquePointer?
    {
        guard let connection else { throw Self.closed }
        while PQisBusy(connection) == 1 {
            try wait(for: .reading, until: until, doing: what)
            guard PQconsumeInput(connection) == 1 else { throw failure(nil) }
        }
        return PQgetResult(connection)
    }

    /// Sends what libpq has queued, waiting while the socket's buffer is full.
    private func flush(until: ContinuousClock.Instant, doing what: String) throws(PostgresError) {
        guard let connection else { throw Self.closed }
        while true {
            let flushed = PQflush(connection)
            if flushed == 0 { return }
            guard flushed == 1 else { throw failure(nil) }
            try wait(for: .writing, until: until, doing: what)
            guard PQconsumeInput(connection) == 1 else { throw failure(nil) }
        }
    }

    /// `value` as COPY's text format writes it: `\N` for null, a number in decimal, bytes as
    /// `bytea`'s hex, and a backslash, tab, newline or carriage return escaped.
    static func appendCopyText(_ value: PostgresValue, to out: inout [UInt8]) {
        switch value {
        case .null: out += Array("\\N".utf8)
        case .int(let number): out += Array(String(number).utf8)
        case .bytes(let bytes):
            // `\x` begins bytea's hex; its backslash is escaped as COPY's text needs.
            out += Array("\\\\x".utf8)
            let digits = Array("0123456789abcdef".utf8)
            for byte in bytes {
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            }
        case .text(let text):
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
                case UInt8(ascii: "\t"): out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case UInt8(ascii: "\r"): out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                default: out.append(byte)
                }
            }
        }
    }

    /// `name` as a quoted SQL identifier.
    static func identifier(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    /// Runs `sql`, which may hold several statements and takes no parameters: a schema's step.
    ///
    /// - Throws: ``PostgresError`` as ``execute(_:_:)`` does; the statements before a failing one
    ///   stand unless a transaction around them is rolled back.
    public func executeScript(_ sql: String) throws(PostgresError) {
        guard let connection else { throw Self.closed }
        _ = try results(sent: PQsendQuery(connection, sql), doing: "running statements")
    }

    /// Sends what was queued, then reads every result of the command, waiting on the socket no
    /// longer than the limits and the deadline allow: the last result's rows, or the first
    /// failure as a typed error. Every result is freed.
    private func results(sent: Int32, doing what: String) throws(PostgresError) -> PostgresResult {
        guard connection != nil else { throw Self.closed }
        guard sent == 1 else { throw failure(nil) }
        let until = ContinuousClock.now + .milliseconds(limits.milliseconds)
        // Non-blocking: what does not fit the socket's buffer waits for it to drain.
        try flush(until: until, doing: what)
        var last: PostgresResult?
        var refusal: PostgresError?
        while let result = try nextResult(until: until, doing: what) {
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK {
                last = PostgresResult(result)
            } else if refusal == nil {
                refusal = failure(result)
            }
        }
        if let refusal { throw refusal }
        guard let last else { throw failure(nil) }
        return last
    }

    /// The failure `result` reports, or the connection's when there is no result; a connection
    /// that is no longer usable makes it `connection_failed`.
    private func failure(_ result: OpaquePointer?) -> PostgresError {
        guard let connection else { return Self.closed }
        guard let result else {
            return PostgresError(.connectionFailed, Self.trimmed(PQerrorMessage(connection)))
        }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let message = Self.trimmed(PQresultErrorMessage(result))
        if PQstatus(connection) != CONNECTION_OK {
            return PostgresError(.connectionFailed, message, sqlState: state)
        }
        return PostgresError(.queryFailed, message, sqlState: state)
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws
    /// (and the error passed on).
    ///
    /// - Throws: the body's error, or ``PostgresError`` when beginning or committing failed.
    @discardableResult
    public func transaction<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(PostgresError) -> T {
        try execute("BEGIN")
        let value: T
        do {
            value = try body(self)
        } catch {
            // The body's error is what the caller needs; a failed rollback means the connection
            // is gone (or closed after a wait ran out), and the next statement says so.
            do { try execute("ROLLBACK") } catch {}
            throw error
        }
        // A commit ends the transaction whatever it answers, so nothing is rolled back after it.
        try execute("COMMIT")
        return value
    }

    /// `body` with a C string pointer per value (nil for null), valid for its duration.
    private func withPointers<R>(_ values: [[UInt8]?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let buffers: [UnsafeMutableRawBufferPointer?] = values.map { value in
            value.map { bytes in
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
                bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
                return buffer
            }
        }
        defer { for buffer in buffers { buffer?.deallocate() } }
        return body(buffers.map { $0.map { UnsafePointer($0.baseAddress!.assumingMemoryBound(to: CChar.self)) } })
    }

    private static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
        let message = text.map { String(cString: $0) } ?? "no message"
        return String(message.reversed().drop(while: \.isNewline).reversed())
    }
}

/// The rows a statement returned, read into memory, and how many rows it changed.
public struct PostgresResult: Sendable {
    /// The columns' names, in order.
    public let columns: [String]
    /// Each row's cells, in the columns' order.
    public let rows: [[PostgresValue]]
    /// Rows inserted, updated or deleted (0 for a query).
    public let affectedRows: Int

    init(_ result: OpaquePointer) {
        let count = Int(PQntuples(result))
        let width = Int(PQnfields(result))
        columns = (0..<width).map { String(cString: PQfname(result, Int32($0))) }
        let types = (0..<width).map { PQftype(result, Int32($0)) }
        rows = (0..<count).map { row in
            (0..<width).map { column in
                guard PQgetisnull(result, Int32(row), Int32(column)) == 0,
                    let value = PQgetvalue(result, Int32(row), Int32(column))
                else { return .null }
                let text = String(cString: value)
                switch types[column] {
                case 20, 21, 23: return Int64(text).map(PostgresValue.int) ?? .text(text)
                case 17: return Self.bytea(text).map(PostgresValue.bytes) ?? .text(text)
                default: return .text(text)
                }
            }
        }
        affectedRows = Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// A `bytea` in the server's hexadecimal text form, `\x0a1b...`.
    private static func bytea(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count >= 2, digits[0] == UInt8(ascii: "\\"), digits[1] == UInt8(ascii: "x"), digits.count % 2 == 0
        else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x61...0x66: digit - 0x61 + 10
            case 0x41...0x46: digit - 0x41 + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2 - 1)
        var index = 2
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// The text in `column` of `row`.
    ///
    /// - Throws: ``PostgresError`` `type_mismatch` when it is not text.
    public func text(_ row: Int, _ column: String) throws(PostgresError) -> String {
        guard case .text(let text) = try cell(row, column) else { throw mismatch(column, "text") }
        return text
    }

    /// The whole number in `column` of `row`.
    ///
    /// - Throws: ``PostgresError`` `type_mismatch` when it is not one.
    public func int(_ row: Int, _ column: String) throws(PostgresError) -> Int64 {
        guard case .int(let number) = try cell(row, column) else { throw mismatch(column, "a whole number") }
        return number
    }

    /// The bytes in `column` of `row`.
    ///
    /// - Throws: ``PostgresError`` `type_mismatch` when they are not bytes.
    public func bytes(_ row: Int, _ column: String) throws(PostgresError) -> [UInt8] {
        guard case .bytes(let bytes) = try cell(row, column) else { throw mismatch(column, "bytes") }
        return bytes
    }

    /// The cell in `column` of `row`, null included.
    ///
    /// - Throws: ``PostgresError`` `type_mismatch` for a row or column the result does not have.
    public func cell(_ row: Int, _ column: String) throws(PostgresError) -> PostgresValue {
        guard rows.indices.contains(row), let index = columns.firstIndex(where: { $0.isExactly(column) }) else {
            throw PostgresError(.typeMismatch, "the result has no row \(row) with a column \(column.quoted())")
        }
        return rows[row][index]
    }

    private func mismatch(_ column: String, _ expected: String) -> PostgresError {
        PostgresError(.typeMismatch, "column \(column.quoted()) does not hold \(expected)")
    }
}
