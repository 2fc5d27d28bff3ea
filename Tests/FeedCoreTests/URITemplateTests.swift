import FeedCore
import FeedaggTesting
import Foundation
import Testing

/// One case of the uritemplate-test vectors (`../shared/realworld/uritemplate-test`).
struct TemplateCase: Sendable, CustomTestStringConvertible {
    /// `file › group › template`.
    var label: String
    var template: String
    var variables: [String: URITemplate.Value]
    /// Accepted expansions; empty when the template must fail.
    var accepted: [String]

    var testDescription: String { label }

    static let folder = RepositoryPaths.realworld.appendingPathComponent("uritemplate-test")
    static let files = ["spec-examples.json", "spec-examples-by-section.json"]
    static var isAvailable: Bool { FileManager.default.fileExists(atPath: folder.path) }

    /// Every case of every file, read in place.
    static func all() -> [TemplateCase] {
        guard isAvailable else { return [] }
        var cases: [TemplateCase] = []
        for file in files {
            guard let object = try? RepositoryPaths.json(folder.appendingPathComponent(file)) as? [String: Any] else {
                continue
            }
            for group in object.keys.sorted() {
                guard let body = object[group] as? [String: Any], let testcases = body["testcases"] as? [[Any]] else {
                    continue
                }
                let variables = (body["variables"] as? [String: Any] ?? [:]).compactMapValues(value)
                for testcase in testcases where testcase.count == 2 {
                    guard let template = testcase[0] as? String else { continue }
                    let accepted: [String] =
                        switch testcase[1] {
                        case let text as String: [text]
                        case let list as [String]: list
                        default: []
                        }
                    cases.append(
                        TemplateCase(
                            label: "\(file) › \(group) › \(template)", template: template, variables: variables,
                            accepted: accepted))
                }
            }
        }
        return cases
    }

    /// A Foundation JSON value as a template value (`null` is undefined, so dropped).
    static func value(_ any: Any) -> URITemplate.Value? {
        switch any {
        case let text as String: return .string(text)
        case let list as [Any]: return .list(list.map { "\($0)" })
        case let object as [String: Any]:
            return .associative(object.keys.sorted().map { URITemplate.Pair($0, "\(object[$0] ?? "")") })
        case is NSNull: return nil
        default: return .string("\(any)")
        }
    }
}

@Suite(
    "RFC 6570 URI templates",
    .enabled(if: TestPrerequisites.runs(needing: TemplateCase.isAvailable), "needs ../shared/realworld/uritemplate-test"))
struct URITemplateVectorTests {
    @Test("the vector files hold the expected number of cases")
    func caseCount() {
        #expect(TemplateCase.all().count == 64 + 117)
    }

    @Test("every uritemplate-test case", arguments: TemplateCase.all())
    func vector(_ testCase: TemplateCase) {
        if testCase.accepted.isEmpty {
            #expect(throws: URITemplateError.self, "\(testCase.template) must fail") {
                try URITemplate(testCase.template).expand(testCase.variables)
            }
            return
        }
        do {
            let expanded = try URITemplate(testCase.template).expand(testCase.variables)
            #expect(testCase.accepted.contains(expanded), "expanded to \(expanded); accepted: \(testCase.accepted)")
        } catch {
            Issue.record("\(testCase.template) failed: \(error)")
        }
    }
}

@Suite("URI template syntax errors")
struct URITemplateErrorTests {
    @Test(
        "malformed templates fail with the offset of the problem",
        arguments: [
            ("{+base_url/x", "'{' is not closed by '}'", 0),
            ("/x}", "'}' without a matching '{'", 2),
            ("/a/{}", "empty expression '{}'", 3),
            ("{=x}", "operator '=' is reserved for future extensions", 1),
            ("{x:0}", "a prefix modifier must be ':' followed by a length from 1 to 9999", 2),
            ("{x:10000}", "a prefix modifier must be ':' followed by a length from 1 to 9999", 2),
            ("{a b}", "character ' ' (space) is not allowed in a variable name", 2),
            ("/x y", "character ' ' (space) is not allowed in a URI template", 2),
            ("{a,}", "expected a variable name after ','", 3),
            ("{.a.}", "a variable name cannot end with '.'", 3),
            ("{a{b}", "'{' is not closed by '}' before the next '{'", 0),
            ("100%", "'%' must start a percent-encoded octet like %20", 3),
        ])
    func malformed(_ template: String, _ message: String, _ offset: Int) {
        #expect(throws: URITemplateError(message, offset: offset)) { try URITemplate(template) }
    }

    @Test("a prefix modifier on a list is an expansion error")
    func prefixOnList() {
        #expect(throws: URITemplateError("the prefix modifier ':1' cannot apply to 'list', which is a list", offset: 1)) {
            try URITemplate("{list:1}").expand(["list": .list(["a"])])
        }
    }

    @Test("variables are listed with their offsets")
    func variables() throws {
        let template = try URITemplate("{+base_url}/orgs/{org}/repos{?per_page,type}")
        #expect(template.variableNames == ["base_url", "org", "per_page", "type"])
        #expect(template.variables.map(\.offset) == [2, 18, 30, 39])
        #expect(
            try template.expand(["base_url": "http://127.0.0.1:8765", "org": "a b", "per_page": "100"])
                == "http://127.0.0.1:8765/orgs/a%20b/repos?per_page=100")
    }
}
