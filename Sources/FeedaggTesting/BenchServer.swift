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
    /// The port the server listens on.
    public let port: Int

    private let process: Process
    private let standardError: OutputCollector
    private let temporaryDirectory: URL
    private let stopped = Mutex(false)

    private init(process: Process, port: Int, standardError: OutputCollector, temporaryDirectory: URL) {
        self.process = process
        self.port = port
        self.baseURL = URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
        self.standardError = standardError
        self.temporaryDirectory = temporaryDirectory
    }

    deinit {
        stop()
    }

    /// Whether `../shared/bench/ghserver.py` exists and a `python3` is on `PATH`.
    public static var isAvailable: Bool {
        RepositoryPaths.hasBenchServer && pythonPath != nil
    }

    /// Why bench-server tests are skipped when ``isAvailable`` is false.
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
            throw BenchServerError("bench server not found at \(RepositoryPaths.benchServer.path)")
        }
        guard let python = pythonPath else { throw BenchServerError("python3 is not on PATH") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "feedagg-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let portFile = directory.appendingPathComponent("port")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        let script = (reposSortedByUpdate ? [sortedWrapper.path] : []) + [RepositoryPaths.benchServer.path]
        process.arguments = ["-u"] + script + ["--port", "0", "--port-file", portFile.path] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errorPipe = Pipe()
        process.standardError = errorPipe
        let collector = OutputCollector(readyMarker: "ghserver: ")
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw BenchServerError("cannot run \(python): \(error)")
        }
        collector.drain(errorPipe.fileHandleForReading)
        try? errorPipe.fileHandleForWriting.close()

        let ready = await collector.waitUntilReady(timeout: timeout)
        func fail(_ message: String) -> BenchServerError {
            ChildProcess.kill(process)
            process.waitUntilExit()
            collector.waitForEnd()
            try? FileManager.default.removeItem(at: directory)
            let stderr = collector.text.trimmingCharacters(in: .whitespacesAndNewlines)
            return BenchServerError(
                "\(message)\n  command: \(([python] + (process.arguments ?? [])).joined(separator: " "))"
                    + "\n  server stderr: \(stderr.isEmpty ? "(empty)" : stderr)")
        }
        guard ready else {
            throw fail(
                process.isRunning
                    ? "bench server did not start listening within \(timeout)"
                    : "bench server exited before listening (status \(process.terminationStatus))")
        }
        let written = (try? String(contentsOf: portFile, encoding: .utf8)) ?? ""
        guard let port = written.split(whereSeparator: { $0 == " " || $0.isNewline }).first.flatMap({ Int($0) }),
            (1...65_535).contains(port)
        else { throw fail("bench server announced itself but its port file holds '\(written)'") }
        return BenchServer(process: process, port: port, standardError: collector, temporaryDirectory: directory)
    }

    /// Everything the server has written to standard error so far.
    public var standardErrorText: String { standardError.text }

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

    /// Terminates the server and waits for it to exit. Idempotent.
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        ChildProcess.kill(process)
        process.waitUntilExit()
        standardError.waitForEnd()
        try? FileManager.default.removeItem(at: temporaryDirectory)
    }
}

/// A bench server that could not be started or queried.
public struct BenchServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, with the server's standard error when relevant.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// The bench server's `/__stats` counters.
public struct BenchStats: Sendable {
    /// The JSON document as received.
    public let raw: Data
    /// API requests (control endpoints excluded).
    public let requests: Int
    /// Requests per route template (`/orgs/{org}/repos`, `/organizations/{id}/repos`, `404`, …).
    public let byRoute: [String: Int]
    /// Requests per path.
    public let byPath: [String: Int]
    /// Responses per status code (as a string).
    public let byStatus: [String: Int]
    /// The most API requests in flight at once.
    public let maxInFlight: Int
    /// Requests that carried `If-None-Match`.
    public let ifNoneMatch: Int
    /// 304 responses.
    public let notModified: Int
    /// TCP connections accepted.
    public let connectionsOpened: Int

    /// Parses a `/__stats` body.
    public init(json: Data) throws {
        guard let object = try JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw BenchServerError("/__stats is not a JSON object: \(String(decoding: json.prefix(200), as: UTF8.self))")
        }
        func integer(_ key: String) throws -> Int {
            guard let value = object[key] as? Int else { throw BenchServerError("/__stats has no integer '\(key)'") }
            return value
        }
        func counts(_ key: String) -> [String: Int] {
            (object[key] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
        }
        raw = json
        requests = try integer("requests")
        maxInFlight = try integer("max_in_flight")
        ifNoneMatch = try integer("if_none_match")
        notModified = try integer("not_modified_304")
        connectionsOpened = try integer("connections_opened")
        byRoute = counts("by_route")
        byPath = counts("by_path")
        byStatus = counts("by_status")
    }

