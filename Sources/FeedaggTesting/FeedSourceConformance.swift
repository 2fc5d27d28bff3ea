public import FeedCore
import FeedReplay
import Foundation

/// Checks that a ``FeedSource`` conformer follows the rules its protocol documents.
///
/// Give it the type, the keys of one valid feed of that type, and sample pages (usually the
/// recorded fixtures of the source's tests); ``violations()`` lists every broken rule, and
/// ``check()`` throws them all at once:
///
/// ```swift
/// let conformance = FeedSourceConformance(
///     GitHubStargazersSource.self, parameters: ["owner": "apple", "repo": "swift"],
///     samplePages: try FeedSourceConformance.pages(fromFixtures: directory),
///     registeredTypeNames: SourceRegistry.builtIn.descriptors.map(\.typeName))
/// #expect(conformance.violations() == [])
/// ```
///
/// The rules checked:
/// - **unique type name**: lowercase words separated by dots, not a common key, registered exactly
///   once among `registeredTypeNames` (when given);
/// - **declared parameters**: unique names that do not redefine a common key; every key
///   ``FeedSource/init(feed:parameters:)`` reads is declared (unless the descriptor accepts
///   additional parameters); every required parameter missing makes the initialiser throw a
///   ``ConfigError``; a source built without a key that declares a ``ParameterSpec/default``
///   behaves as with the default written; sane page sizes and an absolute default base URL;
/// - **`base_url` honoured**: with two different base URLs (one with a path prefix), the first
///   page URL (also as the pagination strategy builds it, and the `since` variant) has that
///   origin and starts with that path;
/// - **`decodePage` has no side effects**: decoding each sample page twice, and with a fresh
///   instance, gives equal results; item ids are non-empty and unique within a page;
/// - **credentials only in `credentialHeaders`**: every `.secret` parameter is set to a
///   recognisable value, which must then appear in no URL (except under a query parameter the
///   engine redacts, ``Redaction/secretQueryParameters``), in no ``FeedSource/requestHeaders``
///   value, in no item and not in the source's printed description; `requestHeaders` carries no
///   credential header name.
public struct FeedSourceConformance: Sendable {
    /// The conformer under test.
    public var sourceType: any FeedSource.Type
    /// A valid feed's own keys (without `name` and `source`), as YAML scalars.
    public var parameters: [String: String]
    /// Pages ``FeedSource/decodePage(_:)`` must map.
    public var samplePages: [FetchedPage]
    /// Every registered type name (e.g. `SourceRegistry.builtIn.descriptors.map(\.typeName)`), or
    /// empty to skip the registration check.
    public var registeredTypeNames: [String]

    /// Creates a conformance check.
    /// - Parameters:
    ///   - sourceType: the conformer.
    ///   - parameters: the keys of a valid feed of this type (secret ones may be left out: the
    ///     check sets every `.secret` parameter itself).
    ///   - samplePages: pages to decode (at least one, or the decode rules are not checked).
    ///   - registeredTypeNames: the type names of the registry the source is meant to be part of.
    public init(
        _ sourceType: any FeedSource.Type, parameters: [String: String] = [:], samplePages: [FetchedPage] = [],
        registeredTypeNames: [String] = []
    ) {
        self.sourceType = sourceType
        self.parameters = parameters
        self.samplePages = samplePages
        self.registeredTypeNames = registeredTypeNames
    }

    /// The value every `.secret` parameter is set to, so a leak can be found by text search.
    public static let secretSentinel = "conformance-secret-5f3a9c"

    /// The responses recorded under `directory` (see ``FixtureStore``) as fetched pages, in file order.
    public static func pages(fromFixtures directory: String) throws -> [FetchedPage] {
        try FixtureStore.load(directory: directory).enumerated().compactMap { index, exchange in
            guard let url = URL(string: exchange.url), exchange.status == 200 else { return nil }
            var headers = HTTPHeaders()
            for field in exchange.responseHeaders where field.count == 2 { headers.add(field[0], field[1]) }
            return FetchedPage(
                number: index + 1, url: url,
                response: HTTPResponse(status: exchange.status, headers: headers, body: exchange.body, url: url))
        }
    }

    /// Throws a ``FeedSourceConformanceError`` listing every violation, if there is any.
    public func check() throws {
        let found = violations()
        if !found.isEmpty { throw FeedSourceConformanceError(typeName: sourceType.descriptor.typeName, violations: found) }
    }

