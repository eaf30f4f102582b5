import Foundation
import GlowModel
import Testing

/// Instants beside Foundation's dates, as an app hands them to the platform (issue 45 item 7).
@Suite("Instants and Dates")
struct InstantDateTests {
    /// An instant goes to and comes from a `Date` to the millisecond; a date an instant cannot be
    /// (before year 1, after 9999, not a number) becomes the nearer end, never a trap.
    @Test(
        "an Instant and a Date bridge both ways; dates out of range are held to the ends",
        arguments: [
            (1_764_633_600.1234, Int64(1_764_633_600_123)), (-0.0005, Int64(-1)),
            (1e15, Instant.max.millisecondsSince1970), (-1e15, Instant.min.millisecondsSince1970),
            (.infinity, Instant.max.millisecondsSince1970), (-.infinity, Instant.min.millisecondsSince1970),
            (.nan, Int64(0)),
        ])
    func dates(secondsSince1970: Double, milliseconds: Int64) throws {
        // (Seconds as the arguments: Foundation cannot describe a Date this far out, which the
        // test library would ask it to.)
        let instant = Instant(Date(timeIntervalSince1970: secondsSince1970))
        #expect(instant.millisecondsSince1970 == milliseconds)
        #expect(Instant(instant.date) == instant)
    }
}
