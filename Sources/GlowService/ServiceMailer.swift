import Dispatch
import Foundation
import GlowAuth
import GlowCore
import GlowServerStores
import GlowStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Delivers the account service's mail (SERVER-8) away from the request that asked for it, so a
/// request takes as long whether or not it sends a mail (AUTH-39): each mail is an RFC 5322
/// message handed to a command's standard input (`sendmail -t`), written as a file into a folder
/// (for development and for conformance runs), or printed to standard error.
///
/// With an outbox, each mail is first kept in the database's outbox, then delivered and taken
/// out; a mail whose delivery failed stays and is tried again every `retry` seconds, and the
/// mail a stopped process left is delivered by the next one.
public final class ServiceMailer: AuthMailer {
    /// Where mail goes.
    public enum Destination: Sendable, Hashable {
        /// `/bin/sh -c COMMAND`, the message on its standard input.
        case command(String)
        /// One file per message, put in place whole.
        case directory(String)
        /// Standard error, for development.
        case standardError
    }

    private let destination: Destination
    private let sender: String
    private let linkBase: String
    private let queue = DispatchQueue(label: "glow-server.mail")
    private let report: @Sendable (String) -> Void
    private let outbox: (any MailOutbox)?
    private let retry: Double
    private let started = Locked(false)
    /// Seconds a mail is held by this mailer once claimed: the time before another try.
    private let hold: Int

