import FeedCore
public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs one page of a plugin (``PluginProcess``): no shell, the arguments as given, a clean
/// environment, the request on standard input, standard output and error collected up to their
/// limits. The plugin runs in a session of its own; however the run ends — exit, timeout, output
/// flood, cancellation — its whole process group gets SIGTERM, then SIGKILL half a second later.
public enum ExecRunner {
    /// What one run produced.
    public struct Run: Sendable {
        /// The exit status (or, when ``signaled``, the signal).
        public var status: Int32
        /// Whether a signal ended the plugin.
        public var signaled: Bool
        /// Standard output.
        public var output: Data
        /// Standard error (its last `maxErrorBytes`), as UTF-8 (invalid bytes replaced).
        public var errors: String
    }

    /// Why a run did not complete.
    public enum Failure: Error, Sendable, Equatable {
        /// It ran past its timeout and was killed.
        case timedOut
        /// It wrote more than its output limit and was killed.
        case outputTooLarge
        /// Nothing to run: the executable (named here), its working directory, or the interpreter
        /// of its `#!` line does not exist. Permanent.
        case notFound(String)
        /// The file (its path) exists but may not be executed (`EACCES`). Permanent.
        case notExecutable(String)
        /// The file (its path) is not a format the system can run (`ENOEXEC`, e.g. a script
        /// without a `#!` line). Permanent.
        case badFormat(String)
        /// It could not be started for a reason that may pass (no descriptors, no memory…).
        case cannotStart(String)
        /// The executable was being written by another process (`ETXTBSY`): tried again.
        case textFileBusy
        /// The task running it was cancelled; the plugin was killed.
        case cancelled

        /// Whether running the plugin again cannot help until someone changes the file.
        public var isPermanent: Bool {
            switch self {
            case .notFound, .notExecutable, .badFormat: true
            case .timedOut, .outputTooLarge, .cannotStart, .textFileBusy, .cancelled: false
            }
        }
    }

    /// Runs `plugin` with `input` on its standard input. A launch that fails with `ETXTBSY` (the
    /// executable was just written and another process forked while it was still open for
    /// writing) is tried again, up to 10 times, 100 ms apart.
    public static func run(_ plugin: ExecPlugin, input: Data) async throws(Failure) -> Run {
        let executable = plugin.executablePath
        guard executable.hasPrefix("/") else {
            let path = plugin.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
            throw .notFound("'\(executable)' is in none of the plugin's PATH folders (\(plugin.secrets.redact(path)))")
        }
        var attempt = 1
        while true {
            do {
                return try await runOnce(plugin, executable: executable, input: input)
            } catch .textFileBusy where attempt < 10 {
                attempt += 1
                try? await Task.sleep(for: .milliseconds(100))
            } catch .textFileBusy {
                throw .cannotStart("the executable is busy (being written by another process)")
            } catch {
                throw error
            }
        }
    }

    private static func runOnce(_ plugin: ExecPlugin, executable: String, input: Data) async throws(Failure) -> Run {
        let exchange = try await PluginProcess.run(plugin, executable: executable, input: input)
        switch exchange.ending {
        case .exited(let status, let signaled):
            return Run(
                status: status, signaled: signaled, output: Data(exchange.output),
                errors: String(decoding: exchange.errors, as: UTF8.self))
        case .timedOut: throw .timedOut
        case .outputTooLarge: throw .outputTooLarge
        case .cancelled: throw .cancelled
        }
    }

    /// `9 (Killed)`: a signal's number and name, for messages.
    static func signalName(_ signal: Int32) -> String {
        guard let name = strsignal(signal) else { return "\(signal)" }
        return "\(signal) (\(String(cString: name)))"
    }
}
