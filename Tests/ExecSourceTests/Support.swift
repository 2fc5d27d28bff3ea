import FeedaggTesting
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes an executable script `name` into `folder` through a close-on-exec descriptor.
///
/// Foundation's file writing does not open with `O_CLOEXEC`: a `feedagg` another test spawns
/// meanwhile would inherit the descriptor still open for writing and keep it for its whole run,
/// and running the script then fails with `ETXTBSY` ("Text file busy").
func writeExecutable(_ name: String, _ text: String, in folder: TemporaryFolder) throws {
    let path = folder.path(name)
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
    guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
    defer { close(descriptor) }
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        written += count
    }
    fchmod(descriptor, 0o755)
}
