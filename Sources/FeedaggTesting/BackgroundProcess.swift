public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A child process that runs while the test talks to it (a server: `feedagg serve`), its standard
/// output and error on pipes, collected as they arrive. Signals can be sent to it; ``wait(timeout:)``
/// collects its exit status.
public final class BackgroundProcess: Sendable {
    /// The child's process id.
    public let pid: Int32
    private let output = OutputCollector()
    private let errors = OutputCollector()
    private let exitStatus = Mutex<(status: Int32, bySignal: Bool)?>(nil)
    private let exited = OneShot()

    private init(pid: Int32) {
        self.pid = pid
    }

    /// Starts `executable` with `arguments` and exactly `environment` (standard input `/dev/null`,
    /// its signal mask cleared).
    public static func start(
        _ executable: URL, arguments: [String], environment: [String: String], currentDirectory: URL? = nil
    ) throws -> BackgroundProcess {
        let child = try SpawnedChild.start(
            executable.path, arguments: arguments, environment: environment, currentDirectory: currentDirectory?.path)
        let process = BackgroundProcess(pid: child.pid)
        process.output.drain(child.standardOutput)
        process.errors.drain(child.standardError)
        child.onExit { status, bySignal in
            process.exitStatus.withLock { $0 = (status, bySignal) }
            process.exited.resolve(true)
        }
        return process
    }

    /// Everything written to standard output so far.
    public var stdout: String { output.text }
    /// Everything written to standard error so far.
    public var stderr: String { errors.text }
    /// Whether the child has exited.
    public var hasExited: Bool { exitStatus.withLock { $0 != nil } }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) {
        _ = SystemSignal.send(signal, to: pid)
    }

    /// Waits (checking every 20 ms) until standard error has a line matching `body`, and returns
    /// the first value `body` gives; `nil` when the child exits first or after `timeout`.
    public func waitForStandardError<T>(timeout: Duration = .seconds(60), _ body: (String) -> T?) async -> T? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let lines = stderr.split(separator: "\n").map(String.init)
            for line in lines { if let value = body(line) { return value } }
            if hasExited || ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits for the child to exit (killing it with SIGKILL after `timeout`) and returns its status
    /// and everything it wrote.
    public func wait(timeout: Duration = .seconds(60)) async throws -> ProcessOutput {
        let finished = await OneShot.resolves(exited, within: timeout)
        if !finished { send(SIGKILL) }
        _ = await exited.value
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread { [output, errors] in
                output.waitForEnd()
                errors.waitForEnd()
                continuation.resume()
            }
            thread.start()
        }
        let (status, bySignal) = exitStatus.withLock { $0 } ?? (0, false)
        let result = ProcessOutput(
            status: status, terminatedBySignal: bySignal, standardOutput: output.data, standardError: errors.data)
        guard finished else { throw ChildProcessError("the child did not exit within \(timeout) and was killed\n\(result.summary)") }
        return result
    }

    /// Ends the child if it still runs (SIGKILL): for a test's `defer`.
    public func kill() {
        if !hasExited { send(SIGKILL) }
    }
}
