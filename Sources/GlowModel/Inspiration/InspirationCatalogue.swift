/// The built-in Inspiration catalogue: eight interests with four templates each (MODEL-39).
///
/// Slugs and template identifiers are stable forever: goals record the template they came from.
/// Identifiers read `0190a000-0000-7000-8000-000000IITTNN`: the interest's number `II`, the
/// template's number `TT` and, for checklist items, the item's number `NN` (00 for the template
/// itself), each one byte in hexadecimal; so the numbers below must never be reused.
public enum InspirationCatalogue {
    /// Every interest, in display order.
    public static let interests: [Interest] = [
        interest(
            1, "movement", "Movement", "🏃",
            [
                template(1, "Walk 8,000 steps", "🚶", .value(ValueConfig(unit: "steps", target: atLeast(8000))), .daily),
                template(2, "Stretch for 10 minutes", "🤸", .streak, .daily),
                template(3, "Work out three times a week", "💪", .streak, .timesPerWeek(3)),
                template(4, "Run 100 km", "🏃", .progress(ProgressConfig(target: amount(100), unit: "km")), nil),
            ]),
        interest(
            2, "mindfulness", "Mindfulness", "🧘",
            [
                template(1, "Meditate for 10 minutes", "🧘", .streak, .daily),
                template(2, "Three mindful pauses", "🌬️", .tally(TallyConfig(dailyTarget: 3, unit: "pauses")), .daily),
                template(
                    3, "Gratitude list", "🙏", checklist(2, 3, ["Something small", "Someone kind", "Myself"]), .daily),
                template(
                    4, "Screen time after 9 pm", "📵", .value(ValueConfig(unit: "min", target: atMost(30))), .daily),
            ]),
        interest(
            3, "sleep", "Sleep", "😴",
            [
                template(1, "In bed by 22:30", "🛏️", .streak, .daily),
                template(2, "Sleep 8 hours", "😴", .value(ValueConfig(unit: "h", target: atLeast(8))), .daily),
                template(3, "No caffeine after 2 pm", "☕", .streak, .daily),
                template(
                    4, "Evening wind-down", "🌙", checklist(3, 4, ["Dim the lights", "Phone away", "Read a little"]),
                    .daily),
            ]),
        interest(
            4, "nutrition", "Nutrition", "🥗",
            [
                template(
                    1, "Drink 8 glasses of water", "💧", .tally(TallyConfig(dailyTarget: 8, unit: "glasses")), .daily),
                template(
                    2, "Five portions of fruit and veg", "🥦", .tally(TallyConfig(dailyTarget: 5, unit: "portions")),
                    .daily),
                template(3, "Cook at home", "🍳", .streak, .timesPerWeek(4)),
                template(
                    4, "Sunday meal prep", "🥡", checklist(4, 4, ["Plan the week", "Shop", "Cook and portion"]),
                    .weekdays([.sunday])),
            ]),
        interest(
            5, "learning", "Learning", "📚",
            [
                template(1, "Read 20 pages", "📖", .tally(TallyConfig(dailyTarget: 20, unit: "pages")), .daily),
                template(2, "Finish a book", "📚", .progress(ProgressConfig(target: amount(300), unit: "pages")), nil),
                template(3, "Practise a language", "🗣️", .streak, .daily),
                template(
                    4, "Complete an online course", "🎓", .progress(ProgressConfig(target: amount(12), unit: "lessons")),
                    nil),
            ]),
        interest(
            6, "creativity", "Creativity", "🎨",
            [
                template(1, "Sketch something", "✏️", .streak, .everyNDays(2)),
                template(2, "Write 500 words", "✍️", .value(ValueConfig(unit: "words", target: atLeast(500))), .daily),
                template(3, "Play an instrument", "🎸", .streak, .timesPerWeek(3)),
                template(4, "Finish a creative project", "🖼️", .single, nil),
            ]),
        interest(
            7, "connection", "Connection", "💞",
            [
                template(1, "Call a friend", "📞", .streak, .timesPerWeek(1)),
                template(2, "Family dinner", "🍝", .streak, .weekdays([.sunday])),
                template(3, "Send a kind message", "💌", .streak, .daily),
                template(
                    4, "Plan a get-together", "🎉",
                    .subgoals(
                        SubgoalsConfig(
                            items: items(7, 4, ["Pick a date", "Invite friends", "Book a place"]), recurring: false)),
                    nil),
            ]),
        interest(
            8, "self-care", "Self-care", "🛁",
            [
                template(1, "Skincare routine", "🧴", checklist(8, 1, ["Cleanse", "Moisturise", "Sunscreen"]), .daily),
                template(2, "Take a bath", "🛁", .streak, .timesPerWeek(2)),
                template(3, "Time outside", "🌿", .value(ValueConfig(unit: "min", target: atLeast(20))), .daily),
                template(4, "A monthly treat", "💅", .streak, .timesPerMonth(1)),
            ]),
    ]

    /// The interest with this slug, if the catalogue has it.
    public static func interest(_ id: Slug) -> Interest? {
        interests.first { $0.id == id }
    }

    /// The template with this identifier, if the catalogue has it.
    public static func template(_ id: TemplateID) -> GoalTemplate? {
        for interest in interests {
            if let found = interest.templates.first(where: { $0.id == id }) { return found }
        }
        return nil
    }

    // MARK: - Building the table

    private static func stableID<Kind: IdentifierKind>(_ interest: Int, _ number: Int, _ item: Int = 0) -> Identifier<
        Kind
    > {
        let numbers = UInt64(interest) << 16 | UInt64(number) << 8 | UInt64(item)
        return Identifier(high: 0x0190_A000_0000_7000, low: 0x8000_0000_0000_0000 | numbers)
    }

    private static func interest(
        _ number: Int, _ slug: String, _ name: String, _ emoji: String, _ templates: [(Int, Slug) -> GoalTemplate]
    ) -> Interest {
        let id = try! Slug(slug)
        return Interest(id: id, name: name, emoji: emoji, templates: templates.map { $0(number, id) })
    }

    private static func template(
        _ number: Int, _ title: String, _ emoji: String, _ kind: GoalKind, _ schedule: ScheduleRule?
    ) -> (Int, Slug) -> GoalTemplate {
        { interestNumber, slug in
            GoalTemplate(
                id: stableID(interestNumber, number), interestID: slug,
                draft: GoalDraft(title: title, emoji: emoji, kind: kind, schedule: schedule))
        }
    }

    private static func items(_ interest: Int, _ template: Int, _ titles: [String]) -> [SubgoalItem] {
        titles.enumerated().map { SubgoalItem(id: stableID(interest, template, $0.offset + 1), title: $0.element) }
    }

    private static func checklist(_ interest: Int, _ template: Int, _ titles: [String]) -> GoalKind {
        .subgoals(SubgoalsConfig(items: items(interest, template, titles), recurring: true))
    }

    private static func amount(_ whole: Int) -> Amount { try! Amount(whole) }
    private static func atLeast(_ whole: Int) -> ValueTarget {
        ValueTarget(comparison: .atLeast, amount: amount(whole))
    }
    private static func atMost(_ whole: Int) -> ValueTarget { ValueTarget(comparison: .atMost, amount: amount(whole)) }
}
