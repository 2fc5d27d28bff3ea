public import Foundation
import FeedCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The built `feedagg` executable, for end-to-end tests of the command line.
///
/// `swift build --build-tests` builds it next to the test bundle (`<scratch>/debug/feedagg`),
/// whatever the scratch path, so it is looked for there first.
public enum TestBinary {
    /// The name of the environment variable that may name the executable explicitly.
    public static let overrideVariable = "FEEDAGG_TEST_BINARY"

    /// The built `feedagg` executable.
    ///
    /// Looked for, in order: `$FEEDAGG_TEST_BINARY`; beside the running test bundle
    /// (`Bundle.main`, then `CommandLine.arguments[0]`); then the newest `.build*/debug/feedagg`
    /// under the package root.
    /// - Throws: ``TestBinaryError`` listing every place looked at.
    public static var feedagg: URL {
        get throws { try locate("feedagg") }
    }

    /// Finds the built product `name` (see ``feedagg``).
    public static func locate(_ name: String) throws -> URL {
        let candidates = candidates(for: name)
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return found.resolvingSymlinksInPath()
        }
        throw TestBinaryError(
            "the '\(name)' executable was not found; build it first (`swift build --build-tests`). Looked at:\n"
                + candidates.map { "  \($0.path)" }.joined(separator: "\n"))
    }

    static func candidates(for name: String) -> [URL] {
        var directories: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment[overrideVariable], !explicit.isEmpty {
            return [URL(fileURLWithPath: explicit)]
        }
        // Linux: the bundle is the directory holding the test executable; macOS: `X.xctest`.
        let bundle = Bundle.main.bundleURL
        directories.append(bundle)
        directories.append(bundle.deletingLastPathComponent())
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            directories.append(executable.deletingLastPathComponent())
        }
        if let argument = CommandLine.arguments.first, argument.contains("/") {
            let executable = URL(fileURLWithPath: argument).resolvingSymlinksInPath()
            directories.append(executable.deletingLastPathComponent())
            // macOS: …/debug/X.xctest/Contents/MacOS/X
            directories.append(
                executable.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent())
        }
        var candidates = directories.map { $0.appendingPathComponent(name) }
        // Last resort: every scratch directory of the package, newest build first.
        let root = RepositoryPaths.root
        let scratch = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .filter { $0.hasPrefix(".build") }
            .map { root.appendingPathComponent($0).appendingPathComponent("debug").appendingPathComponent(name) }
            .filter { FileManager.default.isExecutableFile(atPath: $0.path) }
            .sorted { modificationDate($0) > modificationDate($1) }
        candidates += scratch
        var seen = Set<String>()
        return candidates.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }

    private static func modificationDate(_ url: URL) -> Date {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)
        return attributes?[.modificationDate] as? Date ?? .distantPast
    }

    /// The current environment without the variables feeds.yaml files commonly reference
    /// (`GITHUB_TOKEN`, `GH_TOKEN`, `PX_CONSUMER_KEY`) or that pick a configuration
    /// (`FEEDAGG_CONFIG`) or a store (`FEEDAGG_DB`, `PGPASSWORD`), so a developer's own credentials and files never leak into a test,
    /// and with `XDG_DATA_HOME` and `XDG_CACHE_HOME` in a temporary folder of this test process, so a
    /// test that does not pass `--db` never touches the developer's own store or cache.
    public static var cleanEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["GITHUB_TOKEN", "GH_TOKEN", "PX_CONSUMER_KEY", "FEEDAGG_CONFIG", "FEEDAGG_DB", "PGPASSWORD", overrideVariable] {
            environment[name] = nil
        }
        environment["XDG_DATA_HOME"] = testDataHome
        environment["XDG_CACHE_HOME"] = testCacheHome
        environment["XDG_CONFIG_HOME"] = testConfigHome
        return environment
    }

    /// `$TMPDIR/feedagg-tests-PID/cache`: where replay stores go for every test of this process
    /// (`pull --replay` keeps its store in the cache directory), never the developer's own.
    public static let testCacheHome: String = FileManager.default.temporaryDirectory
        .appendingPathComponent("feedagg-tests-\(ProcessInfo.processInfo.processIdentifier)/cache").path

    /// `$TMPDIR/feedagg-tests-PID/config`: an empty configuration home, so config discovery never
    /// finds the developer's own `~/.config/feedagg/feeds.yaml`.
    public static let testConfigHome: String = FileManager.default.temporaryDirectory
        .appendingPathComponent("feedagg-tests-\(ProcessInfo.processInfo.processIdentifier)/config").path

    /// `$TMPDIR/feedagg-tests-PID/data`: the default store's parent for every test of this process.
    public static let testDataHome: String = FileManager.default.temporaryDirectory
        .appendingPathComponent("feedagg-tests-\(ProcessInfo.processInfo.processIdentifier)/data").path

    /// Runs the built `feedagg` with `arguments` (see ``ChildProcess/run(_:arguments:environment:currentDirectory:timeout:)``).
    public static func runFeedagg(
        _ arguments: [String], environment: [String: String] = cleanEnvironment, currentDirectory: URL? = nil,
        timeout: Duration = .seconds(300), started: (@Sendable (Int32) -> Void)? = nil
    ) async throws -> ProcessOutput {
        try await ChildProcess.run(
            try feedagg, arguments: arguments, environment: environment, currentDirectory: currentDirectory,
            timeout: timeout, started: started)
    }
}

