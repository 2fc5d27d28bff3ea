import FeedCore
public import Foundation
import Subprocess
import SystemPackage

/// Runs one page of a plugin through swift-subprocess: no shell, the arguments as given, a
/// clean environment, the request on standard input, standard output and error collected up to
/// their limits. The plugin runs in a session of its own; past its timeout or its output limit
/// its whole process group gets SIGTERM, then SIGKILL half a second later.
public enum ExecRunner {
    /// What one run produced.
    public struct Run: Sendable {
        /// The exit status (or, when ``signaled``, the signal).
        public var status: Int32
        /// Whether a signal ended the plugin.
        public var signaled: Bool
        /// Standard output.
        public var output: Data
        /// Standard error (at most the plugin's `maxErrorBytes`).
        public var errors: String
    }

    /// Why a run did not complete.
    public enum Failure: Error, Sendable {
        case timedOut
        case outputTooLarge
        case cannotStart(String)
        case textFileBusy
    }

    /// Runs `plugin` with `input` on its standard input. A launch that fails with `ETXTBSY` (the
    /// executable was just written and another process forked while it was still open for
    /// writing) is tried again, up to 10 times, 100 ms apart.
    public static func run(_ plugin: ExecPlugin, input: Data) async throws(Failure) -> Run {
        var attempt = 1
        while true {
            do {
                return try await runOnce(plugin, input: input)
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

    private static func runOnce(_ plugin: ExecPlugin, input: Data) async throws(Failure) -> Run {
        var options = PlatformOptions()
        options.createSession = true
        options.teardownSequence = [
            .send(signal: .terminate, toProcessGroup: true, allowedDurationToNextStep: .milliseconds(500)),
            .send(signal: .kill, toProcessGroup: true, allowedDurationToNextStep: .milliseconds(500)),
        ]
        var environment: [Environment.Key: String] = [:]
        for (name, value) in plugin.environment { environment[Environment.Key(stringLiteral: name)] = value }
        let configuration = Configuration(
            executable: .path(FilePath(plugin.executablePath)), arguments: Arguments(Array(plugin.command.dropFirst())),
            environment: .custom(environment), workingDirectory: FilePath(plugin.directory), platformOptions: options)
        let bytes = Array(input)
        let outcome: Result<Run, Failure> = await withTaskGroup(of: Result<Run, Failure>?.self) { group in
            group.addTask {
                do {
                    let result = try await Subprocess.run(
                        configuration, input: .array(bytes), output: .bytes(limit: plugin.maxOutputBytes),
                        error: .bytes(limit: plugin.maxErrorBytes))
                    let (status, signaled): (Int32, Bool) =
                        switch result.terminationStatus {
                        case .exited(let code): (Int32(code), false)
                        case .signaled(let signal): (Int32(signal), true)
                        }
                    return .success(
                        Run(
                            status: status, signaled: signaled, output: Data(result.standardOutput),
                            errors: String(decoding: result.standardError, as: UTF8.self)))
                } catch let error as SubprocessError where error.code == .outputLimitExceeded {
                    return .failure(.outputTooLarge)
                } catch let error as SubprocessError where error.underlyingError == Errno.textFileBusy {
                    return .failure(.textFileBusy)
                } catch is CancellationError {
                    return nil
                } catch {
                    return Task.isCancelled ? nil : .failure(.cannotStart("\(error)"))
                }
            }
            group.addTask {
                try? await Task.sleep(for: plugin.timeout)
                return Task.isCancelled ? nil : .failure(.timedOut)
            }
            var first: Result<Run, Failure>?
            while let next = await group.next() {
                if let next, first == nil {
                    first = next
                    group.cancelAll()
                }
            }
            return first ?? .failure(.timedOut)
        }
        return try outcome.get()
    }
}
