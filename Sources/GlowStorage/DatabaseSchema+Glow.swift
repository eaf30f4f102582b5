/// Every kind of Glow database, in one place: its name, its `application_id` (four letters, so a
/// file says whose it is) and its steps. A step, once shipped, never changes; a new one is added
/// at the end.
extension DatabaseSchema {
    /// A person's data on a device ("GLWR"): ``RitualDatabase`` of GlowRitual.
    package static let person = DatabaseSchema(
        kind: "database", applicationID: 0x474C_5752,
        migrations: [
            Migration(
                "records",
                """
                CREATE TABLE profile (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), user_id BLOB NOT NULL,
                    record BLOB NOT NULL);
                CREATE TABLE goals (id BLOB PRIMARY KEY, deleted INTEGER NOT NULL, modified_at INTEGER NOT NULL,
                    record BLOB NOT NULL) WITHOUT ROWID;
                CREATE TABLE check_ins (goal_id BLOB PRIMARY KEY, count INTEGER NOT NULL, record BLOB NOT NULL)
                    WITHOUT ROWID;
                CREATE TABLE other_records (record BLOB PRIMARY KEY) WITHOUT ROWID;
                """),
            Migration(
                "device state and feed log",
                """
                CREATE TABLE device_state (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
                CREATE TABLE feed_log (sequence INTEGER PRIMARY KEY AUTOINCREMENT, delta BLOB NOT NULL);
                """),
            // The person's own data between their devices (Spec/sync.md): the secret and the
            // device's place in its chain and in the log, the other devices' heads, and the
            // records written and not yet acknowledged.
            Migration(
                "sync",
                """
                CREATE TABLE sync_state (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), secret BLOB NOT NULL,
                    person TEXT NOT NULL, device BLOB NOT NULL, sequence INTEGER NOT NULL, last_hash BLOB NOT NULL,
                    acknowledged INTEGER NOT NULL, cursor INTEGER NOT NULL, snapshot_at INTEGER NOT NULL);
                CREATE TABLE sync_heads (device BLOB PRIMARY KEY, sequence INTEGER NOT NULL, hash BLOB NOT NULL)
                    WITHOUT ROWID;
                CREATE TABLE sync_pending (sequence INTEGER PRIMARY KEY, record BLOB NOT NULL);
                CREATE TABLE sync_promised (device BLOB PRIMARY KEY, sequence INTEGER NOT NULL) WITHOUT ROWID;
                """),
            // The sync secret leaves the file for the device's secret store (issue 58): the state
            // keeps everything but the secret, which waits in a table of its own (its first copy
            // overwritten with zeros before its table is dropped) until the database, once it has
            // kept the secret in the store, erases it there.
            Migration(
                "sync secret in the secret store",
                """
                CREATE TABLE sync_secret_leaving (singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                    secret BLOB NOT NULL);
                INSERT INTO sync_secret_leaving (singleton, secret) SELECT 1, secret FROM sync_state;
                UPDATE sync_state SET secret = zeroblob(length(secret));
                CREATE TABLE sync_state_kept (singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                    person TEXT NOT NULL, device BLOB NOT NULL, sequence INTEGER NOT NULL, last_hash BLOB NOT NULL,
                    acknowledged INTEGER NOT NULL, cursor INTEGER NOT NULL, snapshot_at INTEGER NOT NULL);
                INSERT INTO sync_state_kept SELECT singleton, person, device, sequence, last_hash, acknowledged,
                    cursor, snapshot_at FROM sync_state;
                DROP TABLE sync_state;
                ALTER TABLE sync_state_kept RENAME TO sync_state;
                """),
        ])

    /// The relay's push outbox (REMIND-14 ... REMIND-17): a step of the relay database and of the
    /// server database, each at its end.
    private static let pushOutbox = Migration(
        "push outbox",
        """
        CREATE TABLE relay_pushes (kind TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
            PRIMARY KEY (kind, key)) WITHOUT ROWID;
        """)

    /// The stores' clocks: a row per store of a server's file, moved on by each commit that
    /// changed the store, so a commit to the file by another store did not make a store read its
    /// whole state again. A step of every server-side database; ``noStoreClocks`` takes it away.
    private static let storeClocks = Migration(
        "store clocks", "CREATE TABLE glow_clock (name TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID;")

