public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A bench server (`../shared/bench/ghserver.py`) running in a child process on 127.0.0.1.
///
/// ```swift
/// let server = try await BenchServer.start(BenchServer.Options(orgs: [.init("big", repos: 1_000)]))
/// defer { server.stop() }
/// // … point a feed's base_url at server.baseURL …
/// let stats = try await server.stats()
/// ```
///
/// The server is started with `--port 0 --port-file <tmp>`; ``start(_:timeout:)`` returns once it
/// listens (it announces itself on standard error right after writing the port file), or throws a
/// ``BenchServerError`` quoting the server's standard error. ``stop()`` (also run by `deinit`)
/// terminates the process and waits for it. (It sends SIGKILL after SIGTERM: a child spawned from
/// a Dispatch worker thread inherits that thread's blocked signals, SIGTERM included, so SIGTERM
/// alone may never be delivered.)
public final class BenchServer: Sendable {
    /// One organization the server serves.
    public struct Organization: Sendable, Hashable {
        /// The login, e.g. `big`.
        public var name: String
        /// Repositories it owns.
        public var repos: Int
        /// Public members it has.
        public var members: Int

        /// Creates an organization description.
        public init(_ name: String, repos: Int, members: Int = 0) {
            self.name = name
            self.repos = repos
            self.members = members
        }
    }

    /// What the server serves: its command-line arguments, typed.
    public struct Options: Sendable, Hashable {
        /// Organizations given with `--org NAME:REPOS:MEMBERS`.
        public var orgs: [Organization]
        /// `--orgs N`: generated orgs `org1…orgN` (0 by default, unlike the server's 5).
        public var generatedOrgs: Int
        /// `--repos N`: repositories per generated org.
        public var reposPerGeneratedOrg: Int
        /// `--photos N`: photos per 500px feature.
        public var photos: Int
        /// `--public-gists N`.
        public var publicGists: Int
        /// `--latency-ms`: sleep before every API response.
        public var latencyMilliseconds: Int
        /// `--workers`: pre-started connection threads.
        public var workers: Int
        /// `--config FILE`: a JSON sizes file.
        public var configFile: String?
        /// Any further arguments, passed as given.
        public var extraArguments: [String]
        /// Run `Scripts/ghserver-sorted.py` around the server: every org's repositories listed by
        /// `updated_at`, newest first, as GitHub lists them for `sort=updated` (ghserver.py itself
        /// ignores `sort` and `direction`). Same data set otherwise.
        public var reposSortedByUpdate = false

        /// Creates options; the defaults make a small, fast-starting server.
        public init(
            orgs: [Organization] = [], generatedOrgs: Int = 0, reposPerGeneratedOrg: Int = 100, photos: Int = 200,
            publicGists: Int = 60, latencyMilliseconds: Int = 0, workers: Int = 32, configFile: String? = nil,
            extraArguments: [String] = []
        ) {
            self.orgs = orgs
            self.generatedOrgs = generatedOrgs
            self.reposPerGeneratedOrg = reposPerGeneratedOrg
            self.photos = photos
            self.publicGists = publicGists
            self.latencyMilliseconds = latencyMilliseconds
            self.workers = workers
            self.configFile = configFile
            self.extraArguments = extraArguments
        }

        /// The server's arguments (without `--port` and `--port-file`).
        public var arguments: [String] {
            var arguments = [
                "--orgs", String(generatedOrgs), "--repos", String(reposPerGeneratedOrg), "--photos", String(photos),
                "--public-gists", String(publicGists), "--latency-ms", String(latencyMilliseconds),
                "--workers", String(workers),
            ]
            for org in orgs { arguments += ["--org", "\(org.name):\(org.repos):\(org.members)"] }
            if let configFile { arguments += ["--config", configFile] }
            return arguments + extraArguments
        }
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public let baseURL: URL
    public let port: Int

    private let process: BackgroundProcess
    private let temporaryDirectory: TemporaryFolder
    private let stopped = Mutex(false)

    private init(process: BackgroundProcess, port: Int, temporaryDirectory: TemporaryFolder) {
        self.process = process
        self.port = port
        self.baseURL = URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
        self.temporaryDirectory = temporaryDirectory
    }

    deinit {
        stop()
    }

    /// Whether bench-server tests run: when the server and python3 are here, and always in CI,
    /// where a missing one fails the test (``start(_:timeout:)`` says what is missing) instead of
    /// skipping it (``TestPrerequisites``).
    public static var isAvailable: Bool {
        TestPrerequisites.runs(needing: RepositoryPaths.hasBenchServer && pythonPath != nil)
    }

    /// Why bench-server tests are skipped when ``isAvailable`` is false (never in CI).
    public static let unavailableReason =
        "needs python3 and ../shared/bench/ghserver.py beside the project (the loopback GitHub/500px imitation)"