/// The built executable could not be found.
public struct TestBinaryError: Error, Sendable, CustomStringConvertible {
    /// What was looked for, and where.
    public var message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// What a finished child process produced.
public struct ProcessOutput: Sendable {
    /// The exit status (or the signal number, when ``terminatedBySignal``).
    public var status: Int32
    /// Whether the process was killed by a signal rather than exiting.
    public var terminatedBySignal: Bool
    /// Everything written to standard output.
    public var standardOutput: Data
    /// Everything written to standard error.
    public var standardError: Data

    /// Standard output as UTF-8 text.
    public var stdout: String { String(decoding: standardOutput, as: UTF8.self) }
    /// Standard error as UTF-8 text.
    public var stderr: String { String(decoding: standardError, as: UTF8.self) }

    /// A one-paragraph description, for test failure messages.
    public var summary: String {
        let status = terminatedBySignal ? "killed by signal \(self.status)" : "exit status \(self.status)"
        return "\(status)\n--- stdout (\(standardOutput.count) bytes):\n\(stdout.prefix(4_000))\n--- stderr:\n\(stderr.prefix(4_000))"
    }
}

/// Runs child processes with their output captured.
public enum ChildProcess {
    /// Runs `executable` to completion and returns its exit status and output.
    ///
    /// Standard output and standard error are read concurrently, each on its own thread, so a
    /// child that fills one pipe while the other is being read cannot deadlock. Standard input
    /// is `/dev/null`.
    /// - Parameters:
    ///   - environment: the child's whole environment.
    ///   - currentDirectory: its working directory (the test's own when `nil`).
    ///   - timeout: a safety net for a child that never ends: it is killed and an error thrown.
    ///   - started: called with the child's process id once it runs (to signal it meanwhile).
    public static func run(
        _ executable: URL, arguments: [String], environment: [String: String]? = nil, currentDirectory: URL? = nil,
        timeout: Duration = .seconds(300), started: (@Sendable (Int32) -> Void)? = nil
    ) async throws -> ProcessOutput {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let child: SpawnedChild
        do {
            child = try SpawnedChild.start(
                executable.path, arguments: arguments, environment: environment,
                currentDirectory: currentDirectory?.path)
        } catch {
            throw ChildProcessError("cannot run \(executable.path) \(arguments.joined(separator: " ")): \(error)")
        }
        started?(child.pid)
        let output = OutputCollector()
        let errors = OutputCollector()
        output.drain(child.standardOutput)
        errors.drain(child.standardError)
        // Nothing here blocks a Dispatch worker while the child runs: Dispatch's pool on Linux
        // replaces a blocked worker only slowly (about one a second), so tests that each parked a
        // worker for a child's lifetime starved the pool that also runs loopback servers' handlers.
        let exited = OneShot()
        let exitStatus = Mutex<(status: Int32, bySignal: Bool)>((0, false))
        child.onExit { status, bySignal in
            exitStatus.withLock { $0 = (status, bySignal) }
            exited.resolve(true)
        }

        let finished = await OneShot.resolves(exited, within: timeout)
        if !finished { _ = SystemSignal.send(SIGKILL, to: child.pid) }
        _ = await exited.value
        // The child has exited: its pipes reach end of file at once (unless it left children holding them).
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                output.waitForEnd()
                errors.waitForEnd()
                continuation.resume()
            }
            thread.start()
        }
        let (status, bySignal) = exitStatus.withLock { $0 }
        let result = ProcessOutput(
            status: status, terminatedBySignal: bySignal, standardOutput: output.data, standardError: errors.data)
        guard finished else {
            throw ChildProcessError(
                "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish within \(timeout) "
                    + "and was killed\n\(result.summary)")
        }
        return result
    }

}

extension OneShot {
    /// `true` when `exited` resolves (to `true`) within `timeout`, `false` when the time runs out
    /// first: how the test harness waits for a child before killing it.
    static func resolves(_ exited: OneShot, within timeout: Duration) async -> Bool {
        let timedOut = OneShot()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds) { timedOut.resolve(true) }
        let winner = OneShot()
        Task { if await exited.value { winner.resolve(true) } }
        Task { if await timedOut.value { winner.resolve(false) } }
        return await winner.value
    }
}

/// A boolean resolved once, by whichever side comes first; awaiting it blocks no thread.
final class OneShot: Sendable {
    private struct State {
        var value: Bool?
        var waiters: [CheckedContinuation<Bool, Never>] = []
    }

    private let state = Mutex(State())

    /// Sets the value unless it is already set, and resumes every waiter.
    func resolve(_ value: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            guard state.value == nil else { return [] }
            state.value = value
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    /// The value, once set.
    var value: Bool {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool? in
                    if let value = state.value { return value }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

/// `kill(2)`, under a name that does not clash with the `kill()` methods of the process types.
enum SystemSignal {
    static func send(_ signal: Int32, to pid: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.kill(pid, signal)
        #elseif canImport(Musl)
            Musl.kill(pid, signal)
        #else
            Darwin.kill(pid, signal)
        #endif
    }
}

/// A child process could not be run, or did not finish.
public struct ChildProcessError: Error, Sendable, CustomStringConvertible {
    /// What happened.
    public var message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
