import FeedCore
import Testing

@testable import FeedConfig

@Suite("Environment interpolation")
struct InterpolationTests {
    static let environment = ["A": "alpha", "EMPTY": "", "N": "42"]

    struct Expansion: Sendable, CustomTestStringConvertible {
        var input: String
        var output: String
        var unset: [String] = []
        var testDescription: String { input }
    }

    static let expansions: [Expansion] = [
        Expansion(input: "plain", output: "plain"),
        Expansion(input: "${A}", output: "alpha"),
        Expansion(input: "x-${A}-${N}", output: "x-alpha-42"),
        Expansion(input: "${EMPTY}", output: ""),
        Expansion(input: "${MISSING}", output: "", unset: ["MISSING"]),
        Expansion(input: "https://${MISSING}/x/${OTHER}/${MISSING}", output: "", unset: ["MISSING", "OTHER"]),
        Expansion(input: "${MISSING:-fallback}", output: "fallback"),
        Expansion(input: "${EMPTY:-fallback}", output: "fallback"),
        Expansion(input: "${A:-fallback}", output: "alpha"),
        Expansion(input: "${MISSING:-}", output: ""),
        Expansion(input: "${A:?needed}", output: "alpha"),
        Expansion(input: "$$", output: "$"),
        Expansion(input: "$${A}", output: "${A}"),
        Expansion(input: "cost: $5 $", output: "cost: $5 $"),
        Expansion(input: "é${A}ü", output: "éalphaü"),
    ]

    @Test("expands", arguments: expansions)
    func expands(_ expansion: Expansion) throws {
        let file = SourceFile(path: "t.yaml", text: "k: \(expansion.input)")
        let location = SourceLocation(file: file, line: 1, column: 4)
        let result = try EnvironmentInterpolator(environment: Self.environment)
            .interpolate(expansion.input, at: location, anchoring: .inline(offset: 0))
        #expect(result.text == expansion.output)
        #expect(result.unset == expansion.unset)
    }

    @Test(
        "refuses",
        arguments: [
            ("${MISSING:?say why}", "environment variable MISSING is not set: say why", 4),
            ("${EMPTY:?}", "environment variable EMPTY is empty", 4),
            ("abc${A", "unterminated '${' in value (write '$$' for a literal '$')", 7),
            (
                "${}", "invalid environment variable reference '${}': expected ${NAME}, ${NAME:-default} or ${NAME:?message}",
                4
            ),
            (
                "x${1A}",
                "invalid environment variable reference '${1A}': expected ${NAME}, ${NAME:-default} or ${NAME:?message}",
                5
            ),
            (
                "${A-x}",
                "invalid environment variable reference '${A-x}': expected ${NAME}, ${NAME:-default} or ${NAME:?message}",
                4
            ),
        ])
    func refuses(_ input: String, _ message: String, _ column: Int) {
        let file = SourceFile(path: "t.yaml", text: "k: \(input)")
        let location = SourceLocation(file: file, line: 1, column: 4)
        #expect {
            try EnvironmentInterpolator(environment: Self.environment)
                .interpolate(input, at: location, anchoring: .inline(offset: 0))
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.message == message && error.location?.column == column
        }
    }

    @Test func keysAreNotInterpolated() throws {
        let file = SourceFile(path: "t.yaml", text: "${A}: ${A}\n")
        let root = try #require(
            try YAMLParser(file: file, environment: Self.environment).parse(Array("${A}: ${A}\n".utf8)))
        #expect(root.entries?.first?.key.scalar == "${A}")
        #expect(root.entries?.first?.value.scalar == "alpha")
    }

    @Test func unsetVariableMakesTheValueNull() throws {
        let text = "a: ${MISSING}\nb: \"${MISSING}\"\nc: ${EMPTY}\n"
        let file = SourceFile(path: "t.yaml", text: text)
        let root = try #require(try YAMLParser(file: file, environment: Self.environment).parse(Array(text.utf8)))
        #expect(root["a"]?.isNull == true)
        #expect(root["a"]?.unsetVariables == ["MISSING"])
        #expect(root["b"]?.isNull == true)
        #expect(root["c"]?.isNull == true)  // a set but empty variable in a plain scalar reads as null too
        #expect(root["c"]?.unsetVariables == [])
    }

    @Test func blockScalarErrorsPointAtTheNode() {
        #expect(
            renderedError("feeds:\n  - name: x\n    source: github.repos\n    org: |\n      ${ORG\n") == """
                feeds.yaml:4:10: error: unterminated '${' in value (write '$$' for a literal '$')
                      org: |
                           ^
                """)
    }
}
