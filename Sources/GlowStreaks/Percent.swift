/// How the SDK writes a share of thousandths (a consistency, a share done, a strength) for a
/// person: a whole percent rounded half up (STREAK-29).
public enum Percent {
    /// `thousandths` as a whole percent rounded half up, `floor((t + 5) / 10)`: 666 is 67, 857 is
    /// 86. As the SDK's thousandths are the exact share rounded down, this is the exact share
    /// rounded half up.
    public static func of(thousandths: Int) -> Int { (thousandths + 5) / 10 }
}
