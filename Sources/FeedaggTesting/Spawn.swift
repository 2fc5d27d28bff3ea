import Foundation
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
        var output: [Int32] = [0, 0]
        var errors: [Int32] = [0, 0]
        guard Self.closeOnExecPipe(&output) == 0 else { throw ChildProcessError("pipe2: \(String(cString: strerror(errno)))") }
        guard Self.closeOnExecPipe(&errors) == 0 else {
            close(output[0])
            close(output[1])
            throw ChildProcessError("pipe2: \(String(cString: strerror(errno)))")
        }
        defer {
            // The child has its copies (as 1 and 2); the parent keeps only the read ends.
            close(output[1])
            close(errors[1])
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        if let currentDirectory {
            guard let addChdir = Self.addChdir else {
                throw ChildProcessError("posix_spawn_file_actions_addchdir_np is missing from this libc")
            }
            _ = addChdir(&actions, currentDirectory)
        }

        let (pid, status) = Self.spawn(executable, arguments: arguments, environment: environment, actions: &actions)
        guard status == 0 else {
            close(output[0])
            close(errors[0])
            throw ChildProcessError("posix_spawn \(executable): \(String(cString: strerror(status)))")
        }
        return SpawnedChild(
            pid: pid, standardOutput: FileHandle(fileDescriptor: output[0], closeOnDealloc: true),
            standardError: FileHandle(fileDescriptor: errors[0], closeOnDealloc: true))
    }

    // glibc's GNU extensions are not exported by the Glibc module: look them up once.
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    private typealias AddChdir =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let pipe2: Pipe2? = dlsym(dlopen(nil, RTLD_NOW), "pipe2").map {
        unsafeBitCast($0, to: Pipe2.self)
    }
    private static let addChdir: AddChdir? = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: AddChdir.self)
    }

    /// Spawns `executable` (a path) with `arguments`, exactly `environment`, and `actions`, its
    /// signal mask cleared and SIGTERM, SIGPIPE, SIGINT and SIGCHLD at their default actions.
    ///
    /// - Parameter flags: `posix_spawnattr` flags added to `POSIX_SPAWN_SETSIGMASK |
    ///   POSIX_SPAWN_SETSIGDEF` (the terminal adds `POSIX_SPAWN_SETSID`).
    /// - Returns: The child's pid, and `posix_spawn`'s result (0, or an `errno` value).
    static func spawn(
        _ executable: String, arguments: [String], environment: [String: String],
        actions: inout posix_spawn_file_actions_t, flags: Int32 = 0
    ) -> (pid: pid_t, status: Int32) {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGPIPE, SIGINT, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | flags))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        return (pid, status)
    }

    /// Blocks until child `pid` ends; returns its exit status, or the signal that ended it.
    static func waitForExit(_ pid: pid_t) -> (status: Int32, bySignal: Bool) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? ((status >> 8) & 0xff, false) : (signal, true)
    }

    /// A pipe whose both ends are close-on-exec from the start (`pipe2(O_CLOEXEC)`), so a child
    /// spawned meanwhile by another thread never inherits it.
    static func closeOnExecPipe(_ fds: inout [Int32]) -> Int32 {
        guard let pipe2 else { return -1 }
        return fds.withUnsafeMutableBufferPointer { pipe2($0.baseAddress!, O_CLOEXEC) }
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
