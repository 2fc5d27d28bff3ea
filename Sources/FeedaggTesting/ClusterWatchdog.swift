import Foundation
import PosixSpawn
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Stops a throwaway cluster and deletes its folder when the test process ends, however it ends.
///
/// A small `/bin/sh` process, in a session of its own (a Ctrl-C to the test's process group does
/// not reach it) and ignoring SIGINT, SIGHUP and SIGTERM, reads a pipe whose only write end this
/// process holds (close-on-exec, so no other child inherits it). The pipe reaches end of file
/// when this process closes it (``fire()``) or exits, killed by SIGKILL included; the watchdog
/// then stops the server (`pg_ctl stop -m immediate`), waits for any `initdb` or `pg_ctl` still
/// working on the folder, and removes it. It is started before the folder is even created, so a
/// test process that dies while the cluster starts leaves nothing behind.
final class ClusterWatchdog: Sendable {
    private let pid: pid_t
    private let writeEnd: Mutex<Int32?>
    private let exited = OneShot()

    private init(pid: pid_t, writeEnd: Int32) {
        self.pid = pid
        self.writeEnd = Mutex(writeEnd)
    }

    /// Starts the watchdog of `folder`, which runs `pgControl` (an executable and its arguments
    /// that run `pg_ctl`) with `stop -D FOLDER/data -m immediate`, and then deletes `folder`.
    static func start(folder: String, pgControl stop: (executable: URL, arguments: [String])) throws(PostgresClusterError)
        -> ClusterWatchdog
    {
        let fds: (read: Int32, write: Int32)
        switch PosixCalls.pipe() {
        case .success(let ends): fds = ends
        case .failure(let error): throw PostgresClusterError("cannot create the watchdog's pipe: \(error)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds.read, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // The folder's data directory is in the command line of every program that works on it
        // (initdb, pg_ctl, the server), and not in the watchdog's own (it builds the path itself).
        // A test process killed while initdb or `pg_ctl start` runs leaves them running: wait for
        // them (killing them after a minute), stopping the server each round, then delete.
        let script = """
            trap '' INT HUP TERM QUIT PIPE
            folder=$1; shift
            cat >/dev/null
            rounds=0
            while :; do
              "$@" stop -s -D "$folder/data" -m immediate >/dev/null 2>&1
              pgrep -f -- "$folder/data" >/dev/null || break
              rounds=$((rounds + 1))
              if [ "$rounds" -ge 300 ]; then pkill -KILL -f -- "$folder/data"; sleep 1; break; fi
              sleep 0.2
            done
            rm -rf -- "$folder"
            """
        let (pid, status) = SpawnedChild.spawn(
            "/bin/sh", arguments: ["-c", script, "feedagg-pg-watchdog", folder, stop.executable.path] + stop.arguments,
            environment: ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL": "C"], actions: &actions,
            flags: PosixCalls.spawnSetsid)
        close(fds.read)
        guard status == 0 else {
            close(fds.write)
            throw PostgresClusterError("cannot start the cluster's watchdog (/bin/sh): \(String(cString: strerror(status)))")
        }
        let watchdog = ClusterWatchdog(pid: pid, writeEnd: fds.write)
        let thread = Thread { [watchdog] in
            _ = SpawnedChild.waitForExit(pid)
            watchdog.exited.resolve(true)
        }
        thread.stackSize = 256 << 10
        thread.start()
        return watchdog
    }

    /// Tells the watchdog to stop the cluster now (closes the pipe); idempotent.
    func fire() {
        let fd = writeEnd.withLock { fd -> Int32? in
            defer { fd = nil }
            return fd
        }
        if let fd { close(fd) }
    }

    /// Returns once the watchdog has stopped the cluster, removed the folder and exited.
    func waitUntilDone() async {
        _ = await exited.value
    }
}
