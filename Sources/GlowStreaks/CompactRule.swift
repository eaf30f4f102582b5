import GlowModel

/// A schedule rule reduced to what the daily loop needs, so judging a Day copies nothing that is
/// reference-counted (STREAK-2).
struct CompactRule {
    private enum Form {
        case daily
        case weekdays(mask: UInt8)
        case every(interval: Int, anchor: Int)
        case period
    }

    private let form: Form

    init(_ rule: ScheduleRule, effective: Day) {
        switch rule {
        case .daily: form = .daily
        case .weekdays(let days): form = .weekdays(mask: days.reduce(0) { $0 | 1 << UInt8($1.isoNumber - 1) })
        case .everyNDays(let interval): form = .every(interval: interval, anchor: effective.daysSince1970)
        case .timesPerWeek, .timesPerMonth: form = .period
        }
    }

    /// Whether the rule falls on `day`, or nil for an N-per-period rule, judged per period.
    @inline(__always) func falls(on day: Day) -> Bool? {
        switch form {
        case .daily: return true
        case .weekdays(let mask):
            let index = ((day.daysSince1970 + 3) % 7 + 7) % 7  // 0 = Monday (MODEL-4)
            return mask & 1 << UInt8(index) != 0
        case .every(let interval, let anchor):
            return ((day.daysSince1970 - anchor) % interval + interval) % interval == 0
        case .period: return nil
        }
    }
}

extension DayOutcome {
    /// A function from a log to its outcome for goals of `kind`, with what it needs from the kind
    /// worked out once (STREAK-5 ... STREAK-8).
    static func evaluator(for kind: GoalKind) -> (CheckInLog) -> DayOutcome {
        switch kind {
        case .subgoals(let config):
            let items = Set(config.items.map(\.id))
            let count = Int64(items.count)
            let recurring = config.recurring
            return { log in
                switch log {
                case .items(let checked):
                    guard checked.isSubset(of: items) else { return .none }
                    return fraction(Int64(checked.count), of: count)
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
        default:
            return { DayOutcome($0, kind: kind) }
        }
    }
}