    /// The first executable `python3` on `PATH`.
    static var pythonPath: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Starts a server with `options` and returns once it listens.
    ///
    /// - Parameter timeout: the longest wait for the server to listen (building the data set of
    ///   large orgs takes a moment); the process is killed if it is exceeded.
    /// - Throws: ``BenchServerError`` when python3 or the script is missing, the process exits
    ///   early, or it does not listen in time; the message quotes the server's standard error.
    public static func start(_ options: Options = Options(), timeout: Duration = .seconds(60)) async throws
        -> BenchServer
    {
        try await start(arguments: options.arguments, reposSortedByUpdate: options.reposSortedByUpdate, timeout: timeout)
    }

    /// `Scripts/ghserver-sorted.py` (see ``Options/reposSortedByUpdate``).
    public static var sortedWrapper: URL { RepositoryPaths.root.appendingPathComponent("Scripts/ghserver-sorted.py") }

    /// Starts a server with raw `arguments` (besides `--port 0 --port-file …`), through
    /// ``sortedWrapper`` when `reposSortedByUpdate`.
    public static func start(
        arguments: [String], reposSortedByUpdate: Bool = false, timeout: Duration = .seconds(60)
    ) async throws -> BenchServer {
        guard RepositoryPaths.hasBenchServer else {
            throw BenchServerError("bench server not found at \(RepositoryPaths.benchServer.path) (\(unavailableReason))")
        }
        guard let python = pythonPath else { throw BenchServerError("python3 is not on PATH") }
        let directory = try TemporaryFolder("feedagg-bench")
        let portFile = directory.url.appendingPathComponent("port")

        // posix_spawn, reaped by waitpid on a thread of its own (BackgroundProcess): Foundation's
        // Process once left an exited server unreaped in a test process, and its waitUntilExit()
        // then never returned (a CI run hung in BenchServer.stop()).
        let script = (reposSortedByUpdate ? [sortedWrapper.path] : []) + [RepositoryPaths.benchServer.path]
        let command = ["-u"] + script + ["--port", "0", "--port-file", portFile.path] + arguments
        let process: BackgroundProcess
        do {
            process = try BackgroundProcess.start(
                URL(fileURLWithPath: python), arguments: command, environment: ProcessInfo.processInfo.environment)
        } catch {
            directory.remove()
            throw BenchServerError("cannot run \(python): \(error)")
        }
        // The server announces itself on standard error right after writing the port file.
        let ready = await process.waitForStandardError(timeout: timeout) { $0.hasPrefix("ghserver: ") ? true : nil } ?? false
        func fail(_ message: String) async -> BenchServerError {
            process.kill()
            let output = try? await process.wait(timeout: .seconds(30))
            directory.remove()
            let stderr = (output?.stderr ?? process.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
            return BenchServerError(
                "\(message)\n  command: \(([python] + command).joined(separator: " "))"
                    + "\n  server stderr: \(stderr.isEmpty ? "(empty)" : stderr)")
        }
        guard ready else {
            throw await fail(
                process.hasExited
                    ? "bench server exited before listening"
                    : "bench server did not start listening within \(timeout)")
        }
        let written = (try? String(contentsOf: portFile, encoding: .utf8)) ?? ""
        guard let port = written.split(whereSeparator: { $0 == " " || $0.isNewline }).first.flatMap({ Int($0) }),
            (1...65_535).contains(port)
        else { throw await fail("bench server announced itself but its port file holds '\(written)'") }
        return BenchServer(process: process, port: port, temporaryDirectory: directory)
    }

    /// Everything the server has written to standard error so far.
    public var standardErrorText: String { process.stderr }

    /// The server's `/__stats` counters since start or the last ``reset()``.
    public func stats() async throws -> BenchStats {
        let (status, body) = try await ControlRequest.exchange(port: port, method: "GET", path: "/__stats")
        guard status == 200 else {
            throw BenchServerError("GET /__stats answered \(status): \(String(decoding: body, as: UTF8.self))")
        }
        return try BenchStats(json: body)
    }

    /// Zeroes the server's counters (`POST /__reset`).
    public func reset() async throws {
        let (status, body) = try await ControlRequest.exchange(port: port, method: "POST", path: "/__reset")
        guard status == 200 else {
            throw BenchServerError("POST /__reset answered \(status): \(String(decoding: body, as: UTF8.self))")
        }
    }

    /// Terminates the server and waits for it to exit (SIGTERM, then SIGKILL after 5 s; a child
    /// spawned from a Dispatch worker may have SIGTERM blocked). Idempotent.
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        process.send(SIGTERM)
        if !Self.waitForExit(process, upTo: .seconds(5)) {
            process.send(SIGKILL)
            _ = Self.waitForExit(process, upTo: .seconds(60))
        }
        temporaryDirectory.remove()
    }

    /// Blocks until `process` has exited (it is reaped by its own thread), at most `limit`.
    private static func waitForExit(_ process: BackgroundProcess, upTo limit: Duration) -> Bool {
        let deadline = ContinuousClock.now + limit
        while !process.hasExited {
            guard ContinuousClock.now < deadline else { return false }
            usleep(10_000)
        }
        return true
    }
}
