import Foundation
import GlowBundle
import GlowClient
import GlowModel
import GlowStorage
import Testing

@testable import GlowRitual

/// Issue 45 item 2, as an app catches errors: a refusal reaches the UI as the module's own typed
/// error, with its code and place, however many layers it crossed.
@MainActor
@Suite("Typed errors where apps catch them")
struct TypedErrorTests {
    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a change the model refuses comes out of the durable store as the model's error, nothing stored")
    func modelRefusal() async throws {
        let database = try await RitualDatabase(path: DatabaseTests.temporary())
        let before = try await database.data
        do {
            try await database.perform { _ in
                throw ModelError(.invalidCheckIn, "a check-in needs a live goal", path: "goal", rule: "MODEL-20")
            }
            Issue.record("the refused change was kept")
        } catch {
            #expect(error.code == .refused)
            let model = try #require(error.refusal as? ModelError, "\(error)")
            #expect(model.code == .invalidCheckIn && model.path == "goal")
        }
        await #expect(try database.data == before)
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a bundle the import refuses comes out as the bundle's error, with its offset")
    func bundleRefusal() async throws {
        let database = try await RitualDatabase(path: DatabaseTests.temporary())
        do {
            try await database.importBundle(Array("not a bundle".utf8))
            Issue.record("a text was imported")
        } catch {
            let bundle = try #require(error.refusal as? BundleError, "\(error)")
            #expect(bundle.location != nil, "\(bundle)")
        }
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a sync whose server refuses carries the server's code and Retry-After, not a text")
    func serviceRefusal() async throws {
        let database = try await ActivityStoreTests.person(1)
        let store = try await ActivityStore(database: database, person: "mia", clockID: "mia-phone")
        let throttled = ServiceFailure(
            .throttled, "this client calls more often than the server takes", call: "relay", status: 429,
            rule: "SERVER-11", retryAfter: 3)
        do {
            try await store.sync(through: { _ in throw throttled })
            Issue.record("the sync went through")
        } catch {
            guard case .service(let failure) = error else {
                Issue.record("not the server's refusal: \(error)")
                return
            }
            #expect(failure.code == .throttled && failure.status == 429 && failure.retryAfter == 3)
        }
    }
}
