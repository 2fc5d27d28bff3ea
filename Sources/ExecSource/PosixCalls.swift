import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The few C calls ``PluginProcess`` needs that the Glibc module does not export (glibc's GNU
/// extensions), looked up once with `dlsym`, and small wrappers over the ones it does.
enum PosixCalls {
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
    static let spawnSetsid: Int32 = 0x80

    /// A pipe `(read, write)`, both ends close-on-exec from the start and numbered 3 or above (so a
    /// `dup2` onto 0, 1 or 2 in the child is never a no-op that keeps close-on-exec), or the `errno`.
    static func pipe() -> Result<(read: Int32, write: Int32), PosixError> {
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

    /// Makes `fd` non-blocking (the parent's ends only: the plugin's stay blocking).
    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Adds "change to `directory`" to `actions`; `false` when this libc cannot.
    static func addChdir(_ actions: inout posix_spawn_file_actions_t, _ directory: String) -> Bool {
        guard let addChdir else { return false }
        return addChdir(&actions, directory) == 0
    }

    /// Adds "close every descriptor from `lowest` up" to `actions` when this libc can (a descriptor
    /// some other part of the process opened without close-on-exec never reaches the plugin).
    static func addClosefrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) {
        if let addClosefrom { _ = addClosefrom(&actions, lowest) }
    }

    /// The text of `errno` value `code`.
    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// A failed system call: which, and its `errno`.
struct PosixError: Error, Sendable, CustomStringConvertible {
    /// The call, e.g. `pipe2`.
    var call: String
    /// Its `errno`.
    var code: Int32

    var description: String { "\(call): \(PosixCalls.describe(code))" }
}
