import Foundation
import GlowBundle
import GlowCore
import GlowCrypto
import GlowFeed
import GlowModel
import GlowProtocol
import GlowSync
import GlowToolSupport

// glow-load --hostile's attacks of issue 59 (round 3), each from clients that stay within every
// per-client rate: many clients trickling headers, one client signing in with its own password
// as fast as it is answered, and one client pulling a sync log of its own tiny records.

/// The source address of client `index` of the spread slowloris: one of 40 addresses.
func spreadSource(_ index: Int) -> String { "127.5.0.\(index % 40 + 1)" }

/// An account of the attacker's own, signed up and confirmed through `folder`'s mail, from
/// `source`: its access token and id, or nil when the sign-up did not go through (counted).
private func attackerAccount(
    port: UInt16, source: String, password: String, mail folder: String, tally: AttackTally, as kind: String
) -> (token: String, account: String)? {
    let connection = LoopbackConnection(port: port, source: source)
    defer { connection.close() }
    // The kind names the address too, without its spaces, which no address holds.
    let address = "\(kind.filter { $0.isLetter })-\(UUID().uuidString.prefix(8).lowercased())@example.com"
    do {
        let signUp = ProtocolMessage("SignUpRequest").with("email", address).with("password", password)
        _ = try connection.post("/v1/sign-up", token: "", from: source, body: signUp.wireEncoded())
        let token = try ServerProcess.mailedToken(folder, to: address)
        let confirm = ProtocolMessage("ConfirmSignUpRequest").with("token", token).with("password", password)
            .with("device", "attacker")
        let (status, body) = try connection.post(
            "/v1/confirm-sign-up", token: "", from: source, body: confirm.wireEncoded())
        guard status == 200, let type = ProtocolSchema.type("SessionTokens") else {
            tally.count("\(kind): sign-up refused, HTTP \(status)")
            return nil
        }
        let tokens = try ProtocolMessage(type, wire: body)
        return (tokens.string("access_token"), tokens.string("account"))
    } catch {
        tally.count("\(kind): no account (\(error))")
        return nil
    }
}

/// Sign-ins with the attacker's own, right password, as fast as they are answered, on two
/// connections: each costs an Argon2id hash though none fails (issue 59 item 3).
func signInFlood(port: UInt16, mail folder: String, until deadline: Date, tally: AttackTally) -> [Thread] {
    let password = "the attacker's own, right"
    let address = "signins-\(UUID().uuidString.prefix(8).lowercased())@example.com"
    let source = "127.6.0.1"
    let setup = LoopbackConnection(port: port, source: source)
    defer { setup.close() }
    do {
        let signUp = ProtocolMessage("SignUpRequest").with("email", address).with("password", password)
        _ = try setup.post("/v1/sign-up", token: "", from: source, body: signUp.wireEncoded())
        let token = try ServerProcess.mailedToken(folder, to: address)
        let confirm = ProtocolMessage("ConfirmSignUpRequest").with("token", token).with("password", password)
        _ = try setup.post("/v1/confirm-sign-up", token: "", from: source, body: confirm.wireEncoded())
    } catch {
        tally.count("sign-in flood: no account (\(error))")
        return []
    }
    let body = ProtocolMessage("SignInRequest").with("email", address).with("password", password).wireEncoded()
    return (0..<2).map { _ in
        Thread {
            let connection = LoopbackConnection(port: port, source: source)
            while Date() < deadline {
                do {
                    let (status, _) = try connection.post("/v1/sign-in", token: "", from: source, body: body)
                    tally.count("sign-in flood: HTTP \(status)")
                } catch {
                    tally.count("sign-in flood: connection closed")
                    connection.close()
                    Thread.sleep(forTimeInterval: 0.001)
                }
            }
            connection.close()
        }
    }
}

