/// The field rules a goal and a goal draft share (MODEL-45), collected so that every problem is
/// reported at once, in field order.
enum GoalRules {
    static let titleLimit = 80
    static let noteLimit = 500
    static let unitLimit = 24
    static let itemLimit = 50
    static let tallyLimit = 10_000

    /// `text` without white space at either end; only the ends are visited.
    static func trimmed(_ text: String) -> String {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }),
            let last = text.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(text[first...last])
    }

    /// The most code points one character may hold (MODEL-63).
    static let scalarsPerCharacter = 32

    /// What ``length(_:upTo:)`` answers for a text holding a character of more than
    /// ``scalarsPerCharacter`` code points: too long for any field (MODEL-63).
    static let overfull = Int.max

    /// The number of characters (grapheme clusters) of `text`, counted only up to `limit + 1`:
    /// a length check costs what the limit allows, however long the text (MODEL-19); or
    /// ``overfull`` when a character counted holds more than 32 code points (MODEL-63).
    static func length(_ text: String, upTo limit: Int) -> Int {
        var count = 0
        for character in text {
            // Counting a character's code points stops past the bound too.
            var scalars = 0
            for _ in character.unicodeScalars {
                scalars += 1
                if scalars > scalarsPerCharacter { return overfull }
            }
            count += 1
            if count > limit { break }
        }
        return count
    }

    /// `N characters`, `more than LIMIT characters` when counting stopped at the limit, or what
    /// makes an overfull text too long.
    static func describe(length: Int, limit: Int) -> String {
        if length == overfull { return "a character of more than \(scalarsPerCharacter) code points" }
        return length > limit ? "more than \(limit) characters" : "\(length) characters"
    }

    /// Whether `text` is exactly one emoji character (a single grapheme that presents as emoji).
    static func isSingleEmoji(_ text: String) -> Bool {
        guard length(text, upTo: 1) == 1, let character = text.first else { return false }
        let scalars = character.unicodeScalars
        return scalars.contains { $0.properties.isEmojiPresentation }
            || (scalars.contains { $0.properties.isEmoji } && scalars.contains { $0.value == 0xFE0F })
    }

    static func issues(
        title: String, emoji: String?, note: String?, kind: GoalKind, scheduleRule: ScheduleRule?,
        startDay: Day, endDay: Day?, today: Day?
    ) -> [DraftIssue] {
        var issues: [DraftIssue] = []
        let title = trimmed(title)
        if title.isEmpty {
            issues.append(DraftIssue("title", .titleEmpty, "give the goal a title"))
        } else if case let count = length(title, upTo: titleLimit), count > titleLimit {
            issues.append(
                DraftIssue(
                    "title", .titleTooLong,
                    "the title has \(describe(length: count, limit: titleLimit)); at most \(titleLimit)"))
        }
        if let emoji, !isSingleEmoji(emoji) {
            issues.append(DraftIssue("emoji", .emojiInvalid, "choose exactly one emoji"))
        }
        if let note, case let count = length(note, upTo: noteLimit), count > noteLimit {
            issues.append(
                DraftIssue(
                    "note", .noteTooLong,
                    "the note has \(describe(length: count, limit: noteLimit)); at most \(noteLimit)"))
        }
        issues += kindIssues(kind, startDay: startDay, today: today)
        if let scheduleRule {
            issues += scheduleRule.issues(field: "schedule")
        }
        if let endDay, endDay < startDay {
            issues.append(
                DraftIssue("endDay", .endBeforeStart, "the end Day \(endDay) is before the start Day \(startDay)"))
        }
        return issues
    }

    static func issues(forgiveness: Forgiveness?) -> [DraftIssue] {
        guard let forgiveness, !(1...forgiveness.limit).contains(forgiveness.allowance) else { return [] }
        return [
            DraftIssue(
                "forgiveness.allowance", .forgivenessOutOfRange,
                "forgive 1...\(forgiveness.limit) days per \(forgiveness.period.rawValue)")
        ]
    }

    private static func unitIssues(_ unit: String) -> [DraftIssue] {
        length(unit, upTo: unitLimit) > unitLimit
            ? [
                DraftIssue(
                    "kind.unit", .unitTooLong,
                    "the unit has \(describe(length: length(unit, upTo: unitLimit), limit: unitLimit)); at most \(unitLimit)"
                )
            ]
            : []
    }

    private static func kindIssues(_ kind: GoalKind, startDay: Day, today: Day?) -> [DraftIssue] {
        switch kind {
        case .single, .streak:
            return []
        case .subgoals(let config):
            var issues: [DraftIssue] = []
            if !(1...itemLimit).contains(config.items.count) {
                issues.append(
                    DraftIssue("kind.items", .itemCountOutOfRange, "a checklist needs 1...\(itemLimit) items"))
            }
            var seen = Set<SubgoalItemID>()
            for (index, item) in config.items.enumerated() {
                let itemTitle = trimmed(item.title)
                if itemTitle.isEmpty || length(itemTitle, upTo: titleLimit) > titleLimit {
                    issues.append(
                        DraftIssue(
                            "kind.items[\(index)].title", .itemTitleInvalid,
                            "an item's title needs 1...\(titleLimit) characters"))
                }
                if !seen.insert(item.id).inserted {
                    issues.append(
                        DraftIssue("kind.items[\(index)].id", .itemDuplicate, "item id \(item.id) is used twice"))
                }
            }
            return issues
        case .progress(let config):
            var issues: [DraftIssue] = []
            if config.target <= .zero {
                issues.append(DraftIssue("kind.target", .targetNotPositive, "the target must be more than 0"))
            }
            return issues + unitIssues(config.unit)
        case .value(let config):
            var issues: [DraftIssue] = []
            if let target = config.target, target.amount < .zero {
                issues.append(DraftIssue("kind.target.amount", .targetNegative, "the target cannot be negative"))
            }
            return issues + unitIssues(config.unit)
        case .tally(let config):
            var issues: [DraftIssue] = []
            if config.dailyTarget < 1 {
                issues.append(DraftIssue("kind.dailyTarget", .targetNotPositive, "the daily target must be at least 1"))
            } else if config.dailyTarget > tallyLimit {
                issues.append(
                    DraftIssue("kind.dailyTarget", .targetTooLarge, "the daily target must be at most \(tallyLimit)"))
            }
            return issues + unitIssues(config.unit)
        case .countdown(let config):
            if let today, config.targetDay < today {
                return [
                    DraftIssue("kind.targetDay", .countdownInPast, "the countdown Day \(config.targetDay) has passed")
                ]
            }
            if config.targetDay < startDay {
                return [
                    DraftIssue(
                        "kind.targetDay", .countdownBeforeStart,
                        "the countdown Day \(config.targetDay) is before the start Day \(startDay)")
                ]
            }
            return []
        }
    }
}
