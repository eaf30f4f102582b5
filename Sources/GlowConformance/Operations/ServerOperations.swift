import GlowProtocol

/// The server area's operations a testee plays (SERVER-11); its exchanges are a server's.
package enum ServerOperations {
    package static let all: [String: ModelOperations.Operation] = [
        "server.client-limit": { input in
            let interval = try input.int("intervalMilliseconds")
            let burst = try input.int("burst")
            guard let limit = ClientLimit(intervalMilliseconds: Int64(interval), burst: Int64(burst)) else {
                throw CorpusInputError(description: "no limit of interval \(interval) and burst \(burst)")
            }
            guard let requests = input["requests"]?.array else {
                throw CorpusInputError(description: "the input has no requests")
            }
            let limiter = ClientLimiter(limit: limit, capacity: Int.max)
            var decisions: [JSONValue] = []
            for request in requests {
                let client = try request.string("client")
                let at = try request.int("at")
                if let wait = limiter.admit(client, now: Int64(at)) {
                    decisions.append(.object(["served": .bool(false), "retryAfterSeconds": .int(Int(wait))]))
                } else {
                    decisions.append(.object(["served": .bool(true)]))
                }
            }
            return .object(["decisions": .array(decisions)])
        }
    ]
}
