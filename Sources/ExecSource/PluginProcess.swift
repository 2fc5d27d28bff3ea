import Foundation
import PosixSpawn

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One run of a plugin executable: the child process, its pipes, its process group, its timeout
/// and its kill. Every way out of a run — exit, error, timeout, output flood, cancellation — ends
/// the whole process group (SIGTERM, then SIGKILL half a second later) and reaps the child.
///
/// The child is started with `posix_spawn`: no shell, the arguments as given, exactly the
/// plugin's environment, its working directory, a session (and process group) of its own, an
/// empty signal mask and every signal at its default action (feedagg ignores SIGPIPE; a plugin
/// must not inherit that). Only standard input, output and error reach it: every pipe is
/// close-on-exec and, where glibc can, every other descriptor is closed in the child.
///
/// The exchange (``exchange(input:limits:)``, in `PluginProcess+Exchange.swift`) runs on a thread
/// of its own with `poll()`, never on the Swift cooperative pool: it writes the request (a plugin
/// that does not read it is not an error by itself), reads standard output and error up to their
/// limits, stops at the timeout, and wakes up at once when the task is cancelled.
///
/// Ownership: the instance owns the parent's ends of the three pipes until
/// ``exchange(input:limits:)`` (called exactly once, by ``run(_:executable:input:)``) closes them,
/// and owns the wake-up pipe until `deinit`, so a late cancellation never writes to a reused
/// descriptor.
final class PluginProcess: Sendable {
    /// The plugin's process id: also its session and process group id.
    let pid: pid_t
    /// The write end of the plugin's standard input (non-blocking).
    let input: Int32
    /// The read end of its standard output (non-blocking).
    let output: Int32
    /// The read end of its standard error (non-blocking).
    let errors: Int32
    /// The wake-up pipe: a byte written makes the exchange see that its task was cancelled.
    let wakeRead: Int32
    private let wakeWrite: Int32

    private init(pid: pid_t, input: Int32, output: Int32, errors: Int32, wakeRead: Int32, wakeWrite: Int32) {
        self.pid = pid
        self.input = input
        self.output = output
        self.errors = errors
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Asks the exchange to stop (the task was cancelled). Safe at any time, any number of times.
    func wake() {
        var byte: UInt8 = 1
        _ = Foundation.write(wakeWrite, &byte, 1)
    }

    /// What the parts of a run are bounded by.
    struct Limits: Sendable {
        /// Longest time from start to the end of the exchange.
        var timeout: Duration
        /// Most bytes of standard output; one more ends the run.
        var maxOutput: Int
        /// Most bytes of standard error kept (its tail).
        var maxErrors: Int
        /// How long pipes a background child still holds are read after the plugin itself exited.
        var exitGrace: Duration = .milliseconds(200)
        /// How long the group has between SIGTERM and SIGKILL.
        var killGrace: Duration = .milliseconds(500)
    }

    /// How a run ended.
    enum Ending: Sendable, Equatable {
        /// The plugin exited with `status`, or was killed by signal `status` when `signaled`.
        case exited(status: Int32, signaled: Bool)
        case timedOut
        case outputTooLarge
        case cancelled
    }

    /// What a run produced: how it ended, standard output, and the tail of standard error.
    struct Exchange: Sendable {
        var ending: Ending
        var output: [UInt8]
        var errors: [UInt8]
    }

    /// Starts `plugin` (its executable at `executable`, an absolute path), writes `input` and
    /// collects its answer, off the cooperative pool. Returns when the run ended and the process
    /// group is gone; a cancelled task ends the run at once (``Ending/cancelled``).
    static func run(_ plugin: ExecPlugin, executable: String, input: Data) async throws(ExecRunner.Failure) -> Exchange {
        if Task.isCancelled { return Exchange(ending: .cancelled, output: [], errors: []) }
        let process = try spawn(plugin, executable: executable)
        let limits = Limits(timeout: plugin.timeout, maxOutput: plugin.maxOutputBytes, maxErrors: plugin.maxErrorBytes)
        let bytes = [UInt8](input)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Exchange, Never>) in
                let thread = Thread {
                    continuation.resume(returning: process.exchange(input: bytes, limits: limits))
                }
                thread.name = "feedagg plugin \(plugin.feedName)"
                thread.stackSize = 512 << 10
                thread.start()
            }
        } onCancel: {
            process.wake()
        }
    }

    /// Spawns the plugin; every descriptor is closed again when spawning fails.
    static func spawn(_ plugin: ExecPlugin, executable: String) throws(ExecRunner.Failure) -> PluginProcess {
        var opened: [Int32] = []
        func pipe() throws(ExecRunner.Failure) -> (read: Int32, write: Int32) {
            switch PosixCalls.pipe() {
            case .success(let ends):
                opened += [ends.read, ends.write]
                return ends
            case .failure(let error):
                for fd in opened { close(fd) }
                throw .cannotStart(error.description)
            }
        }
        let stdin = try pipe()
        let stdout = try pipe()
        let stderr = try pipe()
        let wake = try pipe()

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin.read, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout.write, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr.write, 2)
        guard PosixCalls.addChdir(&actions, plugin.directory) else {
            for fd in opened { close(fd) }
            throw .cannotStart("this C library cannot set a child's working directory (posix_spawn_file_actions_addchdir_np)")
        }
        PosixCalls.addClosefrom(&actions, 3)

        let (pid, status) = PosixCalls.spawn(
            executable, arguments: plugin.command, environment: plugin.environment, actions: &actions,
            defaultSignals: PosixCalls.catchableSignals, flags: PosixCalls.spawnSetsid)
        // The plugin has its copies (as 0, 1 and 2); the parent keeps only its own ends.
        for fd in [stdin.read, stdout.write, stderr.write] { close(fd) }
        guard status == 0 else {
            for fd in [stdin.write, stdout.read, stderr.read, wake.read, wake.write] { close(fd) }
            throw Self.failure(spawning: executable, directory: plugin.directory, code: status)
        }
        for fd in [stdin.write, stdout.read, stderr.read, wake.read, wake.write] { PosixCalls.setNonBlocking(fd) }
        return PluginProcess(
            pid: pid, input: stdin.write, output: stdout.read, errors: stderr.read, wakeRead: wake.read,
            wakeWrite: wake.write)
    }

    /// Why `posix_spawn` failed with `code`, in the plugin's terms: not found, not executable and
    /// not an executable format are permanent; a busy text file is tried again by ``ExecRunner``.
    static func failure(spawning executable: String, directory: String, code: Int32) -> ExecRunner.Failure {
        switch code {
        case ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG:
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue {
                return .notFound("its working directory \(directory) does not exist")
            }
            if access(executable, F_OK) == 0 {
                return .notFound("\(executable) exists, but the interpreter its #! line names does not")
            }
            return .notFound(executable)
        case EACCES, EPERM:
            return .notExecutable(executable)
        case ENOEXEC:
            return .badFormat(executable)
        case ETXTBSY:
            return .textFileBusy
        default:
            return .cannotStart("posix_spawn \(executable): \(PosixCalls.describe(code))")
        }
    }
}
