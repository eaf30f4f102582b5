import GlowPostgres
import GlowStorage

extension DatabaseSchema {
    /// A server's accounts and relay in PostgreSQL ("GLSP"), shared by every process of a
    /// deployment. Its steps, once shipped, never change; a new one is added at the end.
    package static let postgresServer = DatabaseSchema(
        kind: "server database", applicationID: 0x474C_5350,
        migrations: [
            Migration(
                "store clocks",
                """
                CREATE TABLE glow_clock (name TEXT PRIMARY KEY, version BIGINT NOT NULL, purged BIGINT NOT NULL);
                INSERT INTO glow_clock (name, version, purged) VALUES ('accounts', 0, 0), ('relay', 0, 0);
                """),
            Migration(
                "account records",
                """
                CREATE TABLE accounts (key TEXT PRIMARY KEY, value BYTEA, version BIGINT NOT NULL);
                CREATE INDEX accounts_version ON accounts (version);
                CREATE TABLE accounts_by_email (key TEXT PRIMARY KEY, value BYTEA, version BIGINT NOT NULL);
                CREATE INDEX accounts_by_email_version ON accounts_by_email (version);
                CREATE TABLE account_identities (key TEXT PRIMARY KEY, value BYTEA, version BIGINT NOT NULL);
                CREATE INDEX account_identities_version ON account_identities (version);
                CREATE TABLE account_sessions (key TEXT PRIMARY KEY, value BYTEA, version BIGINT NOT NULL);
                CREATE INDEX account_sessions_version ON account_sessions (version);
                CREATE TABLE account_sessions_by_access_hash (key TEXT PRIMARY KEY, value BYTEA,
                    version BIGINT NOT NULL);
                CREATE INDEX account_sessions_by_access_hash_version ON account_sessions_by_access_hash (version);
                CREATE TABLE account_sessions_by_refresh_hash (key TEXT PRIMARY KEY, value BYTEA,
                    version BIGINT NOT NULL);
                CREATE INDEX account_sessions_by_refresh_hash_version ON account_sessions_by_refresh_hash (version);
                CREATE TABLE account_sessions_by_used_refresh_hash (key TEXT PRIMARY KEY, value BYTEA,
                    version BIGINT NOT NULL);
                CREATE INDEX account_sessions_by_used_refresh_hash_version
                    ON account_sessions_by_used_refresh_hash (version);
                CREATE TABLE account_resets (key TEXT PRIMARY KEY, value BYTEA, version BIGINT NOT NULL);
                CREATE INDEX account_resets_version ON account_resets (version);
                CREATE TABLE account_pending_sign_ups (key TEXT PRIMARY KEY, value BYTEA, version BIGINT NOT NULL);
                CREATE INDEX account_pending_sign_ups_version ON account_pending_sign_ups (version);
                CREATE TABLE account_pending_sign_ups_by_email (key TEXT PRIMARY KEY, value BYTEA,
                    version BIGINT NOT NULL);
                CREATE INDEX account_pending_sign_ups_by_email_version ON account_pending_sign_ups_by_email (version);
                CREATE TABLE account_throttles (key TEXT PRIMARY KEY, value BYTEA, version BIGINT NOT NULL);
                CREATE INDEX account_throttles_version ON account_throttles (version);
                CREATE TABLE account_request_windows (key TEXT PRIMARY KEY, value BYTEA, version BIGINT NOT NULL);
                CREATE INDEX account_request_windows_version ON account_request_windows (version);
                CREATE TABLE account_nonces (key TEXT PRIMARY KEY, value BYTEA, version BIGINT NOT NULL);
                CREATE INDEX account_nonces_version ON account_nonces (version);
                CREATE TABLE account_email_changes (key TEXT PRIMARY KEY, value BYTEA, version BIGINT NOT NULL);
                CREATE INDEX account_email_changes_version ON account_email_changes (version);
                CREATE TABLE account_second_factors (key TEXT PRIMARY KEY, value BYTEA, version BIGINT NOT NULL);
                CREATE INDEX account_second_factors_version ON account_second_factors (version);
                CREATE TABLE account_revocations (key TEXT PRIMARY KEY, value BYTEA, version BIGINT NOT NULL);
                CREATE INDEX account_revocations_version ON account_revocations (version);
                """),
            Migration(
                "relay registers",
                """
                CREATE TABLE relay_registers (key TEXT PRIMARY KEY, sequence BIGINT NOT NULL, register BYTEA NOT NULL,
                    version BIGINT NOT NULL);
                CREATE INDEX relay_registers_version ON relay_registers (version);
                CREATE TABLE relay_clock (singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                    last_receipt BIGINT NOT NULL);
                INSERT INTO relay_clock (singleton, last_receipt) VALUES (1, 0);
                """),
            Migration(
                "mail outbox",
                """
                CREATE TABLE mail_outbox (id BIGSERIAL PRIMARY KEY, recipient TEXT NOT NULL, kind TEXT NOT NULL,
                    message TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    claimed_until TIMESTAMPTZ NOT NULL DEFAULT 'epoch');
                """),
            Migration(
                "push outbox",
                """
                CREATE TABLE relay_pushes (kind TEXT NOT NULL, key TEXT NOT NULL, value BYTEA, version BIGINT NOT NULL,
                    PRIMARY KEY (kind, key));
                CREATE INDEX relay_pushes_version ON relay_pushes (version);
                """),
            // The account records leave their version clock for one table of rows, read and
            // written by key, by owner and by expiry (``PostgresAccountStore``): the account a
            // record belongs to and the time from which a purge may forget it, from its JSON as
            // the account service's maps index them.
            Migration(
                "account rows",
                """
                CREATE TABLE account_rows (map TEXT NOT NULL, key TEXT NOT NULL, value BYTEA NOT NULL, owner TEXT,
                    expiry BIGINT, version BIGINT NOT NULL, PRIMARY KEY (map, key));
                CREATE INDEX account_rows_owner ON account_rows (map, owner) WHERE owner IS NOT NULL;
                CREATE INDEX account_rows_expiry ON account_rows (map, expiry) WHERE expiry IS NOT NULL;
                INSERT INTO account_rows (map, key, value, owner, expiry, version)
                    SELECT map, key, value,
                        CASE WHEN map IN ('identities', 'sessions', 'resets', 'emailChanges')
                            THEN j -> 'account' ->> 'rawValue' END,
                        floor(1000 * (CASE map
                            WHEN 'sessions' THEN coalesce(j ->> 'lastUsedAt', j ->> 'authenticatedAt')
                            WHEN 'throttles' THEN j ->> 'lastFailure'
                            WHEN 'requestWindows' THEN j ->> 'start'
                            WHEN 'revocations' THEN j ->> 'nextAttempt'
                            WHEN 'resets' THEN j ->> 'expiresAt'
                            WHEN 'pendingSignUps' THEN j ->> 'expiresAt'
                            WHEN 'nonces' THEN j ->> 'expiresAt'
                            WHEN 'emailChanges' THEN j ->> 'expiresAt' END)::float8)::bigint,
                        1
                    FROM (SELECT map, key, value, convert_from(value, 'UTF8')::jsonb AS j FROM (
                            SELECT 'accounts' AS map, key, value FROM accounts UNION ALL
                            SELECT 'accountsByEmail' AS map, key, value FROM accounts_by_email UNION ALL
                            SELECT 'identities' AS map, key, value FROM account_identities UNION ALL
                            SELECT 'sessions' AS map, key, value FROM account_sessions UNION ALL
                            SELECT 'sessionsByAccessHash', key, value
                                FROM account_sessions_by_access_hash UNION ALL
                            SELECT 'sessionsByRefreshHash', key, value
                                FROM account_sessions_by_refresh_hash UNION ALL
                            SELECT 'sessionsByUsedRefreshHash', key, value
                                FROM account_sessions_by_used_refresh_hash UNION ALL
                            SELECT 'resets' AS map, key, value FROM account_resets UNION ALL
                            SELECT 'pendingSignUps', key, value
                                FROM account_pending_sign_ups UNION ALL
                            SELECT 'pendingSignUpsByEmail', key, value
                                FROM account_pending_sign_ups_by_email UNION ALL
                            SELECT 'throttles' AS map, key, value FROM account_throttles UNION ALL
                            SELECT 'requestWindows' AS map, key, value FROM account_request_windows UNION ALL
                            SELECT 'nonces' AS map, key, value FROM account_nonces UNION ALL
                            SELECT 'emailChanges' AS map, key, value FROM account_email_changes UNION ALL
                            SELECT 'secondFactors' AS map, key, value FROM account_second_factors UNION ALL
                            SELECT 'revocations' AS map, key, value FROM account_revocations
                        ) AS old WHERE value IS NOT NULL) AS rows;
                DROP TABLE accounts, accounts_by_email, account_identities, account_sessions,
                    account_sessions_by_access_hash, account_sessions_by_refresh_hash,
                    account_sessions_by_used_refresh_hash, account_resets, account_pending_sign_ups,
                    account_pending_sign_ups_by_email, account_throttles, account_request_windows,
                    account_nonces, account_email_changes, account_second_factors, account_revocations;
                DELETE FROM glow_clock WHERE name = 'accounts';
                """),
            // Each visibility register's ends (FEED-25), 0 for every register already there.
            Migration(
                "visibility ends",
                """
                ALTER TABLE relay_registers ADD COLUMN public_until BIGINT NOT NULL DEFAULT 0;
                ALTER TABLE relay_registers ADD COLUMN shared_until BIGINT NOT NULL DEFAULT 0;
                """),
            // The relay as rows read by index (issue 43): each register's kind, parties and item
            // and whether it is a public goal's visibility, each push row's person, token and time;
            // the sequence index makes the table the relay's log. Rows already there get theirs
            // from the relay store when a process opens the database; the push outbox's tombstones,
            // which only the copies of the whole state read, go.
            Migration(
                "relay indexes",
                """
                ALTER TABLE relay_registers ADD COLUMN kind TEXT, ADD COLUMN party TEXT, ADD COLUMN other TEXT,
                    ADD COLUMN item TEXT, ADD COLUMN is_public INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX relay_registers_sequence ON relay_registers (sequence);
                CREATE INDEX relay_registers_party ON relay_registers (kind, party, other);
                CREATE INDEX relay_registers_other ON relay_registers (kind, other, party);
                CREATE INDEX relay_registers_item ON relay_registers (item) WHERE item IS NOT NULL;
                CREATE INDEX relay_registers_public ON relay_registers (kind) WHERE is_public = 1;
                CREATE INDEX relay_registers_unindexed ON relay_registers (key) WHERE kind IS NULL;
                DELETE FROM relay_pushes WHERE value IS NULL;
                ALTER TABLE relay_pushes ADD COLUMN person TEXT, ADD COLUMN token TEXT, ADD COLUMN at BIGINT;
                CREATE INDEX relay_pushes_person ON relay_pushes (person) WHERE person IS NOT NULL;
                CREATE INDEX relay_pushes_token ON relay_pushes (token) WHERE token IS NOT NULL;
                CREATE INDEX relay_pushes_at ON relay_pushes (kind, at) WHERE at IS NOT NULL;
                CREATE INDEX relay_pushes_unindexed ON relay_pushes (kind) WHERE person IS NULL AND token IS NULL;
                """),
            // The relay's sequencer (issue 43): a write's changed registers wait in a batch, with
            // the columns they are found by, until the sequencer numbers them after they committed
            // (``PostgresFeedRelayStore``); the number each batch's last change got waited for its
            // writer in `relay_batches` (until the step "relay numbering").
            Migration(
                "relay sequencer",
                """
                CREATE SEQUENCE relay_batch;
                CREATE TABLE relay_pending (batch BIGINT NOT NULL, position INTEGER NOT NULL, key TEXT NOT NULL,
                    register BYTEA NOT NULL, ends INTEGER NOT NULL, received INTEGER NOT NULL, kind TEXT NOT NULL,
                    party TEXT NOT NULL, other TEXT, item TEXT, is_public INTEGER NOT NULL,
                    PRIMARY KEY (batch, position));
                CREATE INDEX relay_pending_key ON relay_pending (key);
                CREATE INDEX relay_pending_party ON relay_pending (kind, party, other);
                CREATE INDEX relay_pending_other ON relay_pending (kind, other, party);
                CREATE INDEX relay_pending_item ON relay_pending (item) WHERE item IS NOT NULL;
                CREATE TABLE relay_batches (batch BIGINT PRIMARY KEY, sequence BIGINT NOT NULL);
                """),
            // The stores' clocks of the first step went with the whole-state copies they kept in
            // step (issue 43): every call reads its rows afresh.
            Migration("no store clocks", "DROP TABLE glow_clock;"),
            // People's sync logs (Spec/sync.md 11.4): sealed records by person and position, found
            // by device and sequence; each device's head; each log's key id, next position and bytes.
            Migration(
                "sync log",
                """
                CREATE TABLE sync_logs (person TEXT PRIMARY KEY, key_id BYTEA NOT NULL, next_position BIGINT NOT NULL,
                    bytes BIGINT NOT NULL);
                CREATE TABLE sync_records (person TEXT NOT NULL, position BIGINT NOT NULL, device BYTEA NOT NULL,
                    sequence BIGINT NOT NULL, record BYTEA NOT NULL, PRIMARY KEY (person, position));
                CREATE UNIQUE INDEX sync_records_device ON sync_records (person, device, sequence);
                CREATE TABLE sync_heads (person TEXT NOT NULL, device BYTEA NOT NULL, sequence BIGINT NOT NULL,
                    hash BYTEA NOT NULL, PRIMARY KEY (person, device));
                """),
            // Pairing offers (Spec/sync.md 11.5): a sealed sync secret at a code's slot until taken.
            Migration(
                "sync pairings",
                """
                CREATE TABLE sync_pairings (person TEXT NOT NULL, slot BYTEA NOT NULL, sealed BYTEA NOT NULL,
                    expires BIGINT NOT NULL, PRIMARY KEY (person, slot));
                """),
            // The relay's numbering without a row every run waits for (issue 57): the receipt clock
            // is the greatest receipt time an item register holds (`relay_clock` keeps what older
            // versions gave, read and never locked); a write is answered once it committed, so no
            // number waits in `relay_batches` for a writer that may never come for it; a batch that
            // does not read moves to `relay_quarantine` with its reason; and each waiting change
            // says since when it waits, which health reads (PostgresRelaySequencer).
            Migration(
                "relay numbering",
                """
                ALTER TABLE relay_registers ADD COLUMN receipt BIGINT;
                CREATE INDEX relay_registers_receipt ON relay_registers (receipt) WHERE receipt IS NOT NULL;
                DROP TABLE relay_batches;
                ALTER TABLE relay_pending ADD COLUMN waiting_since TIMESTAMPTZ NOT NULL DEFAULT now();
                CREATE TABLE relay_quarantine (batch BIGINT NOT NULL, position INTEGER NOT NULL, key TEXT NOT NULL,
                    register BYTEA NOT NULL, ends INTEGER NOT NULL, received INTEGER NOT NULL, reason TEXT NOT NULL,
                    quarantined_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (batch, position));
                """),
        ])
}

