import Foundation
import GlowAuth

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches a provider's JSON Web Key Set for a server's verifiers (AUTH-27) while the request
/// that needs it waits: over HTTPS with `URLSession`, or from a `file://` URL (a key set kept
/// beside the server, a staging provider's, a test's). The answer's `Cache-Control` decides how
/// long the cache keeps it.
public struct HTTPKeySetFetcher: BlockingKeySetFetcher {
    /// Seconds to wait for a provider.
    public let timeout: Double

    /// A fetcher that waits at most `timeout` seconds.
    public init(timeout: Double = 10) {
        self.timeout = timeout
    }

    /// Why a key set could not be fetched.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, and where.
        public let description: String
    }

    /// The key set at `url`.
    ///
    /// - Throws: ``Failure`` for a URL that is not one, a file that cannot be read, no answer
    ///   in time, or an answer other than `200`.
    public func fetchKeySet(from url: String) throws -> KeySetResponse {
        guard let address = URL(string: url), let scheme = address.scheme else {
            throw Failure(description: "'\(url)' is not a URL")
        }
        if scheme == "file" {
            do {
                return KeySetResponse(body: Array(try Data(contentsOf: address)), maxAge: nil)
            } catch {
                throw Failure(description: "the key set \(address.path) cannot be read: \(error.localizedDescription)")
            }
        }
        guard scheme == "https" || scheme == "http" else {
            throw Failure(description: "key sets are fetched over https or from a file, not \(scheme)")
        }
        var request = URLRequest(url: address, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "GET"
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        URLSession.shared.dataTask(with: request) { data, response, error in
            outcome.set(data, response as? HTTPURLResponse, error)
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + timeout + 1) == .success else {
            throw Failure(description: "\(url) did not answer within \(Int(timeout)) seconds")
        }
        let (data, response, error) = outcome.get()
        guard let response, let data else {
            throw Failure(
                description: "\(url) did not answer: \(error.map { "\($0.localizedDescription)" } ?? "no reason")")
        }
        guard response.statusCode == 200 else {
            throw Failure(description: "\(url) answered \(response.statusCode)")
        }
        return KeySetResponse(
            body: Array(data), cacheControl: response.value(forHTTPHeaderField: "Cache-Control"))
    }

    /// What the data task gave, handed from its thread to the waiting one.
    private final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var value: (Data?, HTTPURLResponse?, (any Error)?) = (nil, nil, nil)
        func set(_ data: Data?, _ response: HTTPURLResponse?, _ error: (any Error)?) {
            lock.lock()
            value = (data, response, error)
            lock.unlock()
        }
        func get() -> (Data?, HTTPURLResponse?, (any Error)?) {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
    }
}
