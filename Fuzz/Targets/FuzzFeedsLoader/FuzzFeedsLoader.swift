import FeedConfig
import FeedCore
import Foundation
import FuzzSupport

// libFuzzer target: feeds.yaml loading and validation against the built-in source descriptors,
// then building each declared feed's source as the CLI does (typed parameters, URLs, dates).

private let environment = ["GITHUB_TOKEN": "ghp_fuzz", "EMPTY": "", "PX_CONSUMER_KEY": "key", "ORG": "acme"]

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzFeedsLoader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: input, as: UTF8.self)
    let document: FeedsDocument
    do {
        document = try FeedsLoader.parse(
            text: text, path: "feeds.yaml", sources: FuzzSupport.descriptors, environment: environment)
    } catch let error as ConfigError {
        _ = error.description
        return 0
    } catch let error as ConfigErrors {
        precondition(error.errors.count > 1, "ConfigErrors carries several errors, one is thrown as itself")
        _ = error.description
        return 0
    } catch {
        preconditionFailure("FeedsLoader threw a non-ConfigError: \(error)")
    }
    _ = document.warnings
    for declaration in document.feeds {
        do {
            let source = try FuzzSupport.makeSource(declaration)
            _ = source.firstPageURL.absoluteString
            _ = source.requestHeaders
            _ = source.credentialHeaders
        } catch let error as ConfigError {
            _ = error.description
        } catch {
            preconditionFailure("source init threw a non-ConfigError: \(error)")
        }
    }
    return 0
}

@main
enum Main {
    static func main() { FuzzSupport.run(fuzzFeedsLoader) }
}