    /// The stores' clocks gone with the whole-state stores they kept in step (issue 43): every
    /// call reads its rows afresh. The last step of every server-side database.
    private static let noStoreClocks = Migration("no store clocks", "DROP TABLE glow_clock;")

    /// The account records' index columns: the account a record belongs to and the time from
    /// which a purge may forget it (in whole milliseconds, rounded down), both indexed, and a
    /// version each write draws anew. Records already there get theirs from their JSON, as the
    /// account service's maps index them. A step of the account database and of the server
    /// database, each at its end.
    private static let accountIndexes = Migration(
        "account record indexes",
        """
        ALTER TABLE account_records ADD COLUMN owner TEXT;
        ALTER TABLE account_records ADD COLUMN expiry INTEGER;
        ALTER TABLE account_records ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
        UPDATE account_records SET owner = json_extract(CAST(value AS TEXT), '$.account.rawValue')
            WHERE map IN ('identities', 'sessions', 'resets', 'emailChanges');
        UPDATE account_records SET expiry = CAST(1000 * (CASE map
                WHEN 'sessions' THEN coalesce(json_extract(CAST(value AS TEXT), '$.lastUsedAt'),
                    json_extract(CAST(value AS TEXT), '$.authenticatedAt'))
                WHEN 'throttles' THEN json_extract(CAST(value AS TEXT), '$.lastFailure')
                WHEN 'requestWindows' THEN json_extract(CAST(value AS TEXT), '$.start')
                WHEN 'revocations' THEN json_extract(CAST(value AS TEXT), '$.nextAttempt')
                ELSE json_extract(CAST(value AS TEXT), '$.expiresAt') END) AS INTEGER)
            WHERE map IN ('sessions', 'resets', 'pendingSignUps', 'throttles', 'requestWindows', 'nonces',
                'emailChanges', 'revocations');
        CREATE INDEX account_records_owner ON account_records (map, owner) WHERE owner IS NOT NULL;
        CREATE INDEX account_records_expiry ON account_records (map, expiry) WHERE expiry IS NOT NULL;
        """)

    /// Each visibility register's ends (FEED-25): the sequence numbers at which it last stopped
    /// being public and last stopped being shared, 0 for every register already there. A step of
    /// the relay database and of the server database, each at its end.
    private static let visibilityEnds = Migration(
        "visibility ends",
        """
        ALTER TABLE relay_registers ADD COLUMN public_until INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE relay_registers ADD COLUMN shared_until INTEGER NOT NULL DEFAULT 0;
        """)

    /// The relay's index columns (issue 43): each register's kind, parties and item
    /// (`RelayKey.indexColumns`) and whether it is a public goal's visibility; each push row's
    /// person, token and time. A request reads the rows it concerns through them, and the sequence
    /// index makes the table the relay's log. Rows already there get theirs from the relay store
    /// when it opens the file (they are read from the registers' bytes, which SQL cannot). A step
    /// of the relay database and of the server database, each at its end.
    private static let relayIndexes = Migration(
        "relay indexes",
        """
        ALTER TABLE relay_registers ADD COLUMN kind TEXT;
        ALTER TABLE relay_registers ADD COLUMN party TEXT;
        ALTER TABLE relay_registers ADD COLUMN other TEXT;
        ALTER TABLE relay_registers ADD COLUMN item TEXT;
        ALTER TABLE relay_registers ADD COLUMN is_public INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX relay_registers_sequence ON relay_registers (sequence);
        CREATE INDEX relay_registers_party ON relay_registers (kind, party, other);
        CREATE INDEX relay_registers_other ON relay_registers (kind, other, party);
        CREATE INDEX relay_registers_item ON relay_registers (item) WHERE item IS NOT NULL;
        CREATE INDEX relay_registers_public ON relay_registers (kind) WHERE is_public = 1;
        CREATE INDEX relay_registers_unindexed ON relay_registers (key) WHERE kind IS NULL;
        ALTER TABLE relay_pushes ADD COLUMN person TEXT;
        ALTER TABLE relay_pushes ADD COLUMN token TEXT;
        ALTER TABLE relay_pushes ADD COLUMN at INTEGER;
        CREATE INDEX relay_pushes_person ON relay_pushes (person) WHERE person IS NOT NULL;
        CREATE INDEX relay_pushes_token ON relay_pushes (token) WHERE token IS NOT NULL;
        CREATE INDEX relay_pushes_at ON relay_pushes (kind, at) WHERE at IS NOT NULL;
        CREATE INDEX relay_pushes_unindexed ON relay_pushes (kind) WHERE person IS NULL AND token IS NULL;
        """)