    /// Every rule the conformer breaks, one sentence each; empty when it conforms.
    public func violations() -> [String] {
        var problems: [String] = []
        problems += typeNameViolations()
        problems += parameterViolations()
        problems += baseURLViolations()
        problems += decodeViolations()
        problems += credentialViolations()
        return problems
    }

    // MARK: - Building instances

    /// Two base URLs that differ in scheme, host, port and path.
    static let probeBaseURLs = ["https://conformance-a.example/api/v3", "http://127.0.0.1:9/prefix"]

    /// The parameters with every secret set to ``secretSentinel`` and `overrides` applied
    /// (`nil` removes a key).
    private func feedKeys(_ overrides: [String: String?] = [:]) -> [(String, String)] {
        var keys = parameters
        for spec in sourceType.descriptor.parameters where spec.kind == .secret {
            keys[spec.name] = Self.secretSentinel
        }
        for (key, value) in overrides { keys[key] = value }
        return keys.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Builds an instance over `keys` with `baseURL`, recording the keys it reads into `log`.
    private func make(
        baseURL: String? = nil, keys: [(String, String)], log: ParameterReadLog? = nil
    ) throws -> any FeedSource {
        let descriptor = sourceType.descriptor
        let parameters = Self.feedParameters(keys, feedName: "conformance", sourceType: descriptor.typeName, readLog: log)
        let base = URL(string: baseURL ?? descriptor.defaultBaseURL) ?? URL(fileURLWithPath: "/")
        let context = FeedContext(name: "conformance", baseURL: base, pageSize: descriptor.defaultPageSize)
        return try sourceType.init(feed: context, parameters: parameters)
    }

    /// A feed's parameters as the loader would give them for `name`, `source` and `keys` (scalars),
    /// located in a made-up `<test>` file, for building a source in a test without YAML.
    public static func feedParameters(
        _ keys: [String: String], feedName: String, sourceType: String, readLog: ParameterReadLog? = nil
    ) -> FeedParameters {
        feedParameters(keys.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, feedName: feedName,
            sourceType: sourceType, readLog: readLog)
    }

    static func feedParameters(
        _ keys: [(String, String)], feedName: String, sourceType: String, readLog: ParameterReadLog?
    ) -> FeedParameters {
        let text = (["- name: \(feedName)", "  source: \(sourceType)"] + keys.map { "  \($0.0): \($0.1)" })
            .joined(separator: "\n")
        let file = SourceFile(path: "<test>", text: text)
        func scalar(_ text: String, line: Int, column: Int) -> ConfigNode {
            ConfigNode(.scalar(text, plain: true), at: SourceLocation(file: file, line: line, column: column))
        }
        var entries: [(key: ConfigNode, value: ConfigNode)] = [
            (scalar("name", line: 1, column: 3), scalar(feedName, line: 1, column: 9)),
            (scalar("source", line: 2, column: 3), scalar(sourceType, line: 2, column: 11)),
        ]
        for (offset, (key, value)) in keys.enumerated() {
            entries.append(
                (scalar(key, line: offset + 3, column: 3), scalar(value, line: offset + 3, column: key.count + 5)))
        }
        let node = ConfigNode(.mapping(entries), at: SourceLocation(file: file, line: 1, column: 3))
        return FeedParameters(node: node, defaults: nil, feedName: feedName, sourceType: sourceType, readLog: readLog)
    }

    // MARK: - Rules

    private func typeNameViolations() -> [String] {
        let name = sourceType.descriptor.typeName
        var problems: [String] = []
        let words = name.split(separator: ".", omittingEmptySubsequences: false)
        let wellFormed =
            !name.isEmpty
            && words.allSatisfy { word in
                !word.isEmpty && word.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_" || $0 == "-") }
            }
        if !wellFormed {
            problems.append("type name '\(name)' is not lowercase words separated by dots (e.g. 'github.stargazers')")
        }
        if FeedContext.commonParameters.contains(where: { $0.name == name }) {
            problems.append("type name '\(name)' is a common feed key")
        }
        if !registeredTypeNames.isEmpty {
            let count = registeredTypeNames.filter { $0 == name }.count
            if count == 0 { problems.append("type name '\(name)' is not registered") }
            if count > 1 { problems.append("type name '\(name)' is registered \(count) times: it must be unique") }
        }
        return problems
    }

    private func parameterViolations() -> [String] {
        let descriptor = sourceType.descriptor
        var problems: [String] = []
        let names = descriptor.parameters.map(\.name)
        for name in Set(names) where names.filter({ $0 == name }).count > 1 {
            problems.append("parameter '\(name)' is declared more than once")
        }
        let common = Set(FeedContext.commonParameters.map(\.name))
        for name in names where common.contains(name) {
            problems.append("parameter '\(name)' redefines a key every feed accepts")
        }
        for spec in descriptor.parameters where spec.summary.isEmpty {
            problems.append("parameter '\(spec.name)' has no summary for `feedagg sources`")
        }
        if descriptor.summary.isEmpty { problems.append("the descriptor has no summary") }
        if descriptor.pagination.isEmpty { problems.append("the descriptor does not describe its pagination") }
        if !(1...descriptor.maxPageSize).contains(descriptor.defaultPageSize) {
            problems.append(
                "default page size \(descriptor.defaultPageSize) is not between 1 and the maximum \(descriptor.maxPageSize)")
        }
        if let url = URL(string: descriptor.defaultBaseURL), ["http", "https"].contains(url.scheme), url.host != nil {
        } else {
            problems.append("default base URL '\(descriptor.defaultBaseURL)' is not an absolute http(s) URL")
        }
        for key in parameters.keys where !names.contains(key) && !common.contains(key) {
            if descriptor.additionalParameters == nil {
                problems.append("the sample feed gives '\(key)', which is not a declared parameter")
            }
        }

        let log = ParameterReadLog()
        do {
            _ = try make(keys: feedKeys(), log: log)
        } catch {
            problems.append("the sample feed does not build: \(error)")
            return problems
        }
        if descriptor.additionalParameters == nil {
            for key in log.keys where !names.contains(key) && !common.contains(key) {
                problems.append("init(feed:parameters:) reads '\(key)', which is not a declared parameter")
            }
        }
        for spec in descriptor.parameters where spec.required {
            do {
                _ = try make(keys: feedKeys([spec.name: String?.none]))
                problems.append("required parameter '\(spec.name)' can be left out: init(feed:parameters:) did not throw")
            } catch is ConfigError {
            } catch {
                problems.append("without required parameter '\(spec.name)', init threw \(type(of: error)), not a ConfigError")
            }
        }
        return problems + defaultViolations()
    }

    /// Each declared default (``ParameterSpec/default``): a source built without the key behaves as
    /// one built with the default written (same description, URLs and headers).
    private func defaultViolations() -> [String] {
        var problems: [String] = []
        for spec in sourceType.descriptor.parameters {
            guard let value = spec.default else { continue }
            if spec.required { problems.append("required parameter '\(spec.name)' declares a default, which never applies") }
            let written: any FeedSource
            do { written = try make(keys: feedKeys([spec.name: value])) } catch {
                problems.append("the default '\(value)' of '\(spec.name)' is rejected: \(error)")
                continue
            }
            guard let absent = try? make(keys: feedKeys([spec.name: String?.none])) else {
                problems.append("without '\(spec.name)' the sample feed does not build, though it declares a default")
                continue
            }
            if Self.behaviour(absent) != Self.behaviour(written) {
                problems.append(
                    "without '\(spec.name)' the source differs from one with its declared default '\(value)' written")
            }
        }
        return problems
    }

    /// What two instances must share to behave alike: their description, URLs and headers.
    static func behaviour(_ source: any FeedSource) -> [String] {
        [
            String(reflecting: source), source.firstPageURL.absoluteString,
            source.pagination.firstPage(source.firstPageURL, pageSize: 7).absoluteString,
            "\(source.requestHeaders)", "\(source.credentialHeaders)",
        ]
    }

    private func baseURLViolations() -> [String] {
        var problems: [String] = []
        for base in Self.probeBaseURLs {
            guard let baseURL = URL(string: base), let source = try? make(baseURL: base, keys: feedKeys()) else {
                problems.append("the sample feed does not build with base_url \(base)")
                continue
            }
            var urls = [("firstPageURL", source.firstPageURL)]
            urls.append(("the pagination's first page", source.pagination.firstPage(source.firstPageURL, pageSize: 7)))
            if let since = source.firstPageURL(updatedSince: Date(timeIntervalSince1970: 1_700_000_000)) {
                urls.append(("firstPageURL(updatedSince:)", since))
            }
            for (label, url) in urls where !Self.url(url, isUnder: baseURL) {
                problems.append("\(label) \(url.absoluteString) ignores base_url \(base)")
            }
        }
        return problems
    }

    /// Whether `url` has `base`'s scheme, host and port and its path starts with `base`'s path.
    static func url(_ url: URL, isUnder base: URL) -> Bool {
        guard let candidate = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let root = URLComponents(url: base, resolvingAgainstBaseURL: true)
        else { return false }
        var prefix = root.percentEncodedPath
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let path = candidate.percentEncodedPath
        return candidate.scheme?.lowercased() == root.scheme?.lowercased()
            && candidate.host?.lowercased() == root.host?.lowercased() && candidate.port == root.port
            && (path == prefix || path.hasPrefix(prefix + "/") || prefix.isEmpty)
    }

    private func decodeViolations() -> [String] {
        guard !samplePages.isEmpty else { return ["no sample pages: decodePage was not checked"] }
        guard let first = try? make(keys: feedKeys()), let fresh = try? make(keys: feedKeys()) else {
            return []  // Reported by the parameter rules.
        }
        var problems: [String] = []
        for page in samplePages {
            let label = "page \(page.number) (\(Redaction.redact(page.url.absoluteString)))"
            do {
                let once = try first.decodePage(page)
                let twice = try first.decodePage(page)
                let other = try fresh.decodePage(page)
                if !Self.same(once, twice) {
                    problems.append("decoding \(label) twice gave different results: decodePage has side effects")
                }
                if !Self.same(once, other) {
                    problems.append("decoding \(label) depends on earlier calls: a fresh instance gave another result")
                }
                let ids = once.items.map(\.id)
                if ids.contains(where: \.isEmpty) { problems.append("\(label) has an item with an empty id") }
                if Set(ids).count != ids.count { problems.append("\(label) has duplicate item ids") }
            } catch {
                problems.append("decoding \(label) failed: \(error)")
            }
        }
        return problems
    }

    static func same(_ a: DecodedPage, _ b: DecodedPage) -> Bool {
        a.items == b.items && a.totals == b.totals && a.nextCursor == b.nextCursor
    }

    private func credentialViolations() -> [String] {
        guard let source = try? make(keys: feedKeys()) else { return [] }
        let secret = Self.secretSentinel
        var problems: [String] = []
        for field in source.requestHeaders {
            if Self.isCredentialName(field.name) {
                problems.append("requestHeaders carries '\(field.name)': credentials belong in credentialHeaders")
            }
            if field.value.contains(secret) {
                problems.append("requestHeaders '\(field.name)' carries a secret parameter: use credentialHeaders")
            }
        }
        var urls = [source.firstPageURL, source.pagination.firstPage(source.firstPageURL, pageSize: 7)]
        if let since = source.firstPageURL(updatedSince: Date(timeIntervalSince1970: 1_700_000_000)) {
            urls.append(since)
        }
        for url in urls where Redaction.redact(url.absoluteString).contains(secret) {
            problems.append(
                "\(url.absoluteString) carries a secret outside a redacted query parameter: use credentialHeaders")
        }
        // A URL the source stores may hold the secret under a query parameter the engine redacts.
        func unredacted(_ text: String) -> String {
            Redaction.secretQueryParameters.reduce(text) { text, name in
                text.replacingOccurrences(of: "\(name)=\(secret)", with: "\(name)=REDACTED")
            }
        }
        for text in [String(describing: source), String(reflecting: source)] where unredacted(text).contains(secret) {
            problems.append("the source's printed description shows a secret: hold it as a Secret")
            break
        }
        for page in samplePages {
            guard let decoded = try? source.decodePage(page) else { continue }
            if decoded.items.contains(where: { String(describing: $0).contains(secret) }) {
                problems.append("an item of page \(page.number) carries a secret parameter")
            }
        }
        return problems
    }

    /// Header names that carry credentials.
    static func isCredentialName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return Redaction.secretHeaders.contains(lower) || lower.contains("token") || lower.contains("secret")
            || lower.contains("key")
    }
}

/// A ``FeedSource`` conformer broke the rules ``FeedSourceConformance`` checks.
public struct FeedSourceConformanceError: Error, Sendable, CustomStringConvertible {
    /// The conformer's type name.
    public var typeName: String
    /// Every broken rule.
    public var violations: [String]

    public var description: String {
        "source type '\(typeName)' does not conform:\n" + violations.map { "  - \($0)" }.joined(separator: "\n")
    }
}
