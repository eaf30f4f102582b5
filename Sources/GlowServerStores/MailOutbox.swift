import GlowStorage

/// A mail waiting in the outbox: its id, recipient, kind and RFC 5322 text (SERVER-8).
public struct OutboxMail: Sendable, Hashable {
    /// The outbox's id of it.
    public let id: Int64
    /// The address it goes to.
    public let recipient: String
    /// `confirmSignUp`, `passwordReset`, ...
    public let kind: String
    /// The message.
    public let message: String
    /// How long it has waited in the outbox, in seconds, when it was read.
    public let age: Double

    /// A mail of the outbox.
    public init(id: Int64, recipient: String, kind: String, message: String, age: Double = 0) {
        self.id = id
        self.recipient = recipient
        self.kind = kind
        self.message = message
        self.age = age
    }
}

/// Where a server keeps the mail it has to send until a delivery takes it (glow-server's mailer): a table of its
/// database, so a mail the service sent survives the process that was to deliver it. Several
/// processes may deliver from one outbox: a claim holds a mail for a minute, so each goes out once
/// unless its deliverer dies first (then it goes out again: at least once, never lost).
public protocol MailOutbox: Sendable {
    /// Keeps a mail to send.
    func add(recipient: String, kind: String, message: String) throws(StoreError)
    /// Up to `limit` mails no other deliverer holds, held for `seconds` by this one.
    func claim(limit: Int, for seconds: Int) throws(StoreError) -> [OutboxMail]
    /// Takes a delivered mail out.
    func remove(_ id: Int64) throws(StoreError)
    /// Holds a mail whose delivery failed for `seconds` from now, before another try.
    func postpone(_ id: Int64, for seconds: Int) throws(StoreError)
    /// Takes out the mails that have waited `seconds` or longer, and returns them.
    func removeOlder(than seconds: Int) throws(StoreError) -> [OutboxMail]
    /// Every mail waiting, oldest first (for inspection and tests).
    func waiting() throws(StoreError) -> [OutboxMail]
}
