public import FeedSearch

/// What `feedagg filters` prints: each filter rule of the configuration with the stored items its
/// query matches (how many, and the first few titles in stream order), and how many entries the
/// stream shows with the rules and without them. Computed by ``Aggregator/previewFilters(_:)``;
/// nothing is changed.
public struct FilterPreview: Sendable {
    /// One rule and what it matches.
    public struct Rule: Sendable {
        /// The feed whose own rule it is, `nil` for a rule of every feed (`settings: filters:`).
        public var feed: String?
        /// The rule.
        public var rule: FilterRule
        /// The stored entries its query matches among the feeds it applies to (for a feed's own
        /// rule, that feed's; for a global one, every declared feed's).
        public var matches: Int
        /// The titles of the first ``FilterPreview/exampleCount`` of them, in stream order.
        public var examples: [String]

        /// Creates a rule's preview.
        public init(feed: String?, rule: FilterRule, matches: Int, examples: [String]) {
            self.feed = feed
            self.rule = rule
            self.matches = matches
            self.examples = examples
        }
    }

    /// How many example titles each rule shows.
    public static let exampleCount = 3

    /// The rules: the global ones first, then each feed's in file order.
    public var rules: [Rule]
    /// Entries the stream shows with the rules.
    public var shownWithRules: Int
    /// Entries the stream shows without them.
    public var shownWithoutRules: Int

    /// Creates a preview.
    public init(rules: [Rule], shownWithRules: Int, shownWithoutRules: Int) {
        self.rules = rules
        self.shownWithRules = shownWithRules
        self.shownWithoutRules = shownWithoutRules
    }
}

extension FilterRule.Action {
    /// `drop`, `keep` or `tag`.
    public var name: String {
        switch self {
        case .drop: "drop"
        case .keep: "keep"
        case .tag: "tag"
        }
    }

    /// The tag rule's label, `nil` for the others.
    public var label: String? {
        if case .tag(let label) = self { return label }
        return nil
    }
}

extension FilterPreview {
    /// The preview as text (titles and queries sanitised for the terminal, as every remote text
    /// feedagg prints is) or as one JSON document.
    ///
    /// JSON: `{"rules": [{"feed": null|NAME, "action": "drop"|"keep"|"tag", "tag": null|LABEL,
    /// "query": TEXT, "matches": N, "examples": [TITLE, …]}, …], "shown_with_rules": N,
    /// "shown_without_rules": N}`.
    public func rendered(_ format: OutputFormat) -> String {
        if format == .json || format == .jsonl {
            let objects = rules.map { preview -> JSON in
                .object([
                    ("feed", .optionalString(preview.feed)), ("action", .string(preview.rule.action.name)),
                    ("tag", .optionalString(preview.rule.action.label)), ("query", .string(preview.rule.text)),
                    ("matches", .int(preview.matches)), ("examples", .array(preview.examples.map(JSON.string))),
                ])
            }
            return JSON.object([
                ("rules", .array(objects)), ("shown_with_rules", .int(shownWithRules)),
                ("shown_without_rules", .int(shownWithoutRules)),
            ]).serialized() + "\n"
        }
        guard !rules.isEmpty else {
            return "No filter rules (settings: filters: or a feed's filters:, docs/query.md): the stream shows all "
                + Plural.of(shownWithoutRules, "entry", plural: "entries") + ".\n"
        }
        var lines: [String] = []
        var scope: String??
        for (number, preview) in rules.enumerated() {
            if scope != .some(preview.feed) {
                scope = .some(preview.feed)
                if !lines.isEmpty { lines.append("") }
                lines.append(preview.feed.map { "feed \(TerminalText.sanitized($0)):" } ?? "every feed (settings):")
            }
            let action =
                switch preview.rule.action {
                case .tag(let label): "tag \(TerminalText.sanitized(label)) when"
                default: preview.rule.action.name
                }
            let verb = preview.rule.action == .keep ? "keeps" : preview.rule.action == .drop ? "drops" : "labels"
            lines.append(
                "  \(number + 1). \(action) \(TerminalText.sanitized(preview.rule.text))"
                    + "  (\(verb) \(Plural.of(preview.matches, "stored item")) it matches)")
            for title in preview.examples { lines.append("       " + TerminalText.sanitized(title)) }
        }
        lines.append("")
        let hidden = shownWithoutRules - shownWithRules
        lines.append(
            "The stream shows \(shownWithRules) of \(Plural.of(shownWithoutRules, "entry", plural: "entries")) with these rules"
                + " (\(hidden) hidden); nothing is deleted.")
        return lines.joined(separator: "\n") + "\n"
    }
}
