import Foundation
import GlowCore
import GlowProtocol
import GlowToolSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// glow-load --hostile (issue 44): the neighbour from hell. One address runs every attack that
// used to stop the server or fill it, all at once, while the devices (each on an address of its
// own) and a health probe measure what ordinary clients get.

/// The attacker's address: one client to the server (SERVER-11).
let attackerAddress = "127.2.0.1"
/// The health probe's address.
let probeAddress = "127.3.0.1"

/// Device `index`'s loopback address in a hostile run: one of its own.
func deviceSource(_ index: Int) -> String { "127.1.\(index / 250).\(index % 250 + 1)" }

/// What the attacks did, by kind of answer.
final class AttackTally: Sendable {
    private let counts = Locked<[String: Int]>([:])

    func count(_ what: String) { counts.withLock { $0[what, default: 0] += 1 } }

    /// "slowloris: 1,210 connections opened, 1,178 closed by the server; ..." in a stable order.
    var summary: [(String, Int)] { counts.withLock { $0.sorted { $0.key < $1.key } } }
}

/// The attacks of issue 44, from one address against `ports`, until `deadline`:
/// - a slowloris: up to 1,000 connections that send a header a line every few seconds, opened
///   again as the server closes them, at most 100 a second;
/// - an Argon2id flood: sign-ins with a wrong password for a made-up address, and confirmations
///   of the attacker's own sign-up with a wrong password, as fast as they are answered, on two
///   connections;
/// - oversized keys: sign-ins whose address is 900 KB of text, on one connection;
/// and those of issue 59 (HostileRound3.swift), each within every per-client rate:
/// - spread: the slowloris from 40 addresses, 30 connections each;
/// - signins: one client signing in with its own right password as fast as it is answered;
/// - ownlog: one client pulling a sync log of tiny records of its own device (20,000 unless
///   `--own-log` says), from the start again and again;
/// - pages: one account's 3,000 public items near the register bound, its goal made public again
///   after each batch, and first syncs from the start by an account of its own, page by page.
/// The attacks `--hostile` runs, by name.
enum Attack: String, CaseIterable, Comparable {
    case slowloris, flood, keys, spread, signins, ownlog, pages

    static func < (a: Attack, b: Attack) -> Bool {
        allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
    }
}

func attack(
    _ attacks: Set<Attack>, ports: [UInt16], mail folder: String, ownLog: Int = 20_000, until deadline: Date,
    tally: AttackTally
) -> [Thread] {
    var threads: [Thread] = []
    if attacks.contains(.slowloris) {
        threads.append(
            Thread {
                yieldToTheServer()
                slowloris(
                    ports: ports, sources: [attackerAddress], perSource: 1_000, until: deadline, tally: tally,
                    as: "slowloris")
            })
    }
    if attacks.contains(.spread) {
        threads.append(
            Thread {
                yieldToTheServer()
                slowloris(
                    ports: ports, sources: (0..<40).map(spreadSource), perSource: 30, until: deadline, tally: tally,
                    as: "spread slowloris")
            })
    }
    // Each sets up its account (and its log) on its own thread, then attacks from two more.
    if attacks.contains(.signins) {
        threads.append(
            Thread {
                waitFor(startAll(signInFlood(port: ports[0], mail: folder, until: deadline, tally: tally)))
            })
    }
    if attacks.contains(.ownlog) {
        threads.append(
            Thread {
                waitFor(
                    startAll(ownLogPull(port: ports[0], records: ownLog, mail: folder, until: deadline, tally: tally)))
            })
    }
    if attacks.contains(.pages) {
        threads.append(
            Thread { waitFor(startAll(pageBlowUp(port: ports[0], mail: folder, until: deadline, tally: tally))) })
    }
    for lane in 0..<2 where attacks.contains(.flood) {
        threads.append(
            Thread {
                yieldToTheServer()
                hashFlood(port: ports[lane % ports.count], lane: lane, mail: folder, until: deadline, tally: tally)
            })
    }
    if attacks.contains(.keys) {
        threads.append(
            Thread {
                yieldToTheServer()
                let connection = LoopbackConnection(port: ports[0], source: attackerAddress)
                let email = String(repeating: "x", count: 900_000) + "@example.com"
                let body = ProtocolMessage("SignInRequest").with("email", email).with("password", "not it at all")
                    .wireEncoded()
                while Date() < deadline {
                    call(connection, "sign-in", body, tally: tally, as: "oversized key")
                }
                connection.close()
            })
    }
    return startAll(threads)
}

/// Starts every thread of `threads`, each with a stack of 1 MiB, and returns them.
func startAll(_ threads: [Thread]) -> [Thread] {
    for thread in threads {
        thread.stackSize = 1 << 20
        thread.start()
    }
    return threads
}

/// Runs the calling thread at the lowest priority: on a machine shared with the server, the
/// attacker's own work (tens of thousands of connections a second) would otherwise take the
/// server's and the database's CPU, which an attacker on another machine does not.
private func yieldToTheServer() {
    #if canImport(Glibc)
        // On Linux a priority set for "this process" (0) is the calling thread's alone.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
    #endif
}

