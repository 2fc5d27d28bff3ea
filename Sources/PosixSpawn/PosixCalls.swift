public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Starting a child with `posix_spawn`, and the few C calls around it that the Glibc module does
/// not export (glibc's GNU extensions, looked up once with `dlsym`), for every part of feedagg that
/// starts a process: exec plugins (`PluginProcess`) and the tests' children (`SpawnedChild`).
public enum PosixCalls {
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    private typealias AddChdir =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static let pipe2: Pipe2? = dlsym(dlopen(nil, RTLD_NOW), "pipe2").map { unsafeBitCast($0, to: Pipe2.self) }
    /// glibc 2.29+.
    private static let addChdir: AddChdir? = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: AddChdir.self)
    }
    /// glibc 2.34+.
    private static let addClosefrom: AddClosefrom? = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddClosefrom.self) }

    /// `POSIX_SPAWN_SETSID` (glibc 2.26+, a GNU extension the module does not export): the child
    /// calls `setsid()`, leading a new session and process group whose id is its pid.
    public static let spawnSetsid: Int32 = 0x80

    /// Every signal a process can catch or ignore (1 to 31 but SIGKILL and SIGSTOP).
    public static let catchableSignals: [Int32] = (Int32(1)...31).filter { $0 != SIGKILL && $0 != SIGSTOP }

    /// A pipe `(read, write)`, both ends close-on-exec from the start and numbered 3 or above (so a
    /// `dup2` onto 0, 1 or 2 in the child is never a no-op that keeps close-on-exec), or the `errno`.
    public static func pipe() -> Result<(read: Int32, write: Int32), PosixError> {
        guard let pipe2 else { return .failure(PosixError(call: "pipe2", code: ENOSYS)) }
        var fds: [Int32] = [-1, -1]
        let status = fds.withUnsafeMutableBufferPointer { pipe2($0.baseAddress!, O_CLOEXEC) }
        guard status == 0 else { return .failure(PosixError(call: "pipe2", code: errno)) }
        for index in 0..<2 where fds[index] < 3 {
            let moved = fcntl(fds[index], F_DUPFD_CLOEXEC, 3)
            let code = errno
            close(fds[index])
            fds[index] = moved
            guard moved >= 0 else {
                for fd in fds where fd >= 0 { close(fd) }
                return .failure(PosixError(call: "fcntl(F_DUPFD_CLOEXEC)", code: code))
            }
        }
        return .success((fds[0], fds[1]))
    }

    /// Makes `fd` non-blocking (the parent's ends only: a child's stay blocking).
    public static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Adds "change to `directory`" to `actions`; `false` when this libc cannot.
    public static func addChdir(_ actions: inout posix_spawn_file_actions_t, _ directory: String) -> Bool {
        guard let addChdir else { return false }
        return addChdir(&actions, directory) == 0
    }

    /// Adds "close every descriptor from `lowest` up" to `actions` when this libc can (a descriptor
    /// some other part of the process opened without close-on-exec never reaches the child).
    public static func addClosefrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) {
        if let addClosefrom { _ = addClosefrom(&actions, lowest) }
    }

    /// Spawns `executable` (a path) with `arguments` (its whole `argv`, `argv[0]` included), exactly
    /// `environment` (in name order) and `actions`, its signal mask empty and `defaultSignals` at
    /// their default action (a child must not inherit what its parent ignores or blocks).
    ///
    /// - Parameter flags: `posix_spawnattr` flags added to `POSIX_SPAWN_SETSIGMASK |
    ///   POSIX_SPAWN_SETSIGDEF` (``spawnSetsid`` for a session and process group of its own).
    /// - Returns: The child's pid, and `posix_spawn`'s result (0, or an `errno` value).
    public static func spawn(
        _ executable: String, arguments: [String], environment: [String: String],
        actions: inout posix_spawn_file_actions_t, defaultSignals: [Int32], flags: Int32 = 0
    ) -> (pid: pid_t, status: Int32) {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in defaultSignals { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | flags))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        return (pid, status)
    }

    /// The text of `errno` value `code`.
    public static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// A failed system call: which, and its `errno`.
public struct PosixError: Error, Sendable, CustomStringConvertible {
    /// The call, e.g. `pipe2`.
    public var call: String
    /// Its `errno`.
    public var code: Int32

    /// `call: strerror(code)`.
    public var description: String { "\(call): \(PosixCalls.describe(code))" }
}
