import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.0 GET to `127.0.0.1` (no proxy, no library): what the serve tests of this
/// target need to ask `feedagg serve` for `/healthz` and `/api/feeds`. It runs on a thread of its
/// own, with a 10 s limit on every socket operation.
enum LoopbackGet {
    /// The status and body of `GET path` on port `port`, or `nil` when the server did not answer.
    static func get(port: Int, _ path: String) async -> (status: Int, body: String)? {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: blockingGet(port: port, path)) }
            thread.start()
        }
    }

    private static func blockingGet(port: Int, _ path: String) -> (status: Int, body: String)? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var limit = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return nil }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                response += buffer[0..<count]
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                if count < 0 { return nil }
                break
            }
        }
        let text = String(decoding: response, as: UTF8.self)
        guard let statusLine = text.split(separator: "\r\n", maxSplits: 1).first,
            let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) }),
            let headerEnd = text.range(of: "\r\n\r\n")
        else { return nil }
        return (status, String(text[headerEnd.upperBound...]))
    }
}
