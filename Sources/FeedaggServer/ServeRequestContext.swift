import Hummingbird
import NIOCore

/// The request context of `feedagg serve`: Hummingbird's basic context plus the client's address
/// (failed bearer tokens are logged and limited per address).
struct ServeRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connected client's address.
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The client's IP address as text (`unknown` when the socket has none).
    var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }
}
