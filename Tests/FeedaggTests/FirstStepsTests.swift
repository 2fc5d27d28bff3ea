import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Testing

// `feedagg init`, configuration discovery (issue 14, item 6) and where tokens come from (item 7),
// through the built binary in a sandbox (its own HOME and XDG folders).

/// A feeds.yaml of `count` github.members feeds on an unreachable port (validate never fetches).
private func members(_ count: Int) -> String {
    feedsYAML((1...count).map { "  - name: m\($0)\n    source: github.members\n    org: o\($0)\n    base_url: http://127.0.0.1:9" })
}

@Suite("First steps: init, configuration discovery, tokens")
struct FirstStepsTests {
    @Test("init writes a commented starter feeds.yaml with each source type's own example, valid as written; never overwrites")
    func initWritesAValidStarter() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let project = try sandbox.directory("p")
        let created = try await sandbox.run(["init"], in: project)
        #expect(created.status == 0, "\(created.summary)")
        // Every fact comes from the registry: a new source module needs no edit here.
        let declared = StarterConfig.feedCount()
        let commented = StarterConfig.commentedTypes()
        #expect(created.stdout.contains("wrote feeds.yaml: \(declared) example feeds, one per source type"), "\(created.summary)")
        let file = project.appendingPathComponent("feeds.yaml")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix("# feedagg feeds."))
        #expect(text.contains("token: ${GITHUB_TOKEN}"))
        for descriptor in SourceRegistry.builtIn.descriptors {
            #expect(text.contains("  # \(descriptor.typeName): \(descriptor.summary)\n"), "no example of \(descriptor.typeName)")
            if commented.contains(descriptor.typeName) {
                #expect(text.contains("  #   source: \(descriptor.typeName)\n"), "\(descriptor.typeName) is commented out")
            } else {
                #expect(text.contains("    source: \(descriptor.typeName)\n"), "no example feed of \(descriptor.typeName)")
            }
            for line in descriptor.example ?? [] { #expect(text.contains(line + "\n"), "\(descriptor.typeName): \(line)") }
        }
        // No comment says again what the type's summary says.
        let comments = text.split(separator: "\n").filter { $0.hasPrefix("  # ") }
        #expect(Set(comments).count == comments.count, "a comment line repeats")

        let validate = try await sandbox.run(["validate"], in: project)
        #expect(validate.status == 0, "\(validate.summary)")
        #expect(validate.stdout.hasPrefix("feeds.yaml: \(declared) feeds OK"), "\(validate.summary)")
        // Each source describes itself in its own terms: no internal placeholder URL.
        #expect(!validate.stdout.contains(".invalid"), "\(validate.stdout)")
        #expect(validate.stdout.contains("(feed): the document at https://"), "\(validate.stdout)")

        let again = try await sandbox.run(["init"], in: project)
        #expect(again.status == 2, "\(again.summary)")
        #expect(again.stderr.contains("feeds.yaml already exists: not overwriting it"), "\(again.summary)")
        #expect(try String(contentsOf: file, encoding: .utf8) == text, "the file is untouched")

        let positional = try await sandbox.run(["init", "other.yaml"], in: project)
        #expect(positional.status == 0 && FileManager.default.fileExists(atPath: project.appendingPathComponent("other.yaml").path))
        let option = try await sandbox.run(["init", "--config", "third.yaml"], in: project)
        #expect(option.status == 0 && FileManager.default.fileExists(atPath: project.appendingPathComponent("third.yaml").path))
        let validateOther = try await sandbox.run(["validate", "--config", "other.yaml"], in: project)
        #expect(validateOther.status == 0, "\(validateOther.summary)")
    }

    @Test("discovery: --config, else $FEEDAGG_CONFIG, else ./feeds.yaml, else $XDG_CONFIG_HOME, else ~/.config")
    func discoveryOrder() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let project = try sandbox.directory("p")
        let explicit = try sandbox.write("explicit.yaml", members(1))
        let named = try sandbox.write("named.yaml", members(2))
        try sandbox.write("p/feeds.yaml", members(3))
        let xdg = try sandbox.write("config/feedagg/feeds.yaml", members(4))
        let dotConfig = try sandbox.write("home/.config/feedagg/feeds.yaml", members(5))

        func validated(_ arguments: [String] = [], _ extra: [String: String?] = [:]) async throws -> String {
            let output = try await sandbox.run(["validate"] + arguments, in: project, environment: sandbox.environment(extra))
            #expect(output.status == 0, "\(output.summary)")
            return String(output.stdout.prefix { $0 != "\n" })
        }
        let withVariable: [String: String?] = ["FEEDAGG_CONFIG": named.path]
        #expect(try await validated(["--config", explicit.path], withVariable) == "\(explicit.path): 1 feed OK")
        #expect(try await validated([], withVariable) == "\(named.path): 2 feeds OK")
        #expect(try await validated() == "feeds.yaml: 3 feeds OK")
        try FileManager.default.removeItem(at: project.appendingPathComponent("feeds.yaml"))
        #expect(try await validated() == "\(xdg.path): 4 feeds OK")
        #expect(try await validated([], ["XDG_CONFIG_HOME": nil]) == "\(dotConfig.path): 5 feeds OK")
        // As the XDG spec says, a set XDG_CONFIG_HOME replaces ~/.config: no fallback to it.
        try FileManager.default.removeItem(at: xdg)
        let none = try await sandbox.run(["validate"], in: project)
        #expect(none.status == 2 && none.stderr.contains("no feeds.yaml found"), "\(none.summary)")
    }

    @Test("no feeds.yaml anywhere: the error says every place it looked and suggests `feedagg init`")
    func noConfigurationMessage() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let project = try sandbox.directory("p")
        for command in [["validate"], ["pull"], ["show"], ["feeds"], ["prune"]] {
            let output = try await sandbox.run(command, in: project)
            #expect(output.status == 2, "\(command): \(output.summary)")
            let lines = output.stderr
            #expect(lines.contains("error: no feeds.yaml found"), "\(command): \(output.summary)")
            #expect(lines.contains("--config (not given)") && lines.contains("$FEEDAGG_CONFIG (not set)"), "\(lines)")
            #expect(lines.contains("./feeds.yaml (in \(project.path))") || lines.contains("./feeds.yaml (in /"), "\(lines)")
            #expect(lines.contains("\(sandbox.configHome.path)/feedagg/feeds.yaml ($XDG_CONFIG_HOME)"), "\(lines)")
            #expect(lines.contains("help: create a starter file with `feedagg init`"), "\(lines)")
        }
        let missing = sandbox.root.appendingPathComponent("gone.yaml").path
        let named = try await sandbox.run(["validate"], in: project, environment: sandbox.environment(["FEEDAGG_CONFIG": missing]))
        #expect(named.status == 2 && named.stderr.contains("cannot read \(missing)"), "\(named.summary)")
    }

    @Test("GitHub feeds without a token use $GITHUB_TOKEN (else $GH_TOKEN), for api.github.com only; the value never prints")
    func environmentToken() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let log = RequestLog()
        let server = try await LoopbackHTTPServer.start { request in
            log.record(request)
            return LoopbackResponse(headers: [(name: "Content-Type", value: "application/json")], text: "[]")
        }
        let config = try sandbox.write(
            "p/feeds.yaml",
            """
            feeds:
              - name: github
                source: github.members
                org: acme
              - name: elsewhere
                source: github.members
                org: acme
                base_url: \(server.baseURL)
            """)
        let secret = "ghp_environment_secret_1234"
        for variable in ["GITHUB_TOKEN", "GH_TOKEN"] {
            let environment = sandbox.environment([variable: secret])
            let validate = try await sandbox.run(["validate", "--config", config.path], environment: environment)
            #expect(validate.status == 0, "\(validate.summary)")
            #expect(validate.stdout.contains("github (github.members): https://api.github.com, link pagination, 30 per page, token: $\(variable) (environment)"), "\(validate.summary)")
            #expect(validate.stdout.contains("elsewhere (github.members): \(server.baseURL), link pagination, 30 per page, no token\n"), "\(validate.summary)")
            let feeds = try await sandbox.run(["feeds", "--config", config.path, "--format", "json"], environment: environment)
            #expect(try feedList(feeds).map { $0["token"] as? String } == ["token: $\(variable) (environment)", "no token"])

            // `record --base-url` sends the api.github.com feed to the loopback server.
            let out = sandbox.root.appendingPathComponent("rec-\(variable)").path
            let record = try await sandbox.run(
                ["record", "--config", config.path, "--feed", "github", "--out", out, "--base-url", server.baseURL],
                environment: environment)
            #expect(record.status == 0, "\(record.summary)")
            let pull = try await sandbox.run(
                ["pull", "--config", config.path, "--feed", "elsewhere", "--db", sandbox.root.appendingPathComponent("s-\(variable).sqlite").path, "-v"],
                environment: environment)
            #expect(pull.status == 0, "\(pull.summary)")
            for output in [validate, feeds, record, pull] {
                #expect(!output.stdout.contains(secret) && !output.stderr.contains(secret), "the token leaked")
            }
        }
        try await server.shutdown()
        let authorizations = log.requests.map { request in
            request.headers.first { $0.name.lowercased() == "authorization" }?.value
        }
        #expect(authorizations.filter { $0 == "Bearer \(secret)" }.count == 2, "one recorded request per variable: \(authorizations)")
        #expect(authorizations.filter { $0 == nil }.count == 2, "the loopback base_url feed gets no implicit token")
        for file in try FileManager.default.subpathsOfDirectory(atPath: sandbox.root.path) {
            let path = sandbox.root.appendingPathComponent(file).path
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            #expect(!String(decoding: data, as: UTF8.self).contains(secret), "\(file) holds the token")
        }
    }

    @Test("token: ${GITHUB_TOKEN} unset while GH_TOKEN is set: the feed uses $GH_TOKEN, without a warning")
    func unsetGitHubTokenFallsBackToGHToken() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write(
            "p/feeds.yaml",
            "defaults:\n  token: ${GITHUB_TOKEN}\nfeeds:\n  - name: members\n    source: github.members\n    org: acme\n")
        let secret = "ghp_from_gh_token"
        let validate = try await sandbox.run(
            ["validate", "--config", config.path], environment: sandbox.environment(["GH_TOKEN": secret]))
        #expect(validate.status == 0, "\(validate.summary)")
        #expect(validate.stdout.contains("30 per page, token: $GH_TOKEN (environment)\n"), "\(validate.summary)")
        #expect(!validate.stderr.contains("warning"), "\(validate.summary)")
        let unset = try await sandbox.run(["validate", "--config", config.path])
        #expect(unset.stdout.contains("30 per page, no token (${GITHUB_TOKEN} is not set)\n"), "\(unset.summary)")
        #expect(unset.stderr.contains("warning: environment variable GITHUB_TOKEN is not set; feed 'members' runs without 'token'"))
        #expect(!validate.stdout.contains(secret) && !validate.stderr.contains(secret))
    }

    @Test("feeds and validate say where each token comes from; pull warns about unset, empty and literal tokens")
    func tokenOriginsAndWarnings() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let server = try await LoopbackHTTPServer.start { _ in
            LoopbackResponse(headers: [(name: "Content-Type", value: "application/json")], text: "[]")
        }
        let literal = "ghp_literal_written_in_the_file"
        let fileSecret = "ghp_secret_in_a_token_file"
        let tokenFile = try sandbox.write("p/token", fileSecret + "\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile.path)
        func feed(_ name: String, _ token: String?) -> String {
            "  - name: \(name)\n    source: github.members\n    org: acme\n    base_url: \(server.baseURL)"
                + (token.map { "\n    \($0)" } ?? "")
        }
        let config = try sandbox.write(
            "p/feeds.yaml",
            feedsYAML(
                feed("named", "token: ${MY_TOKEN}"), feed("typo", "token: ${GITHUB_TOKN}"), feed("empty", "token: ${EMPTY_TOKEN}"),
                feed("literal", "token: \(literal)"), feed("file", "token_file: token"), feed("none", nil)))
        let environment = sandbox.environment([
            "MY_TOKEN": "ghp_named_value", "GITHUB_TOKEN": "ghp_unused_here", "EMPTY_TOKEN": "",
        ])
        let feeds = try await sandbox.run(["feeds", "--config", config.path, "--format", "json"], environment: environment)
        #expect(feeds.status == 0, "\(feeds.summary)")
        #expect(
            try feedList(feeds).map { $0["token"] as? String } == [
                "token: ${MY_TOKEN}", "no token (${GITHUB_TOKN} is not set)", "no token (${EMPTY_TOKEN} is empty)",
                "token: literal in feeds.yaml", "token_file: token", "no token",
            ])
        let table = try await sandbox.run(["feeds", "--config", config.path], environment: environment)
        #expect(table.stdout.contains("TOKEN") && table.stdout.contains("token: ${MY_TOKEN}"), "\(table.summary)")

        let pull = try await sandbox.run(["pull", "-q", "--config", config.path], environment: environment)
        #expect(pull.status == 0, "\(pull.summary)")
        #expect(
            pull.stderr.contains(
                "feeds.yaml:11:12: warning: environment variable GITHUB_TOKN is not set; feed 'typo' runs without 'token' (did you mean $GITHUB_TOKEN?)"),
            "\(pull.summary)")
        #expect(
            pull.stderr.contains("warning: environment variable EMPTY_TOKEN is empty; feed 'empty' runs without 'token'"),
            "\(pull.summary)")
        #expect(
            pull.stderr.contains(
                "feeds.yaml:21:12: warning: 'token' is written in the file itself: store it in an environment variable"),
            "\(pull.summary)")
        let validate = try await sandbox.run(["validate", "--config", config.path], environment: environment)
        #expect(validate.stdout.contains("literal (github.members): \(server.baseURL), link pagination, 30 per page, token: literal in feeds.yaml"))
        for output in [feeds, table, pull, validate] {
            for secret in [literal, fileSecret, "ghp_named_value", "ghp_unused_here"] {
                #expect(!output.stdout.contains(secret) && !output.stderr.contains(secret), "\(secret) leaked")
            }
        }
        try await server.shutdown()
    }
}
