import GlowAuth
import GlowBundle
import GlowCore
import GlowFeed
import GlowModel
import GlowReport
import GlowStorage
import GlowThemes
import GlowWire
import Testing

/// Every module's error is one ``CodedError``: a code of its own type, a message, a rule and a
/// place, printed the same way everywhere.
@Suite("One error shape")
struct ErrorShapeTests {
    static let printed: [(any CodedError, String)] = [
        (
            ModelError(.invalidDay, "no such day", path: "$.goals[0].start", rule: "MODEL-1"),
            "invalid_day at $.goals[0].start: no such day [MODEL-1]"
        ),
        (ModelError(.notFound, "no such goal"), "not_found: no such goal"),
        (
            WireError(.truncated, at: 7, "the record ends early", rule: "WIRE-3"),
            "truncated at offset 7: the record ends early [WIRE-3]"
        ),
        (
            BundleError(.badMagic, .header, at: 0, "not a Glow bundle", rule: "BUNDLE-1"),
            "bad_magic in the header at offset 0: not a Glow bundle [BUNDLE-1]"
        ),
        (
            BundleError(.record(.invalidValue), .frames, at: 12, "a bad record"),
            "invalid_value in the frames at offset 12: a bad record"
        ),
        (FeedError(.ownItem, "one's own item", rule: "FEED-11"), "own_item: one's own item [FEED-11]"),
        (ThemeError(.invalidColor, "not a colour"), "invalid_color: not a colour"),
        (AuthError(.throttled, "wait", rule: "AUTH-39", retryAfter: 2), "throttled: wait [AUTH-39]"),
        (StoreError(.busy, "another writer holds it", path: "a.sqlite"), "busy in a.sqlite: another writer holds it"),
        (ReportError(.invalidWeeks, "weeks must be 1 to 520"), "invalid_weeks: weeks must be 1 to 520"),
    ]

    @Test("each error prints as 'code at where: message [rule]'", arguments: printed.indices)
    func description(_ index: Int) {
        let (error, text) = Self.printed[index]
        #expect(error.description == text)
        #expect("\(error)" == text)
    }

    @Test("a code compares by its text within its own type")
    func codes() {
        #expect(BundleError.Code.record(.truncated) == .truncated)
        #expect(BundleError.Code.record(.invalidValue).description == "invalid_value")
        #expect(ModelError.Code.duplicateID != .notFound)
        #expect(Set([AuthError.Code.throttled, .throttled, .invalidCredentials]).count == 2)
    }
}
