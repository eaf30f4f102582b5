import GlowModel

/// What one Day's entry amounts to for a goal's kind, before schedules and today are considered
/// (STREAK-5 ... STREAK-8).
enum DayOutcome: Hashable {
    /// No entry, or an entry that shows no progress.
    case none
    case done
    case partial(Int)
    case skipped
    /// A logged value that breaks an at-most target.
    case failed

    /// The outcome of `log` for a recurring goal of `kind`.
    init(_ log: CheckInLog, kind: GoalKind) {
        guard CheckIn.accepts(log, for: kind) else {
            self = .none
            return
        }
        switch (kind, log) {
        case (_, .skip):
            self = .skipped
        case (.streak, .done), (.single, .done):
            self = .done
        case (.tally(let config), .tally(let count)):
            self = DayOutcome.fraction(Int64(count), of: Int64(config.dailyTarget))
        case (.subgoals(let config), .items(let items)):
            let checked = config.items.filter { items.contains($0.id) }.count
            self = DayOutcome.fraction(Int64(checked), of: Int64(config.items.count))
        case (.value(let config), .value(let value)):
            guard let target = config.target else {
                self = .done
                return
            }
            switch target.comparison {
            case .atLeast:
                self =
                    value >= target.amount
                    ? .done : DayOutcome.fraction(value.thousandths, of: target.amount.thousandths, orElse: .failed)
            case .atMost:
                self = value <= target.amount ? .done : .failed
            }
        default:
            self = .none
        }
    }

    /// Done at or above the target; otherwise partial in thousandths (at least 1 when there is
    /// any progress), or `orElse` when there is none (STREAK-6).
    static func fraction(_ amount: Int64, of target: Int64, orElse: DayOutcome = .none) -> DayOutcome {
        if amount >= target { return .done }
        guard amount > 0 else { return orElse }
        return .partial(Int(Swift.max(1, amount * 1000 / target)))
    }

    /// The Overview intensity, 0...4, of this outcome (STREAK-23).
    var level: Int {
        switch self {
        case .done: 4
        case .partial(let thousandths): 1 + thousandths * 3 / 1000
        case .none, .skipped, .failed: 0
        }
    }
}
