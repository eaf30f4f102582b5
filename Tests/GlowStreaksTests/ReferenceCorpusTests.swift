import Foundation
import GlowConformance
import GlowModel
import GlowStreaks
import Testing

/// The streaks corpus answered by the reference evaluator instead of the SDK: every expected value
/// of the area is then confirmed by an implementation written from the spec alone, not only by the
/// code it may have come from (issue 13).
@Suite("Reference evaluator against the streaks corpus")
struct ReferenceCorpusTests {
    static let corpus = Corpus(
        directory: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Spec/corpus"))

    @Test("the reference passes every case of the streaks area")
    func everyCase() throws {
        // The naive reference visits every Day: cases flagged Extreme span the supported years
        // and would take it a minute; the differential tests cover the arithmetic behind them.
        let cases = Self.corpus.cases(area: "streaks").filter { !$0.flags.contains("Extreme") }
        #expect(cases.count > 250)
        for testCase in cases {
            let response: JSONValue
            do {
                response = .object(["result": try Self.answer(testCase)])
            } catch {
                response = Conformance.errorJSON(error).map { .object(["error": $0]) } ?? .null
            }
            let verdict = Conformance.verdict(testCase, response: response)
            #expect(verdict == .passed, "\(testCase.reference): \(verdict)")
        }
    }

    static func answer(_ testCase: CorpusCase) throws -> JSONValue {
        let setup = try StreakOperations.setup(testCase.input)
        let weekStart = setup.boundary.weekStart
        let references = setup.goals.map {
            ReferenceEvaluator(goal: $0, checkIns: setup.checkIns, weekStart: weekStart, today: setup.today)
        }
        switch testCase.operation {
        case "streaks.evaluate":
            return try evaluate(references[0], testCase.input)
        case "streaks.milestoneChanges":
            let reference = references[0]
            let announced = Set(
                try (testCase.input["announced"]?.array ?? []).map { value in
                    Milestone.ID(
                        goalID: reference.goal.id, milestone: try value.int("milestone"),
                        streakStart: try Day(iso: try value.string("streakStart")))
                })
            let current = reference.milestones
            let new = current.filter { !announced.contains($0.id) }
            let revoked = announced.subtracting(current.map(\.id)).sorted {
                ($0.streakStart, $0.milestone) < ($1.streakStart, $1.milestone)
            }
            return .object([
                "new": .array(new.map(StreakOperations.json)),
                "revoked": .array(
                    revoked.map {
                        .object(["milestone": .int($0.milestone), "streakStart": .string($0.streakStart.description)])
                    }),
            ])
        case "streaks.today":
            let listed = ordered(references).filter(\.isOnToday)
            return .object(["items": .array(listed.map(todayItem)), "strengths": .array(listed.map(strengthItem))])
        case "streaks.overview":
            return .object(["items": .array(try ordered(references).map { try overviewItem($0, testCase.input) })])
        case "streaks.track":
            return try track(setup, testCase.input)
        default:
            throw CorpusInputError(description: "unknown operation \(testCase.operation)")
        }
    }

    /// STREAK-26 without a tracker: the data set changed by the model's mutations, and every goal
    /// evaluated again by the reference after each step.
    static func track(_ setup: StreakOperations.Setup, _ input: JSONValue) throws -> JSONValue {
        var data = DataSet()
        for goal in setup.goals { try data.add(goal) }
        for checkIn in setup.checkIns { try data.put(checkIn) }
        var now = try Instant(rfc3339: try input.string("now"))
        func evaluate() -> [ReferenceEvaluator] {
            let boundary = data.profile?.boundary ?? setup.boundary
            return data.goals.values.map {
                ReferenceEvaluator(
                    goal: $0, checkIns: data.checkIns(of: $0.id), weekStart: boundary.weekStart,
                    today: boundary.day(containing: now))
            }
        }
        func milestones(_ references: [ReferenceEvaluator]) -> [Milestone] {
            references.filter { !$0.goal.deleted }.sorted { $0.goal.id < $1.goal.id }.flatMap(\.milestones)
        }
        var steps: [JSONValue] = []
        for value in try input.required("steps").array ?? [] {
            let step = try Step(value)
            let before = evaluate()
            if step.verb != "advance" {
                do {
                    _ = try step.apply(to: &data, boundary: data.profile?.boundary ?? setup.boundary)
                } catch let error as ModelError {
                    steps.append(.object(["error": .string(error.code.description)]))
                    continue
                }
            }
            if value["at"] != nil { now = Swift.max(now, try step.at) }
            let after = evaluate()
            let known = Set(milestones(before).map(\.id))
            let current = milestones(after)
            let revoked = known.subtracting(current.map(\.id)).sorted {
                ($0.goalID, $0.streakStart, $0.milestone) < ($1.goalID, $1.streakStart, $1.milestone)
            }
            let today = after.first?.today ?? (data.profile?.boundary ?? setup.boundary).day(containing: now)
            steps.append(
                .object([
                    "new": .array(current.filter { !known.contains($0.id) }.map(DataSetOperations.json)),
                    "revoked": .array(
                        revoked.map {
                            .object([
                                "goalID": .string($0.goalID.description), "milestone": .int($0.milestone),
                                "streakStart": .string($0.streakStart.description),
                            ])
                        }),
                    "newDay": .bool(today != (before.first?.today ?? today)), "today": .string(today.description),
                ]))
        }
        let listed = ordered(evaluate()).filter(\.isOnToday)
        return .object([
            "steps": .array(steps), "items": .array(listed.map(todayItem)),
            "strengths": .array(listed.map(strengthItem)),
        ])
    }

    /// STREAK-22: live goals by creation instant, then identifier.
    static func ordered(_ references: [ReferenceEvaluator]) -> [ReferenceEvaluator] {
        references.filter { !$0.goal.deleted }.sorted {
            ($0.goal.createdAt, $0.goal.id) < ($1.goal.createdAt, $1.goal.id)
        }
    }

    static func evaluate(_ reference: ReferenceEvaluator, _ input: JSONValue) throws -> JSONValue {
        var output: [String: JSONValue] = [
            "today": .string(reference.today.description),
            "current": StreakOperations.json(reference.currentStreak),
            "longest": StreakOperations.json(reference.longestStreak),
            "milestones": .array(reference.milestones.map(StreakOperations.json)),
            "consistency": .object([
                "last7": StreakOperations.json(reference.consistency(lastDays: 7)),
                "last30": StreakOperations.json(reference.consistency(lastDays: 30)),
                "last365": StreakOperations.json(reference.consistency(lastDays: 365)),
                "sinceStart": StreakOperations.json(reference.consistency(lastDays: nil)),
            ]),
            "onToday": .bool(reference.isOnToday),
            "strength": strengthJSON(reference),
            "completion": reference.completion.map { completion in
                .object([
                    "done": .bool(completion.done),
                    "doneOn": completion.doneOn.map { .string($0.description) } ?? .null,
                    "thousandths": .int(completion.thousandths),
                    "daysLeft": completion.daysLeft.map { .int($0) } ?? .null,
                ])
            } ?? .null,
        ]
        if let range = input["range"] {
            let from = try Day(iso: try range.string("from"))
            let to = try Day(iso: try range.string("to"))
            output["statuses"] = .array((from...to).map { .string(reference.status(on: $0).name) })
        }
        return .object(output)
    }

    /// The strength as the corpus writes it (STREAK-27 ... STREAK-29).
    static func strengthJSON(_ reference: ReferenceEvaluator) -> JSONValue {
        let today = reference.today
        guard let scores = reference.strengthScores else { return .null }
        func reported(_ s: Int64) -> Int { Int(s * 1000 / (1 << 30)) }
        let now = reported(ReferenceEvaluator.strength(through: today, scores))
        let moves = ReferenceEvaluator.strengthMoves(today: today, scores)
        return .object([
            "score": .int(Int(ReferenceEvaluator.strength(through: today, scores))), "thousandths": .int(now),
            "change7": .int(now - reported(ReferenceEvaluator.strength(through: today.advanced(by: -7), scores))),
            "change30": .int(now - reported(ReferenceEvaluator.strength(through: today.advanced(by: -30), scores))),
            "moves": .array(
                moves.map {
                    .object([
                        "day": .string($0.day.description), "change": .int(Int($0.after - $0.before)),
                        "reported": .int(reported($0.after) - reported($0.before)), "value": .int($0.value),
                    ])
                }),
        ])
    }

    /// STREAK-30: a Today item's reported strength, or null.
    static func strengthItem(_ reference: ReferenceEvaluator) -> JSONValue {
        guard let scores = reference.strengthScores else { return .null }
        return .int(Int(ReferenceEvaluator.strength(through: reference.today, scores) * 1000 / (1 << 30)))
    }

    /// STREAK-22: today's status, the progress in thousandths, the current streak, Days left.
    static func todayItem(_ reference: ReferenceEvaluator) -> JSONValue {
        let status = reference.status(on: reference.today)
        var thousandths = status == .done ? 1000 : 0
        if case .partial(let value) = status { thousandths = value }
        if let completion = reference.completion { thousandths = completion.thousandths }
        return .object([
            "goalID": .string(reference.goal.id.description), "status": .string(status.name),
            "thousandths": .int(thousandths), "streak": .int(reference.currentStreak?.length ?? 0),
            "daysLeft": reference.completion?.daysLeft.map { .int($0) } ?? .null,
        ])
    }

    /// STREAK-23: streaks, consistencies, and whole weeks of intensities ending with today's.
    static func overviewItem(_ reference: ReferenceEvaluator, _ input: JSONValue) throws -> JSONValue {
        let weeks = try input.int("weeks")
        let lastWeek = reference.today.week(startingOn: reference.weekStart)
        let first = try lastWeek.lowerBound.adding(days: -7 * (Swift.max(1, weeks) - 1))
        let levels = (first...lastWeek.upperBound).map { String(reference.level(on: $0)) }
        let grid = stride(from: 0, to: levels.count, by: 7).map {
            JSONValue.string(levels[$0..<Swift.min($0 + 7, levels.count)].joined())
        }
        return .object([
            "goalID": .string(reference.goal.id.description),
            "current": StreakOperations.json(reference.currentStreak),
            "longest": StreakOperations.json(reference.longestStreak),
            "last7": StreakOperations.json(reference.consistency(lastDays: 7)),
            "last30": StreakOperations.json(reference.consistency(lastDays: 30)),
            "last365": StreakOperations.json(reference.consistency(lastDays: 365)),
            "sinceStart": StreakOperations.json(reference.consistency(lastDays: nil)),
            "firstDay": .string(first.description), "grid": .array(grid),
        ])
    }
}
