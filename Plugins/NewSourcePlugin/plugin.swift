import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory new-source --name NAME [--pagination link|page]`.
///
/// Thin on purpose: it runs the `feedagg-scaffold` executable on the package root, which writes
/// the new source module, its tests and fixture, and edits Package.swift and SourceRegistry.swift.
@main
struct NewSourcePlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "feedagg-scaffold")
        let process = Process()
        process.executableURL = tool.url
        process.arguments = ["--package", context.package.directoryURL.path] + arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw NewSourceError(status: process.terminationStatus)
        }
    }
}

/// The scaffold reported an error (already printed on standard error).
struct NewSourceError: Error, CustomStringConvertible {
    var status: Int32
    var description: String { "new-source failed (feedagg-scaffold exit status \(status))" }
}