    /// People's sync logs (Spec/sync.md 11.4): each record sealed by its device, by person and
    /// position, found by device and sequence; each device's head; each log's key id, next position
    /// and bytes kept.
    private static let syncLog = Migration(
        "sync log",
        """
        CREATE TABLE sync_logs (person TEXT PRIMARY KEY, key_id BLOB NOT NULL, next_position INTEGER NOT NULL,
            bytes INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE sync_records (person TEXT NOT NULL, position INTEGER NOT NULL, device BLOB NOT NULL,
            sequence INTEGER NOT NULL, record BLOB NOT NULL, PRIMARY KEY (person, position)) WITHOUT ROWID;
        CREATE UNIQUE INDEX sync_records_device ON sync_records (person, device, sequence);
        CREATE TABLE sync_heads (person TEXT NOT NULL, device BLOB NOT NULL, sequence INTEGER NOT NULL,
            hash BLOB NOT NULL, PRIMARY KEY (person, device)) WITHOUT ROWID;
        """)

    /// Pairing offers (Spec/sync.md 11.5): a sync secret sealed under a pairing code's key, at
    /// the code's slot, until it is taken or expires.
    private static let syncPairings = Migration(
        "sync pairings",
        """
        CREATE TABLE sync_pairings (person TEXT NOT NULL, slot BLOB NOT NULL, sealed BLOB NOT NULL,
            expires INTEGER NOT NULL, PRIMARY KEY (person, slot)) WITHOUT ROWID;
        """)

    /// A relay's state on a server ("GLRL"): `SQLiteFeedRelayStore` of GlowServerStores.
    package static let relay = DatabaseSchema(
        kind: "relay database", applicationID: 0x474C_524C,
        migrations: [
            Migration(
                "relay registers",
                """
                CREATE TABLE relay_registers (key TEXT PRIMARY KEY, sequence INTEGER NOT NULL, register BLOB NOT NULL)
                    WITHOUT ROWID;
                CREATE TABLE relay_clock (singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                    last_receipt INTEGER NOT NULL);
                """),
            pushOutbox, storeClocks, visibilityEnds, relayIndexes, noStoreClocks,
        ])

    /// The account service's records on a server ("GLAC"): `SQLiteAccountStore` of
    /// GlowServerStores.
    package static let accounts = DatabaseSchema(
        kind: "account database", applicationID: 0x474C_4143,
        migrations: [
            Migration(
                "account records",
                "CREATE TABLE account_records (map TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, "
                    + "PRIMARY KEY (map, key)) WITHOUT ROWID;"),
            storeClocks, accountIndexes, noStoreClocks,
        ])

    /// A server's accounts, relay and mail outbox in one file ("GLSV"): glow-server's embedded
    /// default, whose stores share the file and see each other's commits. Its first steps are the
    /// account database's and the relay database's first; the push outbox came after the mail
    /// outbox.
    package static let server = DatabaseSchema(
        kind: "server database", applicationID: 0x474C_5356,
        migrations: accounts.migrations.prefix(1) + relay.migrations.prefix(1) + [
            Migration(
                "mail outbox",
                """
                CREATE TABLE mail_outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, recipient TEXT NOT NULL,
                    kind TEXT NOT NULL, message TEXT NOT NULL, created_at INTEGER NOT NULL,
                    claimed_until INTEGER NOT NULL DEFAULT 0);
                """),
            pushOutbox, storeClocks, accountIndexes, visibilityEnds, relayIndexes, noStoreClocks, syncLog,
            syncPairings,
        ])

    /// Every kind, for checks that span them (no two share an `application_id`).
    package static let all = [person, relay, accounts, server]
}
