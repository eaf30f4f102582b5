import GlowModel

/// What one Day's entry amounts to for a goal's kind, before schedules and today are considered
/// (STREAK-5 ... STREAK-8).
enum DayOutcome: Hashable, Sendable {
    /// No entry, or an entry that shows no progress.
    case none
    case done
    case partial(Int)
    case skipped
    /// A logged value that breaks an at-most target.
    case failed

    /// A function from a log to its outcome for recurring goals of `kind`, with what it needs from
    /// the kind worked out once. The one home of the per-kind rules of a Day.
    static func evaluator(for kind: GoalKind) -> @Sendable (CheckInLog) -> DayOutcome {
        switch kind {
        case .subgoals(let config):
            let items = Set(config.items.map(\.id))
            let count = Int64(items.count)
            let recurring = config.recurring
            return { log in
                switch log {
                case .items(let checked):
                    // STREAK-5: only the goal's current items count; removed ones are ignored.
                    let known =
                        checked.count <= items.count
                        ? checked.filter { items.contains($0) }.count : items.filter { checked.contains($0) }.count
                    return fraction(Int64(known), of: count)
                case .skip: return recurring ? .skipped : .none
                default: return .none
                }
            }
        case .tally(let config):
            let target = Int64(config.dailyTarget)
            return { log in
                switch log {
                case .tally(let count): return fraction(Int64(count), of: target)
                case .skip: return .skipped
                default: return .none
                }
            }
        case .streak:
            return { log in
                switch log {
                case .done: return .done
                case .skip: return .skipped
                default: return .none
                }
            }
        case .value(let config):
            let target = config.target
            return { log in
                switch log {
                case .value(let value):
                    // STREAK-7.
                    guard let target else { return .done }
                    switch target.comparison {
                    case .atLeast:
                        return value >= target.amount
                            ? .done : fraction(value.thousandths, of: target.amount.thousandths, orElse: .failed)
                    case .atMost:
                        return value <= target.amount ? .done : .failed
                    }
                case .skip: return .skipped
                default: return .none
                }
            }
        case .single, .progress, .countdown:
            // One-off kinds are judged by completion (STREAK-13), never by a Day's outcome.
            return { _ in .none }
        }
    }

    /// Done at or above the target; otherwise partial in thousandths (at least 1 when there is
    /// any progress), or `orElse` when there is none (STREAK-6).
    static func fraction(_ amount: Int64, of target: Int64, orElse: DayOutcome = .none) -> DayOutcome {
        if amount >= target { return .done }
        guard amount > 0 else { return orElse }
        return .partial(Int(thousandths(amount, of: target)))
    }

    /// `floor(1000 × amount / target)` for `amount ≥ 0` and `target > 0`, at least 1 when the
    /// amount is positive, computed without overflow and saturating at `Int64.max` (STREAK-6).
    static func thousandths(_ amount: Int64, of target: Int64) -> Int64 {
        let whole = amount / target
        let rest = amount % target
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: 1000)
        // `rest < target`, and `rest × 1000` fits: its high half is below `target`.
        let part = target.dividingFullWidth(rest.multipliedFullWidth(by: 1000)).quotient
        let (sum, overflow2) = scaled.addingReportingOverflow(part)
        guard !overflow, !overflow2 else { return .max }
        return Swift.max(amount > 0 ? 1 : 0, sum)
    }

    /// The Overview intensity, 0...4, of this outcome (STREAK-23).
    var level: Int {
        switch self {
        case .done: 4
        case .partial(let thousandths): DayOutcome.level(thousandths: thousandths)
        case .none, .skipped, .failed: 0
        }
    }

    /// The intensity of a partly done Day: `1 + floor(3f / 1000)`, so 1...3 (STREAK-23).
    static func level(thousandths: Int) -> Int { 1 + thousandths * 3 / 1000 }

    /// Whether, before today, this outcome breaks a streak unless forgiven (STREAK-10).
    var breaks: Bool {
        switch self {
        case .none, .failed, .partial: true
        case .done, .skipped: false
        }
    }
}