/// One attack call, its answer counted by status; a failed connection is counted and reopened.
private func call(
    _ connection: LoopbackConnection, _ name: String, _ body: [UInt8], tally: AttackTally, as kind: String
) {
    do {
        let (status, _) = try connection.post("/v1/" + name, token: "", from: attackerAddress, body: body)
        tally.count("\(kind): HTTP \(status)")
    } catch {
        // A server that refuses before the body closes the connection after its answer, and one
        // over its share of connections closes it at once: the attacker opens another after a
        // millisecond, at most a thousand a second on each of its connections. (Faster, on this
        // one machine, the attacker's own kernel work for the handshakes takes the CPU the server
        // and its database would have, which an attacker elsewhere does not.)
        tally.count("\(kind): connection closed")
        connection.close()
        Thread.sleep(forTimeInterval: 0.001)
    }
}

private func hashFlood(port: UInt16, lane: Int, mail folder: String, until deadline: Date, tally: AttackTally) {
    let connection = LoopbackConnection(port: port, source: attackerAddress)
    let signIn = ProtocolMessage("SignInRequest").with("email", "nobody-\(lane)@example.com")
        .with("password", "a wrong guess, again").wireEncoded()
    // The attacker's own sign-up, whose confirmation it then tries with wrong passwords (AUTH-36).
    let address = "attacker-\(UUID().uuidString.prefix(8).lowercased())@example.com"
    var confirm: [UInt8]?
    let signUp = ProtocolMessage("SignUpRequest").with("email", address).with("password", "the real one, kept")
        .wireEncoded()
    call(connection, "sign-up", signUp, tally: tally, as: "flood sign-up")
    do {
        let token = try ServerProcess.mailedToken(folder, to: address)
        confirm = ProtocolMessage("ConfirmSignUpRequest").with("token", token).with("password", "wrong")
            .with("device", "d").wireEncoded()
    } catch {
        tally.count("flood: no sign-up mail, so sign-ins only (\(error))")
    }
    var turn = 0
    while Date() < deadline {
        turn += 1
        if let confirm, turn % 2 == 0 {
            call(connection, "confirm-sign-up", confirm, tally: tally, as: "flood confirm-sign-up")
        } else {
            call(connection, "sign-in", signIn, tally: tally, as: "flood sign-in")
        }
    }
    connection.close()
}

/// Connections from each of `sources`, at most `perSource` open from each, that send a header a
/// line every few seconds, opened again as the server closes them.
private func slowloris(
    ports: [UInt16], sources: [String], perSource: Int, until deadline: Date, tally: AttackTally, as kind: String
) {
    var open: [(descriptor: Int32, source: Int, next: Date)] = []
    var opened = 0
    var held = [Int](repeating: 0, count: sources.count)
    while Date() < deadline {
        let now = Date()
        // Up to 20 new connections every 0.2 s from each source below its share.
        for (source, address) in sources.enumerated() {
            for _ in 0..<20 where held[source] < perSource {
                let descriptor: Int32
                do {
                    descriptor = try LoopbackConnection.socket(to: ports[opened % ports.count], from: address)
                } catch {
                    tally.count("\(kind): connect failed")
                    break
                }
                opened += 1
                tally.count("\(kind): connections opened")
                if sendAll(descriptor, "POST /v1/sign-in HTTP/1.1\r\nHost: glow\r\n") {
                    open.append((descriptor, source, now.addingTimeInterval(Double.random(in: 1...3))))
                    held[source] += 1
                } else {
                    tally.count("\(kind): closed by the server")
                    _ = close(descriptor)
                }
            }
        }
        // A header line every 3 seconds on each: the bytes of a slow client, never a whole header.
        open = open.filter { connection in
            var byte: UInt8 = 0
            let peeked = recv(connection.descriptor, &byte, 1, Int32(MSG_DONTWAIT) | Int32(MSG_PEEK))
            let closed = peeked == 0 || (peeked < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            if !closed, connection.next > now { return true }
            if !closed, sendAll(connection.descriptor, "X-Slow: \(Int.random(in: 0...9))\r\n") { return true }
            tally.count("\(kind): closed by the server")
            _ = close(connection.descriptor)
            held[connection.source] -= 1
            return false
        }.map { connection in
            connection.next > now ? connection : (connection.descriptor, connection.source, now.addingTimeInterval(3))
        }
        Thread.sleep(forTimeInterval: 0.2)
    }
    for connection in open { _ = close(connection.descriptor) }
}

/// Sends all of `text` without waiting or a signal: whether it went.
private func sendAll(_ descriptor: Int32, _ text: String) -> Bool {
    let bytes = Array(text.utf8)
    let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    return sent == bytes.count
}

/// `GET /v1/health` from the probe's address every 100 ms until `deadline`, on a kept-alive
/// connection to each port in turn: the latencies of those answered 200, and the others by kind.
func probeHealth(ports: [UInt16], from start: Date, until deadline: Date) -> (
    latencies: [Double], failures: [String: Int]
) {
    var latencies: [Double] = []
    var failures: [String: Int] = [:]
    let connections = ports.map { LoopbackConnection(port: $0, source: probeAddress) }
    var turn = 0
    while Date() < deadline {
        let connection = connections[turn % connections.count]
        turn += 1
        let began = DispatchTime.now().uptimeNanoseconds
        do {
            let (status, _) = try connection.get("/v1/health")
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
            if Date() >= start {
                if status == 200 { latencies.append(elapsed) } else { failures["HTTP \(status)", default: 0] += 1 }
            }
        } catch {
            if Date() >= start { failures["\(error)", default: 0] += 1 }
            connection.close()
        }
        Thread.sleep(forTimeInterval: 0.1)
    }
    for connection in connections { connection.close() }
    return (latencies, failures)
}