/// Runs a ``DatabaseSchema``'s steps on a PostgreSQL database: the storage layer's migrator with
/// PostgreSQL's marks. `glow_database` says whose database it is (the schema's kind and
/// application id) and `glow_migrations` which steps ran, by position, as in a SQLite file. A
/// database of another kind, one that holds tables but no mark, or one whose steps are not a
/// prefix of these is refused before anything is written. Each step runs in one transaction under
/// an advisory lock, so processes starting together run each step once.
package enum PostgresMigrator {
    /// Brings the database on `connection` to `schema`'s last step.
    ///
    /// - Throws: ``StoreError`` `corrupt` (not this kind's database), `newer_schema`, or
    ///   `write_failed` when a statement failed.
    package static func migrate(_ schema: DatabaseSchema, on connection: PostgresConnection, name: String)
        throws(StoreError)
    {
        while true {
            let outcome: Result<Bool, StoreError>
            do {
                outcome = try connection.transaction { (connection) throws(PostgresError) -> Result<Bool, StoreError> in
                    try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(schema.applicationID)])
                    let done: Int
                    switch try steps(schema, connection, name: name) {
                    case .success(let count): done = count
                    case .failure(let refusal): return .failure(refusal)
                    }
                    guard done < schema.migrations.count else { return .success(true) }
                    try connection.executeScript(schema.migrations[done].sql)
                    try connection.execute(
                        "INSERT INTO glow_migrations (position, name) VALUES ($1, $2)",
                        [.int(Int64(done + 1)), .text(schema.migrations[done].name)])
                    return .success(false)
                }
            } catch {
                throw StoreError(.writeFailed, "a step of the \(schema.kind) failed: \(error.message)", path: name)
            }
            if try outcome.get() { return }
        }
    }

    /// The steps the database has run, marking a database with no tables as this kind's first.
    private static func steps(_ schema: DatabaseSchema, _ connection: PostgresConnection, name: String)
        throws(PostgresError) -> Result<Int, StoreError>
    {
        let marked = try connection.execute("SELECT to_regclass('glow_database') IS NOT NULL AS marked")
        if try marked.text(0, "marked") != "t" {
            let tables = try connection.execute(
                "SELECT count(*) AS tables FROM pg_tables WHERE schemaname = current_schema()")
            guard try tables.int(0, "tables") == 0 else {
                return .failure(
                    StoreError(
                        .corrupt, "the database holds tables but is not a Glow \(schema.kind): it is refused as it is",
                        path: name))
            }
            try connection.executeScript(
                """
                CREATE TABLE glow_database (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), kind TEXT NOT NULL,
                    application_id BIGINT NOT NULL);
                CREATE TABLE glow_migrations (position INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
                """)
            try connection.execute(
                "INSERT INTO glow_database (singleton, kind, application_id) VALUES (1, $1, $2)",
                [.text(schema.kind), .int(schema.applicationID)])
        }
        let mark = try connection.execute("SELECT kind, application_id FROM glow_database")
        guard mark.rows.count == 1, try mark.int(0, "application_id") == schema.applicationID else {
            return .failure(
                StoreError(.corrupt, "the database is not a Glow \(schema.kind): it is refused as it is", path: name))
        }
        let names = try connection.execute("SELECT name FROM glow_migrations ORDER BY position")
        var recorded: [String] = []
        for row in 0..<names.rows.count { recorded.append(try names.text(row, "name")) }
        return Result { () throws(StoreError) in try schema.stepsDone(recorded: recorded, path: name) }
    }
}
