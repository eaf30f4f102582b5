/// How far work over the whole data set has got, off the main actor (issue 58): steps done of the
/// steps there are. Turning sync on counts the frames of the first record it seals; publishing the
/// feed counts the goals whose items it derived.
public struct WorkProgress: Hashable, Sendable {
    /// Steps done so far.
    public var done: Int
    /// Every step of the work.
    public var total: Int

    /// `done` of `total` steps.
    public init(done: Int, total: Int) {
        self.done = done
        self.total = total
    }

    /// The share done, 0 ... 1.
    public var fraction: Double { total <= 0 ? 1 : Double(min(done, total)) / Double(total) }
}
