import ArgumentParser
import FeedCore
import FeedaggKit
import FeedStore
import Foundation

extension Feedagg {
    struct Sources: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the source types, their parameters and their pagination.",
            discussion: """
                Examples:
                  feedagg sources
                """)

        func run() throws {
            var lines: [String] = []
            for descriptor in SourceRegistry.builtIn.descriptors {
                lines.append("\(descriptor.typeName): \(descriptor.summary)")
                lines.append("  pagination: \(descriptor.pagination)")
                let base = descriptor.defaultBaseURL.isEmpty ? "none" : descriptor.defaultBaseURL
                lines.append(
                    "  base_url default: \(base); per_page default \(descriptor.defaultPageSize), "
                        + "max \(descriptor.maxPageSize)")
                for parameter in descriptor.parameters {
                    let required = parameter.required ? ", required" : ""
                    let fallback = parameter.default.map { " (default \($0))" } ?? ""
                    lines.append(
                        "  \(parameter.name) (\(parameter.kind.rawValue)\(required)): \(parameter.summary)\(fallback)")
                }
                if let additional = descriptor.additionalParameters {
                    lines.append("  other keys: \(additional)")
                }
                lines.append("")
            }
            lines.append("Every feed also accepts:")
            for parameter in FeedContext.commonParameters {
                let fallback = parameter.default.map { " (default \($0))" } ?? ""
                lines.append("  \(parameter.name) (\(parameter.kind.rawValue)): \(parameter.summary)\(fallback)")
            }
            print(lines.joined(separator: "\n"))
        }
    }
}