/// One client's own sync log of `records` tiny records of one device, then that device pulling
/// it from the start, page after page, on two connections (issue 59 item 3): every page it is
/// answered holds none of its own records, so only a bound on the records a page goes past keeps
/// a pull from reading the whole log.
func ownLogPull(
    port: UInt16, records: Int, mail folder: String, until deadline: Date, tally: AttackTally
) -> [Thread] {
    let source = "127.7.0.1"
    guard
        let token = attackerAccount(
            port: port, source: source, password: "the attacker's own log", mail: folder, tally: tally,
            as: "own-log pull")?.token
    else { return [] }
    let keys = SyncKeys(secret: RecoveryKey.random())
    let device = DeviceID(UUID())
    let setup = LoopbackConnection(port: port, source: source)
    defer { setup.close() }
    var previous: [UInt8] = []
    var sequence: UInt64 = 0
    let started = Date()
    do {
        while sequence < UInt64(records) {
            var batch: [ProtocolValue] = []
            for _ in 0..<min(1_000, records - Int(sequence)) {
                sequence += 1
                let header = SyncHeader(
                    keyID: keys.keyID, device: device, sequence: sequence, previous: previous, seen: [],
                    kind: .changes, salt: Crypto.randomBytes(16))
                let record = try keys.seal([0], header: header, person: "attacker")
                previous = record.hash
                batch.append(.bytes(record.bytes))
            }
            let push = ProtocolMessage("SyncPushRequest").with("device", .bytes(device.bytes))
                .with("records", .list(batch))
            let (status, _) = try setup.post("/v1/sync-push", token: token, from: source, body: push.wireEncoded())
            guard status == 200 else {
                tally.count("own-log pull: a push of its log answered HTTP \(status)")
                return []
            }
        }
    } catch {
        tally.count("own-log pull: its log not written (\(error))")
        return []
    }
    tally.count(
        "own-log pull: \(records) records of its own written in \(String(format: "%.0f", Date().timeIntervalSince(started))) s"
    )
    return (0..<2).map { _ in
        Thread {
            let connection = LoopbackConnection(port: port, source: source)
            var cursor: UInt64 = 0
            while Date() < deadline {
                let pull = ProtocolMessage("SyncPullRequest").with("device", .bytes(device.bytes))
                    .with("cursor", .unsigned(cursor))
                do {
                    let (status, body) = try connection.post(
                        "/v1/sync-pull", token: token, from: source, body: pull.wireEncoded())
                    tally.count("own-log pull: HTTP \(status)")
                    guard status == 200, let type = ProtocolSchema.type("SyncPullResponse") else { continue }
                    let answer = try ProtocolMessage(type, wire: body)
                    // From the start again once at the end: the attacker wants the reading, not the records.
                    cursor = answer.bool("more") ? answer.unsigned("cursor") : 0
                } catch {
                    tally.count("own-log pull: connection closed")
                    connection.close()
                    Thread.sleep(forTimeInterval: 0.001)
                }
            }
            connection.close()
        }
    }
}

/// One account's public items near FEED-25's register bound (a 2,900-byte device id in each
/// stamp, a 200-byte title), 12 batches of 250, its goal made public again after each batch so
/// that its visibility changes last; then first syncs from the start by another account of the
/// attacker's, page after page, on two connections (issue 59 item 1). Before FEED-27 paged by
/// the registers' own numbers, every page of such a sync was past the bound and moved its
/// cursor by one.
func pageBlowUp(port: UInt16, mail folder: String, until deadline: Date, tally: AttackTally) -> [Thread] {
    let source = "127.8.0.1"
    guard
        let (poster, person) = attackerAccount(
            port: port, source: source, password: "the attacker's own pages", mail: folder, tally: tally,
            as: "page blow-up poster"),
        let (reader, _) = attackerAccount(
            port: port, source: source, password: "the attacker's own reader", mail: folder, tally: tally,
            as: "page blow-up reader")
    else { return [] }
    let setup = LoopbackConnection(port: port, source: source)
    defer { setup.close() }
    let device = String(repeating: "m", count: 2_900)
    var counter: Int64 = 0
    do {
        for batch in 0..<12 {
            var delta = FeedReplica()
            let wall = Int64(Date().timeIntervalSince1970 * 1_000)
            for index in 0..<250 {
                counter += 1
                let day = try Day(daysSince1970: 20_000 + batch * 250 + index)
                let item = try FeedItem(
                    owner: person, kind: .checkIn, goal: "g", time: Int64(day.daysSince1970) * 86_400_000,
                    title: String(repeating: "t", count: 200), emoji: "🔥", goalKind: "single", day: day, streak: 1)
                delta.writeItem(item, id: item.key, at: try Stamp(wall: wall, counter: counter, device: device))
            }
            counter += 1
            delta.writeVisibility(
                .public, owner: person, goal: "g", at: try Stamp(wall: wall, counter: counter, device: "p"))
            let (status, body) = try setup.post(
                "/v1/relay", token: poster, from: source, body: RelayRequest.submit(delta).wireEncoded())
            guard status == 200, case .submitted = try RelayResponse(wire: body) else {
                tally.count("page blow-up: a batch answered HTTP \(status)")
                return []
            }
        }
    } catch {
        tally.count("page blow-up: its items not written (\(error))")
        return []
    }
    tally.count("page blow-up: 3,000 public items of about 3.4 KB written")
    return (0..<2).map { _ in
        Thread {
            let connection = LoopbackConnection(port: port, source: source)
            while Date() < deadline {
                // One first sync, page after page, and what it took.
                var request = RelayRequest.changes(since: 0)
                var (pages, largest) = (0, 0)
                let began = Date()
                do {
                    while Date() < deadline {
                        let (status, body) = try connection.post(
                            "/v1/relay", token: reader, from: source, body: request.wireEncoded())
                        guard status == 200, case .changes(_, _, let next) = try RelayResponse(wire: body) else {
                            tally.count("page blow-up: a page answered HTTP \(status)")
                            break
                        }
                        (pages, largest) = (pages + 1, max(largest, body.count))
                        guard let next else {
                            tally.count(
                                "page blow-up: a first sync of \(pages) pages, the largest \(largest / 1_024) KiB, in \(Int(Date().timeIntervalSince(began))) s"
                            )
                            break
                        }
                        request = .page(next)
                    }
                } catch {
                    tally.count("page blow-up: connection closed")
                    connection.close()
                    Thread.sleep(forTimeInterval: 0.001)
                }
            }
            connection.close()
        }
    }
}