    /// The whole document as Foundation objects, for fields without a typed property.
    public func object() throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: raw) as? [String: Any] ?? [:]
    }
}

// MARK: - Child process output

/// Reads a pipe to its end on a thread of its own, keeping everything read, and tells waiters
/// when a marker line has appeared (or the pipe has ended).
final class OutputCollector: Sendable {
    private struct State {
        var data = Data()
        var ready = false
        var ended = false
        var gaveUp = false
        var readyWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let endSignal = DispatchSemaphore(value: 0)
    private let readyMarker: String?

    init(readyMarker: String? = nil) {
        self.readyMarker = readyMarker
    }

    /// Everything read so far, as UTF-8.
    var text: String { state.withLock { String(decoding: $0.data, as: UTF8.self) } }

    /// Everything read so far.
    var data: Data { state.withLock { $0.data } }

    /// Starts reading `handle` until end of file on a dedicated thread.
    func drain(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                append(chunk)
            }
            finish()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func append(_ chunk: Data) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.data.append(chunk)
            guard !state.ready, let marker = readyMarker else { return [] }
            let text = String(decoding: state.data, as: UTF8.self)
            // Ready once a whole line starting with the marker has arrived.
            let found = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().contains {
                $0.hasPrefix(marker)
            }
            guard found else { return [] }
            state.ready = true
            defer { state.readyWaiters = [] }
            return state.readyWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func finish() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.ended = true
            defer { state.readyWaiters = [] }
            return state.readyWaiters
        }
        for waiter in waiters { waiter.resume() }
        endSignal.signal()
    }

    /// Waits until the marker line has been read (true), or the pipe ended or `timeout` passed (false).
    func waitUntilReady(timeout: Duration) async -> Bool {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = self.state.withLock { state -> Bool in
                        if state.ready || state.ended || state.gaveUp { return true }
                        state.readyWaiters.append(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
            group.addTask {
                // A deadline for a child process that never answers, not a timing assumption.
                try? await Task.sleep(for: timeout)
            }
            await group.next()
            group.cancelAll()
            // Release the waiter if the deadline won, so the group can finish.
            let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.gaveUp = true
                defer { state.readyWaiters = [] }
                return state.readyWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
        return state.withLock { $0.ready }
    }

    /// Blocks until the pipe has ended (the child closed it, normally by exiting). Idempotent.
    func waitForEnd() {
        endSignal.wait()
        endSignal.signal()
    }
}

// MARK: - A minimal HTTP/1.1 client for the control endpoints

/// One request on a fresh connection to 127.0.0.1, read to the end (`Connection: close`).
///
/// FeedaggTesting does not depend on the libcurl client, and the control endpoints need nothing
/// more than this. The blocking socket work runs on a Dispatch thread, not the cooperative pool.
enum ControlRequest {
    static func exchange(port: Int, method: String, path: String, timeoutSeconds: Int = 30) async throws
        -> (status: Int, body: Data)
    {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result { try blockingExchange(port: port, method: method, path: path, timeoutSeconds: timeoutSeconds) })
            }
        }
    }

    private static func blockingExchange(port: Int, method: String, path: String, timeoutSeconds: Int) throws
        -> (status: Int, body: Data)
    {
        func failure(_ what: String) -> BenchServerError {
            BenchServerError("\(method) http://127.0.0.1:\(port)\(path): \(what): \(String(cString: strerror(errno)))")
        }
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw failure("socket") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw failure("connect") }

        let request = Array(
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                .utf8)
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw failure("send") }
            sent += count
        }

        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw failure("recv") }
            if count == 0 { break }
            response.append(contentsOf: buffer[0..<count])
        }

        let separator = Data("\r\n\r\n".utf8)
        guard let headEnd = response.range(of: separator) else {
            throw BenchServerError("\(method) \(path): malformed response (\(response.count) bytes, no header end)")
        }
        let head = String(decoding: response[..<headEnd.lowerBound], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw BenchServerError("\(method) \(path): malformed status line '\(statusLine)'")
        }
        var body = Data(response[headEnd.upperBound...])
        for line in head.split(separator: "\r\n").dropFirst() {
            let field = line.split(separator: ":", maxSplits: 1)
            if field.count == 2, field[0].lowercased() == "content-length",
                let length = Int(field[1].trimmingCharacters(in: .whitespaces)), length <= body.count
            {
                body = body.prefix(length)
            }
        }
        return (status, body)
    }
}
