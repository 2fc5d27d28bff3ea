public import Foundation
import FeedCore
import PosixSpawn
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A child process on a pseudo-terminal, as a user runs it in an interactive shell: its standard
/// input, output and error are the terminal (its controlling terminal, in a session of its own),
/// so `isatty` is true and `TIOCGWINSZ` answers the size given.
///
/// Everything the child writes is collected from the terminal's master side (with the terminal's
/// own output processing: `\n` arrives as `\r\n`). Signals can be sent to the child while it runs.
public final class TerminalProcess: Sendable {
    /// The child's process id.
    public let pid: Int32
    private let master: Int32
    private let collected = Mutex<[UInt8]>([])
    private let exitStatus = Mutex<(status: Int32, bySignal: Bool)>((0, false))
    private let exited = OneShot()
    private let drained = OneShot()

    private init(pid: Int32, master: Int32) {
        self.pid = pid
        self.master = master
    }

    /// Starts `executable` on a new pseudo-terminal `columns` × `rows` cells large.
    public static func start(
        _ executable: URL, arguments: [String], environment: [String: String], columns: Int = 100, rows: Int = 30
    ) throws -> TerminalProcess {
        guard let functions = PseudoTerminalFunctions.shared else {
            throw ChildProcessError("posix_openpt, grantpt, unlockpt or ptsname is missing from this libc")
        }
        let master = functions.open(O_RDWR | O_NOCTTY)
        guard master >= 0, functions.grant(master) == 0, functions.unlock(master) == 0, let name = functions.name(master)
        else {
            if master >= 0 { close(master) }
            throw ChildProcessError("cannot open a pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        let slavePath = String(cString: name)
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened after setsid (POSIX_SPAWN_SETSID): the terminal becomes the child's controlling one.
        posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        let (pid, status) = SpawnedChild.spawn(
            executable.path, arguments: arguments, environment: environment, actions: &actions, flags: PosixCalls.spawnSetsid)
        guard status == 0 else {
            close(master)
            throw ChildProcessError("posix_spawn \(executable.path): \(String(cString: strerror(status)))")
        }
        let process = TerminalProcess(pid: pid, master: master)
        process.startThreads()
        return process
    }

    private func startThreads() {
        let reader = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }  // EIO once the child and its descendants closed the terminal
                collected.withLock { $0 += buffer[0..<count] }
            }
            close(master)
            drained.resolve(true)
        }
        reader.start()
        let pid = self.pid
        let waiter = Thread { [self] in
            let exit = SpawnedChild.waitForExit(pid)
            exitStatus.withLock { $0 = exit }
            exited.resolve(true)
        }
        waiter.stackSize = 256 << 10
        waiter.start()
    }

    /// Everything the child wrote so far, as UTF-8 text (`\r\n` line ends, escape sequences as sent).
    public var text: String { String(decoding: collected.withLock { $0 }, as: UTF8.self) }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) {
        _ = SystemSignal.send(signal, to: pid)
    }

    /// Waits until the output contains `needle` (checked every 20 ms); `false` after `timeout`.
    public func waitForOutput(containing needle: String, timeout: Duration = .seconds(60)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if text.contains(needle) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return text.contains(needle)
    }

    /// Waits for the child to exit (killing it after `timeout`) and returns its status, and all it
    /// wrote as ``ProcessOutput/standardOutput`` (the terminal merges output and error).
    public func wait(timeout: Duration = .seconds(120)) async throws -> ProcessOutput {
        let finished = await OneShot.resolves(exited, within: timeout)
        if !finished { send(SIGKILL) }
        _ = await exited.value
        _ = await drained.value
        let (status, bySignal) = exitStatus.withLock { $0 }
        let output = ProcessOutput(
            status: status, terminatedBySignal: bySignal, standardOutput: Data(collected.withLock { $0 }),
            standardError: Data())
        guard finished else { throw ChildProcessError("the child on a terminal did not finish within \(timeout)\n\(output.summary)") }
        return output
    }
}

/// The XSI pseudo-terminal functions, which the Glibc module does not export: looked up once.
private struct PseudoTerminalFunctions: Sendable {
    typealias Open = @convention(c) (Int32) -> Int32
    typealias Control = @convention(c) (Int32) -> Int32
    typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    let open: Open
    let grant: Control
    let unlock: Control
    let name: Name

    static let shared: PseudoTerminalFunctions? = {
        let library = dlopen(nil, RTLD_NOW)
        guard let open = dlsym(library, "posix_openpt"), let grant = dlsym(library, "grantpt"),
            let unlock = dlsym(library, "unlockpt"), let name = dlsym(library, "ptsname")
        else { return nil }
        return PseudoTerminalFunctions(
            open: unsafeBitCast(open, to: Open.self), grant: unsafeBitCast(grant, to: Control.self),
            unlock: unsafeBitCast(unlock, to: Control.self), name: unsafeBitCast(name, to: Name.self))
    }()
}
