import Foundation
import Testing

@testable import GlowModel

/// MODEL-63 where the corpus's draft cases do not reach: a display name.
@Suite("Characters of bounded size")
struct CharacterSizeTests {
    static func profile(named name: String) throws -> Profile {
        let created = try Instant(rfc3339: "2026-11-01T08:00:00Z")
        return try Profile(
            userID: UserID(high: 1, low: 1), displayName: name, boundary: DayBoundary(timeZone: .utc),
            createdAt: created, modifiedAt: created)
    }

    @Test("a display name of letters with 31 marks each is fine; one with 32 marks is refused under MODEL-63")
    func displayName() throws {
        #expect(try Self.profile(named: "Mia" + String(repeating: "\u{0301}", count: 31)).displayName.count == 3)
        for name in [
            "Mia" + String(repeating: "\u{0301}", count: 32), "Z" + String(repeating: "\u{0336}", count: 9_999),
        ] {
            #expect {
                _ = try Self.profile(named: name)
            } throws: { error in
                guard let error = error as? ModelError else { return false }
                return error.code == .invalidProfile && error.rule == "MODEL-63"
                    && error.message.contains("more than 32 code points")
            }
        }
    }
}
