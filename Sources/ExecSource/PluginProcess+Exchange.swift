import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension PluginProcess {
    /// Writes `input`, reads both outputs, and ends the run; blocks the calling thread (a thread of
    /// its own, see ``run(_:executable:input:)``). Called exactly once: it closes the three pipes.
    ///
    /// The run ends when the plugin has exited and both outputs reached end of file; when it exited
    /// but a process it left behind still holds a pipe after ``Limits/exitGrace``; at the timeout;
    /// past the output limit; or when ``wake()`` is called. Then the group is ended
    /// (``endGroup(reaped:killGrace:)``) and what is still buffered in the pipes is read.
    func exchange(input bytes: [UInt8], limits: Limits) -> Exchange {
        // A write to a pipe whose reader is gone raises SIGPIPE at this thread: blocked here, it is
        // taken back below, and the write fails with EPIPE (feedagg also ignores it process-wide).
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)

        var stdin: Int32? = input
        var stdout: Int32? = output
        var stderr: Int32? = errors
        defer { for fd in [stdin, stdout, stderr].compactMap({ $0 }) { close(fd) } }
        var written = 0
        var collected = Collected(maxOutput: limits.maxOutput, maxErrors: limits.maxErrors)
        var exit: (status: Int32, signaled: Bool)?
        var exitedAt: ContinuousClock.Instant?
        var ending: Ending?
        let clock = ContinuousClock()
        let deadline = clock.now + limits.timeout
        if bytes.isEmpty, let fd = stdin {
            close(fd)
            stdin = nil
        }

        while ending == nil {
            if exit == nil, let status = reap(blocking: false) {
                exit = status
                exitedAt = clock.now
            }
            if let exit, stdout == nil, stderr == nil {
                ending = .exited(status: exit.status, signaled: exit.signaled)
                break
            }
            let now = clock.now
            if let exit, let exitedAt, now - exitedAt >= limits.exitGrace {
                ending = .exited(status: exit.status, signaled: exit.signaled)
                break
            }
            if now >= deadline {
                ending = .timedOut
                break
            }
            // Pipes open: sleep until one is ready (at most 50 ms, to notice the exit); none open:
            // only the exit and the deadline are left to wait for.
            var wait = stdout == nil && stderr == nil ? Duration.milliseconds(10) : .milliseconds(50)
            wait = min(wait, deadline - now)
            if let exitedAt { wait = min(wait, limits.exitGrace - (now - exitedAt)) }
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            if let fd = stdin { fds.append(pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)) }
            if let fd = stdout { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            if let fd = stderr { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            let milliseconds = max(0, Int32(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000))
            let ready = poll(&fds, nfds_t(fds.count), milliseconds)
            if ready < 0 && errno != EINTR {
                ending = .timedOut
                break
            }
            guard ready > 0 else { continue }
            for entry in fds where entry.revents != 0 {
                if entry.fd == wakeRead {
                    ending = .cancelled
                } else if entry.fd == stdin {
                    if writeInput(bytes, from: &written, to: entry.fd, pipeSignal: &pipeSignal) {
                        close(entry.fd)
                        stdin = nil
                    }
                } else if entry.fd == stdout {
                    if case .ended = Self.read(entry.fd, into: &collected.output) {
                        close(entry.fd)
                        stdout = nil
                    }
                    if collected.output.count > limits.maxOutput { ending = .outputTooLarge }
                } else if entry.fd == stderr {
                    if case .ended = Self.read(entry.fd, into: &collected.errors) {
                        close(entry.fd)
                        stderr = nil
                    }
                    collected.trimErrors()
                }
            }
        }
        if let fd = stdin {
            close(fd)
            stdin = nil
        }
        endGroup(reaped: &exit, killGrace: limits.killGrace)
        // The group is gone: what it wrote before is still in the pipes (a plugin that exited on
        // its own keeps every byte of its answer).
        if case .exited = ending {
            if let fd = stdout { _ = Self.drain(fd, into: &collected.output, limit: limits.maxOutput) }
            if collected.output.count > limits.maxOutput { ending = .outputTooLarge }
            if let fd = stderr { _ = Self.drain(fd, into: &collected.errors, limit: Int.max) }
            collected.trimErrors()
        }
        return Exchange(ending: ending ?? .timedOut, output: collected.output, errors: collected.errorTail)
    }

    /// Writes what the pipe takes of `bytes` from `written`; `true` when the input is done: all
    /// written, or the plugin closed its standard input (EPIPE: not an error by itself).
    private func writeInput(_ bytes: [UInt8], from written: inout Int, to fd: Int32, pipeSignal: inout sigset_t) -> Bool {
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count > 0 {
                written += count
                continue
            }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return false }
            if code == EPIPE {
                // Take back the SIGPIPE this thread was sent (blocked), if the process does not ignore it.
                var none = timespec(tv_sec: 0, tv_nsec: 0)
                while sigtimedwait(&pipeSignal, nil, &none) == SIGPIPE {}
            }
            return true
        }
        return true
    }

    /// Whether a pipe is still open after a read.
    enum PipeState { case open, ended }

    /// Reads once from non-blocking `fd` into `buffer` (up to 64 KiB).
    static func read(_ fd: Int32, into buffer: inout [UInt8]) -> PipeState {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress!, $0.count) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return .open
            }
            if count == 0 { return .ended }
            let code = errno
            if code == EINTR { continue }
            return code == EAGAIN || code == EWOULDBLOCK ? .open : .ended
        }
    }

    /// Reads what `fd` holds now, until it is empty, ends, or `buffer` passes `limit`.
    static func drain(_ fd: Int32, into buffer: inout [UInt8], limit: Int) -> PipeState {
        while buffer.count <= limit {
            let before = buffer.count
            if case .ended = read(fd, into: &buffer) { return .ended }
            if buffer.count == before { return .open }
        }
        return .ended
    }

    /// Reaps the plugin (its exit status, or the signal that ended it); `nil` while it runs
    /// (`blocking: false`).
    func reap(blocking: Bool) -> (status: Int32, signaled: Bool)? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if result == pid { break }
            if result == -1 && errno == EINTR { continue }
            // 0: still running. -1 (ECHILD): someone else reaped it; nothing more can be known.
            return result == 0 ? nil : (status: -1, signaled: false)
        }
        let signal = status & 0x7f
        return signal == 0 ? (status: (status >> 8) & 0xff, signaled: false) : (status: signal, signaled: true)
    }

    /// Ends the plugin's process group and reaps the plugin: SIGTERM to the group, then SIGKILL
    /// after `killGrace` if anything of it is left. Nothing is waited for when the plugin already
    /// exited and left nothing behind (the common case).
    ///
    /// The group's id is the plugin's pid: while the plugin is unreaped (a zombie at worst), or any
    /// process of the group lives, that id cannot be given to another process, so the signals never
    /// reach a stranger.
    func endGroup(reaped exit: inout (status: Int32, signaled: Bool)?, killGrace: Duration) {
        if kill(-pid, SIGTERM) != 0 && errno == ESRCH {
            if exit == nil { exit = reap(blocking: true) }
            return
        }
        let clock = ContinuousClock()
        let killAt = clock.now + killGrace
        while clock.now < killAt {
            if exit == nil { exit = reap(blocking: false) }
            if exit != nil && kill(-pid, 0) != 0 && errno == ESRCH { return }
            usleep(10_000)
        }
        _ = kill(-pid, SIGKILL)
        if exit == nil { exit = reap(blocking: true) }
    }
}

/// Standard output and the tail of standard error, as they are read.
struct Collected {
    let maxOutput: Int
    let maxErrors: Int
    var output: [UInt8] = []
    var errors: [UInt8] = []
    var errorsCut = false

    /// Keeps standard error at most twice its limit while reading (its tail is what matters).
    mutating func trimErrors() {
        guard errors.count > 2 * maxErrors else { return }
        errors.removeFirst(errors.count - maxErrors)
        errorsCut = true
    }

    /// The last `maxErrors` bytes of standard error, starting at a line when it was cut (a partial
    /// first line could hold the end of a secret that redaction would no longer recognise).
    var errorTail: [UInt8] {
        guard errorsCut || errors.count > maxErrors else { return errors }
        let tail = errors.suffix(maxErrors)
        guard let newline = tail.firstIndex(of: 0x0A) else { return Array(tail) }
        return Array(tail[tail.index(after: newline)...])
    }
}
