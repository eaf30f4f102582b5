import Foundation
import Testing

@testable import GlowRitual

@Suite("Sign-in flow")
struct SignInFlowTests {
    static let events: [SignInFlow.Event] = [
        .startOnboarding, .continue, .back, .signedIn(hasGoals: false), .signedIn(hasGoals: true), .createdFirstGoal,
        .signOut, .deleteAccount, .cancelOnboarding,
    ]

    /// AUTH-19's table, written out again: every pair not in it is illegal.
    static let table: [String: SignInFlow] = [
        "signedOut startOnboarding": .pitch, "pitch continue": .signInChoices, "signInChoices back": .pitch,
        "signInChoices signedIn false": .welcome, "signInChoices signedIn true": .main,
        "welcome createdFirstGoal": .main,
        "welcome signOut": .signedOut, "main signOut": .signedOut, "welcome deleteAccount": .signedOut,
        "main deleteAccount": .signedOut, "pitch cancelOnboarding": .signedOut,
        "signInChoices cancelOnboarding": .signedOut,
    ]

    static func key(_ state: SignInFlow, _ event: SignInFlow.Event) -> String {
        if case .signedIn(let hasGoals) = event { return "\(state.rawValue) signedIn \(hasGoals)" }
        return "\(state.rawValue) \(event.name)"
    }

    @Test("every state and event: the table's move, or an error that changes nothing")
    func everyPair() {
        var moves = 0
        for state in SignInFlow.allCases {
            for event in Self.events {
                var flow = state
                if let expected = Self.table[Self.key(state, event)] {
                    #expect((try? flow.after(event)) == expected)
                    moves += 1
                } else {
                    #expect(throws: SignInFlowError.self) { try flow.apply(event) }
                    #expect(flow == state, "an illegal move changed the state")
                }
            }
        }
        #expect(moves == Self.table.count)
    }

    @Test("signed out never reaches the tabs but through sign-in")
    func noShortcut() {
        // Every path of at most four events from signedOut that ends in main passes signedIn.
        var frontier: [(SignInFlow, [String])] = [(.signedOut, [])]
        for _ in 0..<4 {
            frontier = frontier.flatMap { state, path in
                Self.events.compactMap { event in (try? state.after(event)).map { ($0, path + [event.name]) } }
            }
            for (state, path) in frontier where state == .main || state == .welcome {
                #expect(path.contains("signedIn"), "\(path)")
            }
        }
    }

    @Test("the stored form restores the same state; other names are invalid_state")
    func stored() throws {
        for state in SignInFlow.allCases {
            let data = try JSONEncoder().encode(state)
            #expect(String(decoding: data, as: UTF8.self) == #"{"state":"\#(state.rawValue)"}"#)
            #expect(try JSONDecoder().decode(SignInFlow.self, from: data) == state)
        }
        for text in [#"{"state":"onboarding"}"#, #"{"state":"Main"}"#, "{}"] {
            do {
                _ = try JSONDecoder().decode(SignInFlow.self, from: Data(text.utf8))
                Issue.record("\(text) restored")
            } catch let error as SignInFlowError {
                #expect(error.code == .invalidState)
            }
        }
    }
}
