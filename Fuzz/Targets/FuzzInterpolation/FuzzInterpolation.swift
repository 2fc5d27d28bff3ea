import FeedCore
import Foundation
import FuzzSupport

@testable import FeedConfig

// libFuzzer target: `${VAR}`, `${VAR:-default}`, `${VAR:?message}` and `$$` expansion, and the
// error locations it computes. The first byte picks how the scalar sits on its source line.

private let interpolator = EnvironmentInterpolator(
    environment: ["GITHUB_TOKEN": "ghp_fuzz", "EMPTY": "", "A": "$", "B": "${A}", "UNI": "é☃"])

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzInterpolation(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    guard let mode = input.first else { return 0 }
    let text = String(decoding: input.dropFirst(), as: UTF8.self)
    let anchoring: EnvironmentInterpolator.Anchoring
    let line: String
    switch mode % 4 {
    case 0:
        anchoring = .inline(offset: 0)
        line = "    token: " + text
    case 1:
        anchoring = .inline(offset: 1)
        line = "    token: \"" + text + "\""
    case 2:
        // The source line does not show the value verbatim (an escaped or folded scalar).
        anchoring = .inline(offset: Int(mode >> 2) % 8)
        line = "    token: \"\\t" + text
    default:
        anchoring = .node
        line = "    token: |"
    }
    let file = SourceFile(path: "feeds.yaml", text: "feeds:\n" + line + "\n")
    let location = SourceLocation(file: file, line: 2, column: 12)
    do {
        let (value, unset) = try interpolator.interpolate(text, at: location, anchoring: anchoring)
        _ = value.utf8.count &+ unset.count
    } catch let error as ConfigError {
        _ = error.description
    } catch {
        preconditionFailure("interpolate threw a non-ConfigError: \(error)")
    }
    return 0
}

@main
enum Main {
    static func main() { FuzzSupport.run(fuzzInterpolation) }
}
