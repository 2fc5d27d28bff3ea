import FeedCore
import Foundation
import FuzzSupport

@testable import FeedConfig

// libFuzzer target: the libyaml-backed YAML reader (events → node tree, anchors, aliases, `<<`
// merges, interpolation), on raw bytes: invalid UTF-8 reaches libyaml as is.

private let environment = ["GITHUB_TOKEN": "ghp_fuzz", "EMPTY": "", "PX_CONSUMER_KEY": "key"]

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzYAMLParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let bytes = Array(input)
    let file = SourceFile(path: "fuzz.yaml", text: FeedsLoader.displayText(bytes))
    do {
        if let root = try YAMLParser(file: file, environment: environment).parse(bytes) {
            _ = walk(root)
        }
    } catch let error as ConfigError {
        // Rendering the diagnostic (line, caret) is part of what a bad file exercises.
        _ = error.description
    } catch {
        preconditionFailure("YAMLParser threw a non-ConfigError: \(error)")
    }
    return 0
}

/// Visits every node once, rendering its location.
private func walk(_ node: ConfigNode) -> Int {
    var count = node.location.description.utf8.count
    switch node.value {
    case .scalar(let text, _): count &+= text.utf8.count
    case .sequence(let items): for item in items { count &+= walk(item) }
    case .mapping(let entries): for entry in entries { count &+= walk(entry.key) &+ walk(entry.value) }
    }
    return count
}

@main
enum Main {
    static func main() { FuzzSupport.run(fuzzYAMLParser) }
}
