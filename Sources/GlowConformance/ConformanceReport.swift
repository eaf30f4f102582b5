import Foundation

/// Summaries of a conformance run: per area and level for people, JUnit XML for CI systems (CONF-8).
package enum ConformanceReport {
    package static func summary(_ results: [ConformanceRunner.Result], testee: String) -> String {
        var out = "Conformance of \"\(testee)\": \(results.count) cases\n\n"
        let header = ["AREA", "LEVEL", "PASSED", "FAILED", "SKIPPED", "EXPECTED FAILURES"]
        var rows = [header]
        let areas = Array(Set(results.map(\.testCase.area))).sorted()
        for area in areas {
            for level in CorpusCase.Level.allCases {
                let group = results.filter { $0.testCase.area == area && $0.testCase.level == level }
                guard !group.isEmpty else { continue }
                let passed = group.filter(\.outcome.passed).count
                let skipped = group.filter { if case .skipped = $0.outcome { true } else { false } }.count
                rows.append([
                    area, level.rawValue, "\(passed)", "\(group.count - passed - skipped)", "\(skipped)",
                    "\(group.filter { $0.listed && !$0.outcome.passed }.count)",
                ])
            }
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            out +=
                row.indices.map { index in
                    index < 2
                        ? row[index].padding(toLength: widths[index], withPad: " ", startingAt: 0)
                        : String(repeating: " ", count: widths[index] - row[index].count) + row[index]
                }.joined(separator: "  ") + "\n"
        }
        let unexpected = results.filter(\.unexpectedFailure)
        let nowPassing = results.filter(\.unexpectedPass)
        out += "\n"
        // Wrong answers, crashes, hangs and malformed responses first; unlisted skips after them.
        let isSkip: (ConformanceRunner.Result) -> Bool = { if case .skipped = $0.outcome { true } else { false } }
        for (group, limit) in [(unexpected.filter { !isSkip($0) }, 200), (unexpected.filter(isSkip), 20)] {
            for result in group.prefix(limit) {
                out +=
                    "FAIL \(result.testCase.reference) (\(result.testCase.level.rawValue)) \(result.outcome.name): \(result.outcome.detail)\n"
            }
            if group.count > limit { out += "... and \(group.count - limit) more\n" }
        }
        for result in nowPassing.prefix(50) {
            out += "NOW PASSING \(result.testCase.reference): remove it from the failure list\n"
        }
        out += "\(unexpected.count) unexpected failures, \(nowPassing.count) listed cases now passing\n"
        return out
    }

    /// JUnit XML: a test suite per area, a test case per corpus case.
    package static func junit(_ results: [ConformanceRunner.Result]) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"glow-conformance\">\n"
        for area in Array(Set(results.map(\.testCase.area))).sorted() {
            let group = results.filter { $0.testCase.area == area }
            let failures = group.filter(\.unexpectedFailure).count
            let skipped = group.filter { !$0.outcome.passed && !$0.unexpectedFailure }.count
            out +=
                "  <testsuite name=\"\(escape(area))\" tests=\"\(group.count)\" failures=\"\(failures)\" skipped=\"\(skipped)\">\n"
            for result in group {
                let name = "\(escape(result.testCase.id))"
                let classname = "\(escape(area)).\(escape(result.testCase.operation))"
                out += "    <testcase name=\"\(name)\" classname=\"\(classname)\""
                if result.outcome.passed {
                    out += "/>\n"
                } else if result.unexpectedFailure {
                    out +=
                        ">\n      <failure type=\"\(result.outcome.name)\" message=\"\(escape(result.outcome.detail))\"/>\n    </testcase>\n"
                } else {
                    out +=
                        ">\n      <skipped message=\"expected failure (\(result.outcome.name)): \(escape(result.outcome.detail))\"/>\n    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                // XML 1.0 forbids most control characters even escaped.
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) {
                    out += "?"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