    /// A mailer to `destination`, from `sender`, whose links start with `linkBase` (the app's
    /// URL scheme or a web page that opens it); `report` hears of each mail that could not be
    /// handed over.
    public init(
        destination: Destination, sender: String = "Glow Ritual <no-reply@localhost>",
        linkBase: String = "glowritual://", outbox: (any MailOutbox)? = nil, retry: Double = 30,
        report: @escaping @Sendable (String) -> Void
    ) {
        self.destination = destination
        self.sender = sender
        self.linkBase = linkBase
        self.report = report
        self.outbox = outbox
        self.retry = min(max(retry, 0.01), 86_400)
        hold = max(1, Int(self.retry.rounded(.up)))
        // A mail command that exits without reading its input must fail the delivery, not end
        // the server: a write to its closed pipe is an error, not SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Queues `mail`; it is kept in the outbox and delivered after the call returns.
    public func send(_ mail: AuthMail) {
        let text = message(mail, date: Date(), id: UUID().uuidString.lowercased())
        queue.async { [self] in
            guard let outbox else {
                if let problem = Self.deliver(text, to: destination) {
                    report("mail \(mail) not delivered: \(problem)")
                }
                return
            }
            do {
                try outbox.add(recipient: mail.recipient, kind: mail.kind, message: text)
            } catch {
                // The outbox is the database: a mail it cannot keep is delivered at once, or lost
                // and said so.
                report("mail \(mail) could not be kept in the outbox: \(error)")
                if let problem = Self.deliver(text, to: destination) {
                    report("mail \(mail) not delivered: \(problem)")
                }
                return
            }
            drain()
        }
    }

    /// Starts delivering what the outbox holds, now and every `retry` seconds.
    public func start() {
        guard outbox != nil,
            started.withLock({ started in
                defer { started = true }
                return !started
            })
        else { return }
        queue.async { [weak self] in self?.tick() }
    }

    /// Drains, then comes back after `retry` seconds for as long as the mailer is there.
    private func tick() {
        drain()
        queue.asyncAfter(deadline: .now() + retry) { [weak self] in self?.tick() }
    }

    /// Delivers every mail of the outbox no one else holds; one that fails stays, held until its
    /// claim ends, for a later try, and the others go out now: one address that refuses its mail
    /// never holds up anybody else's.
    private func drain() {
        guard let outbox else { return }
        // SERVER-8: a mail that waited an hour is given up, its token with it.
        do {
            for mail in try outbox.removeOlder(than: Self.giveUpAge) {
                report("mail \(mail.kind) to \(mail.recipient) given up after waiting \(Int(mail.age)) s")
            }
        } catch {
            report("the outbox's old mails cannot be taken out: \(error)")
        }
        while true {
            let claimed: [OutboxMail]
            do {
                claimed = try outbox.claim(limit: 20, for: hold)
            } catch {
                report("the outbox cannot be read: \(error)")
                return
            }
            if claimed.isEmpty { return }
            for mail in claimed {
                if let problem = Self.deliver(mail.message, to: destination) {
                    let wait = Self.backoff(age: mail.age, retry: retry)
                    report(
                        "mail \(mail.kind) to \(mail.recipient) not delivered, kept to try again in \(wait) s: \(problem)"
                    )
                    do {
                        try outbox.postpone(mail.id, for: wait)
                    } catch {
                        report("mail \(mail.id) could not be postponed, and is tried when its claim ends: \(error)")
                    }
                    continue
                }
                do {
                    try outbox.remove(mail.id)
                } catch {
                    report("mail \(mail.id) was delivered but stays in the outbox: \(error)")
                    return
                }
            }
        }
    }

    /// How long a mail waits in the outbox before it is given up, in seconds: an hour, the
    /// shortest life of a mailed token (AUTH-40's reset), so the outbox keeps no token longer
    /// than it works (SERVER-8).
    static let giveUpAge = 3_600

    /// The wait before a mail whose delivery failed is tried again, in whole seconds: half its age,
    /// at least the mailer's `retry` and at most 15 minutes, so a mail service that refuses for a
    /// while is asked less and less often (SERVER-8).
    static func backoff(age: Double, retry: Double) -> Int {
        let seconds = min(max(retry, age.isFinite ? age / 2 : 900), 900)
        return max(1, Int(seconds.rounded(.up)))
    }

    /// Waits until every mail queued so far was handed over, or kept for a later try.
    public func flush() {
        queue.sync {}
    }

    /// The RFC 5322 text of `mail` (SERVER-8).
    func message(_ mail: AuthMail, date: Date, id: String) -> String {
        let (subject, body) = Self.content(mail, link: { linkBase + $0 })
        var headers = [
            "From: \(Self.clean(sender))", "To: \(Self.clean(mail.recipient))", "Subject: \(subject)",
            "Date: \(Self.rfc5322(date))", "Message-ID: <\(id)@glow-server>", "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit", "X-Glow-Mail: \(mail.kind)",
        ]
        if let token = mail.token { headers.append("X-Glow-Token: \(Self.clean(token.reveal()))") }
        return headers.joined(separator: "\r\n") + "\r\n\r\n" + body.replacingOccurrences(of: "\n", with: "\r\n")
    }

    static func content(_ mail: AuthMail, link: (String) -> String) -> (subject: String, body: String) {
        func url(_ action: String, _ token: SecretToken) -> String { link("\(action)?token=\(token.reveal())") }
        switch mail {
        case .confirmSignUp(_, let token):
            return (
                "Confirm your address",
                "Welcome to Glow Ritual. To finish signing up, open this link in the app:\n\n"
                    + url("confirm-sign-up", token) + "\n\nIf you did not sign up, ignore this mail.\n"
            )
        case .alreadyRegistered:
            return (
                "Someone tried to sign up with your address",
                "Your address already has a Glow Ritual account. If that was you, sign in, or reset your "
                    + "password from the sign-in screen. If not, ignore this mail: nothing changed.\n"
            )
        case .passwordReset(_, let token):
            return (
                "Reset your password",
                "To choose a new password, open this link in the app:\n\n" + url("reset-password", token)
                    + "\n\nIf you did not ask, ignore this mail: your password stays as it is.\n"
            )
        case .passwordChanged:
            return (
                "Your password was changed",
                "The password of your Glow Ritual account was changed. If that was not you, reset it now.\n"
            )
        case .accountDeleted:
            return ("Your account was deleted", "Your Glow Ritual account and its data were deleted.\n")
        case .confirmEmailChange(_, let token):
            return (
                "Confirm your new address",
                "To move your Glow Ritual account to this address, open this link in the app:\n\n"
                    + url("confirm-email-change", token) + "\n"
            )
        case .emailChanged(_, let token):
            return (
                "Your account moved to another address",
                "Your Glow Ritual account now signs in with another address. If that was not you, undo it:\n\n"
                    + url("undo-email-change", token) + "\n"
            )
        }
    }

    /// `text` with its token withheld wherever it shows (the `X-Glow-Token` header and the link):
    /// what a mail may print where anyone who reads the server's output would see it, since the
    /// token is the address's proof (SERVER-8).
    static func withholdingToken(_ text: String) -> String {
        let prefix = "X-Glow-Token: "
        guard let line = text.split(separator: "\r\n").first(where: { $0.hasPrefix(prefix) }) else { return text }
        let token = String(line.dropFirst(prefix.count))
        guard !token.isEmpty else { return text }
        return text.replacingOccurrences(
            of: token, with: "[withheld: deliver mail with --mail-dir or --mail-command to read it]")
    }

    /// A header value without line breaks, so no text can add a header.
    static func clean(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }.map(Character.init))
    }

    static func rfc5322(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }

    /// Hands `text` over; what went wrong, or nil.
    static func deliver(_ text: String, to destination: Destination) -> String? {
        switch destination {
        case .standardError:
            FileHandle.standardError.write(Data(("---- mail\n" + withholdingToken(text) + "\n----\n").utf8))
            return nil
        case .directory(let folder):
            let name = "\(Int64(Date().timeIntervalSince1970 * 1_000))-\(UUID().uuidString.lowercased())"
            let temporary = folder + "/." + name + ".tmp"
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            } catch {
                return "cannot write into \(folder): \(error.localizedDescription)"
            }
            guard rename(temporary, folder + "/" + name + ".eml") == 0 else {
                let reason = String(cString: strerror(errno))
                _ = unlink(temporary)
                return "cannot put the mail in place in \(folder): \(reason)"
            }
            return nil
        case .command(let command):
            return run(command, input: Array(text.utf8), what: "mail")
        }
    }

    /// Runs `/bin/sh -c command` with `input` on its standard input; what went wrong, or nil.
    /// `what` names what the command takes (`mail`, `push`) in the answer.
    static func run(_ command: String, input: [UInt8], what: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardInput = pipe
        do {
            try process.run()
        } catch {
            return "the \(what) command cannot start: \(error.localizedDescription)"
        }
        // A command may exit before it read everything: its status then says more than the
        // closed pipe, so it is waited for before the write's failure is reported.
        var writeProblem: String?
        do {
            try pipe.fileHandleForWriting.write(contentsOf: input)
        } catch {
            writeProblem = error.localizedDescription
        }
        do {
            try pipe.fileHandleForWriting.close()
        } catch {
            writeProblem = writeProblem ?? error.localizedDescription
        }
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            return "the \(what) command failed with status \(process.terminationStatus)"
        }
        if let writeProblem { return "the \(what) command did not take all its input: \(writeProblem)" }
        return nil
    }
}
