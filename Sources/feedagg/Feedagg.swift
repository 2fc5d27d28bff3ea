import ArgumentParser
import FeedCore
import FeedSearch
import FeedaggKit
import FeedaggServer
import FeedStore
import Foundation

/// `feedagg`: declare feeds in YAML, pull them, read one merged, paged stream.
@main
struct Feedagg: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedagg",
        abstract: "Merge many paginated web APIs into one paged stream.",
        discussion: """
            Exit status: 0 success; 2 usage or configuration error (nothing fetched);
            3 some feeds failed (the others are printed); 4 every feed failed;
            5 the store is unavailable (locked by another feedagg, damaged, not a feedagg store, unwritable);
            1 internal error.

            Examples:
              feedagg init                  write a commented starter feeds.yaml
              feedagg pull                  fetch every feed of ./feeds.yaml (the default)
              feedagg show --page 2         the second page of the stream, offline
              feedagg validate -c my.yaml   check a configuration, fetch nothing
              feedagg serve                 keep feeds fresh, serve them on http://127.0.0.1:8080
              feedagg --generate-completion-script bash > ~/.feedagg-completion.bash
            """,
        version: "feedagg \(FeedaggVersion.current)",
        subcommands: [
            Pull.self, Show.self, Feeds.self, Filters.self, Prune.self, Validate.self, Sources.self, Record.self, Init.self, Plugin.self, Import.self, Export.self, Serve.self,
        ],
        defaultSubcommand: Pull.self)

    /// Runs the command and maps every error to a documented exit status.
    static func main() async {
        // A write to a pipe or socket whose reader is gone fails with EPIPE instead of killing the
        // process: an exec plugin that exits without reading its request fails only its feed.
        // Standard output keeps its behaviour (Console.output: EPIPE ends feedagg quietly, as
        // SIGPIPE did, so `feedagg show | head -1` still ends silently).
        signal(SIGPIPE, SIG_IGN)
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let unknown = UnknownCommand.check(arguments, commands: configuration.subcommands.map { $0._commandName }) {
            Console().error(unknown.description)
            Foundation.exit(ExitStatus.usageOrConfig.rawValue)
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ConfigError {
            Console().error(String(describing: error))
            Foundation.exit(ExitStatus.usageOrConfig.rawValue)
        } catch let error as ConfigErrors {
            Console().error(String(describing: error))
            Foundation.exit(ExitStatus.usageOrConfig.rawValue)
        } catch let error as StoreError {
            Console().error("feedagg: \(error)")
            Foundation.exit(
                error.kind == .invalidCursor ? ExitStatus.usageOrConfig.rawValue : ExitStatus.storeUnavailable.rawValue)
        } catch let error as SearchQueryError {
            Console().error(error.description)
            Foundation.exit(ExitStatus.usageOrConfig.rawValue)
        } catch let error as ServeError {
            Console().error(error.description)
            Foundation.exit(ExitStatus.usageOrConfig.rawValue)
        } catch let error as ExitCode {
            Foundation.exit(error.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success || code == .validationFailure || code.rawValue == 64 {
                // Help, version, and usage errors: argument-parser's own message.
                let message = fullMessage(for: error)
                if code == .success {
                    print(message)
                    Foundation.exit(0)
                }
                Console().error(message)
                Foundation.exit(ExitStatus.usageOrConfig.rawValue)
            }
            Console().error("error: \(error)")
            Foundation.exit(ExitStatus.internalError.rawValue)
        }
    }
}
