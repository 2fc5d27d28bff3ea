import FeedaggTesting
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A running `feedagg serve --listen 127.0.0.1:0` (the real binary), its address read from the
/// `serving http://127.0.0.1:PORT` line it prints on standard error.
struct ServeProcess: Sendable {
    let process: BackgroundProcess
    /// `http://127.0.0.1:PORT`.
    let baseURL: String

    /// Everything the server printed so far.
    var output: String { process.stderr + process.stdout }

    /// Starts `feedagg serve --listen <listen> <arguments>` in `folder` and waits for its
    /// `serving` line.
    static func start(
        _ arguments: [String], in folder: TemporaryFolder, listen: String = "127.0.0.1:0", timeout: Duration = .seconds(60)
    ) async throws -> ServeProcess {
        let process = try BackgroundProcess.start(
            try TestBinary.feedagg, arguments: ["serve", "--listen", listen] + arguments,
            environment: TestBinary.cleanEnvironment, currentDirectory: folder.url)
        let base = await process.waitForStandardError(timeout: timeout) { line -> String? in
            guard let range = line.range(of: "serving http://127.0.0.1:") else { return nil }
            let port = line[range.upperBound...].prefix { $0.isNumber }
            return Int(port).map { "http://127.0.0.1:\($0)" }
        }
        guard let base else {
            process.kill()
            throw BrowserTestError("feedagg serve did not print its address:\n\(process.stderr)\(process.stdout)")
        }
        return ServeProcess(process: process, baseURL: base)
    }

    /// SIGTERM and wait for the exit (SIGKILL after 15 s).
    func stop() async {
        if !process.hasExited { process.send(SIGTERM) }
        _ = try? await process.wait(timeout: .seconds(15))
    }
}

/// A failure with a message.
struct BrowserTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
