import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One request on a fresh connection to 127.0.0.1, read to the end (`Connection: close`).
///
/// FeedaggTesting does not depend on the libcurl client, and the control endpoints need nothing
/// more than this. The blocking socket work runs on a Dispatch thread, not the cooperative pool.
enum ControlRequest {
    static func exchange(port: Int, method: String, path: String, timeoutSeconds: Int = 30) async throws
        -> (status: Int, body: Data)
    {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result { try blockingExchange(port: port, method: method, path: path, timeoutSeconds: timeoutSeconds) })
            }
        }
    }

    private static func blockingExchange(port: Int, method: String, path: String, timeoutSeconds: Int) throws
        -> (status: Int, body: Data)
    {
        func failure(_ what: String) -> BenchServerError {
            BenchServerError("\(method) http://127.0.0.1:\(port)\(path): \(what): \(String(cString: strerror(errno)))")
        }
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw failure("socket") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw failure("connect") }

        let request = Array(
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                .utf8)
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw failure("send") }
            sent += count
        }

        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw failure("recv") }
            if count == 0 { break }
            response.append(contentsOf: buffer[0..<count])
        }

        let separator = Data("\r\n\r\n".utf8)
        guard let headEnd = response.range(of: separator) else {
            throw BenchServerError("\(method) \(path): malformed response (\(response.count) bytes, no header end)")
        }
        let head = String(decoding: response[..<headEnd.lowerBound], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw BenchServerError("\(method) \(path): malformed status line '\(statusLine)'")
        }
        var body = Data(response[headEnd.upperBound...])
        for line in head.split(separator: "\r\n").dropFirst() {
            let field = line.split(separator: ":", maxSplits: 1)
            if field.count == 2, field[0].lowercased() == "content-length",
                let length = Int(field[1].trimmingCharacters(in: .whitespaces)), length <= body.count
            {
                body = body.prefix(length)
            }
        }
        return (status, body)
    }
}
