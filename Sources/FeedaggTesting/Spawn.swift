import Foundation
import PosixSpawn
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A child process started with `posix_spawn`, its standard output and error on pipes.
///
/// Foundation's `Process.run()` on Linux lists `/proc/self/fd` to close the parent's descriptors
/// in the child, and that listing reads up to 256 bytes past the end of its directory buffer
/// (AddressSanitizer: heap-buffer-overflow in `findMaximumOpenFromProcSelfFD`). In a test process
/// with many descriptors and threads this crashed the whole test run now and then (SIGSEGV in
/// `__memcpy_avx512_unaligned_erms` under `Process.run()`). Spawning directly avoids it: our pipes
/// are created close-on-exec, so only standard input, output and error reach the child, and its
/// signal mask is cleared (a child spawned from a Dispatch worker would otherwise inherit a mask in
/// which SIGTERM is blocked).
struct SpawnedChild {
    let pid: pid_t
    /// Read ends, owned by the caller.
    let standardOutput: FileHandle
    let standardError: FileHandle

    /// Starts `executable` with exactly `arguments`, `environment` and working directory.
    static func start(
        _ executable: String, arguments: [String], environment: [String: String], currentDirectory: String?
    ) throws -> SpawnedChild {
        let output: (read: Int32, write: Int32)
        let errors: (read: Int32, write: Int32)
        switch PosixCalls.pipe() {
        case .success(let ends): output = ends
        case .failure(let error): throw ChildProcessError(error.description)
        }
        switch PosixCalls.pipe() {
        case .success(let ends): errors = ends
        case .failure(let error):
            close(output.read)
            close(output.write)
            throw ChildProcessError(error.description)
        }
        defer {
            // The child has its copies (as 1 and 2); the parent keeps only the read ends.
            close(output.write)
            close(errors.write)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errors.write, 2)
        if let currentDirectory, !PosixCalls.addChdir(&actions, currentDirectory) {
            throw ChildProcessError("posix_spawn_file_actions_addchdir_np is missing from this libc")
        }

        let (pid, status) = Self.spawn(executable, arguments: arguments, environment: environment, actions: &actions)
        guard status == 0 else {
            close(output.read)
            close(errors.read)
            throw ChildProcessError("posix_spawn \(executable): \(PosixCalls.describe(status))")
        }
        return SpawnedChild(
            pid: pid, standardOutput: FileHandle(fileDescriptor: output.read, closeOnDealloc: true),
            standardError: FileHandle(fileDescriptor: errors.read, closeOnDealloc: true))
    }

    /// Spawns `executable` (a path) with `arguments`, exactly `environment`, and `actions`, its
    /// signal mask cleared and SIGTERM, SIGPIPE, SIGINT and SIGCHLD at their default actions.
    ///
    /// - Parameter flags: `posix_spawnattr` flags added to `POSIX_SPAWN_SETSIGMASK |
    ///   POSIX_SPAWN_SETSIGDEF` (the terminal and the watchdog add `PosixCalls.spawnSetsid`).
    /// - Returns: The child's pid, and `posix_spawn`'s result (0, or an `errno` value).
    static func spawn(
        _ executable: String, arguments: [String], environment: [String: String],
        actions: inout posix_spawn_file_actions_t, flags: Int32 = 0
    ) -> (pid: pid_t, status: Int32) {
        PosixCalls.spawn(
            executable, arguments: [executable] + arguments, environment: environment, actions: &actions,
            defaultSignals: [SIGTERM, SIGPIPE, SIGINT, SIGCHLD], flags: flags)
    }

    /// Blocks until child `pid` ends; returns its exit status, or the signal that ended it.
    static func waitForExit(_ pid: pid_t) -> (status: Int32, bySignal: Bool) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? ((status >> 8) & 0xff, false) : (signal, true)
    }

    /// Waits for the child on a thread of its own (no Dispatch worker is parked) and reports its
    /// exit status, or the signal that ended it.
    func onExit(_ handler: @escaping @Sendable (_ status: Int32, _ bySignal: Bool) -> Void) {
        let pid = self.pid
        let thread = Thread {
            let exit = Self.waitForExit(pid)
            handler(exit.status, exit.bySignal)
        }
        thread.stackSize = 256 << 10
        thread.start()
    }
}
