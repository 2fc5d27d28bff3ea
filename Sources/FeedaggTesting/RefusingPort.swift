import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback port nobody listens on, held for the caller's lifetime: a TCP socket bound to it but
/// not listening, so a connection is refused and no other test can take the port meanwhile (a
/// port a server just released can be bound again by a test running in parallel).
public final class RefusingPort: Sendable {
    /// The port; connecting to 127.0.0.1 on it is refused.
    public let port: Int
    private let descriptor: Int32

    /// Binds a socket to a free loopback port without listening.
    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
