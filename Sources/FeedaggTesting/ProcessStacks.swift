import Foundation

/// The stacks of a running process's threads, for the failure message of a test that found it
/// stuck.
public enum ProcessStacks {
    /// Every thread's backtrace of process `pid`, from `gdb` when it is installed (a developer's
    /// machine usually has it; the tests do not install it); a sentence saying why there is none
    /// otherwise. The process is stopped for a moment while gdb reads it, then left running.
    public static func capture(pid: Int32) async -> String {
        let candidates = ["/usr/bin/gdb", "/usr/local/bin/gdb"]
        guard let gdb = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return "(no thread stacks: gdb is not installed)"
        }
        do {
            let output = try await ChildProcess.run(
                URL(fileURLWithPath: gdb),
                arguments: ["-p", String(pid), "-batch", "-nx", "-ex", "set pagination off", "-ex", "thread apply all bt 40"],
                environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(120))
            return output.stdout.isEmpty ? "(gdb printed nothing)\n\(output.stderr.prefix(2_000))" : output.stdout
        } catch {
            return "(no thread stacks: \(error))"
        }
    }
}
