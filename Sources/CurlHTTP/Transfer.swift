import CCurl
import FeedCore
import Foundation

/// The loop thread's state for one request, from admission queue to completion.
///
/// Created on the loop thread from a ``Submission`` and never leaves it; libcurl's callbacks,
/// which run on that thread inside `curl_multi_perform`, reach it through an unretained
/// `Unmanaged` pointer while the loop's `running` table keeps it alive.
final class Transfer {
    /// The client-wide identifier used for cancellation.
    let id: UInt64
    /// The request as given.
    let request: HTTPRequest
    /// The admission key: lowercased host and port.
    let hostKey: String
    /// Resumed exactly once, when the transfer finishes.
    let continuation: ResponseContinuation
    /// When the request entered the client's queue.
    let submittedAt: ContinuousClock.Instant
    /// When the transfer was handed to libcurl.
    var admittedAt: ContinuousClock.Instant?
    /// The easy handle while the transfer runs.
    private(set) var easy: UnsafeMutableRawPointer?
    /// Response header fields of the latest response seen (reset at each status line).
    private(set) var headers: [(String, String)] = []
    /// The body received so far, as sent (still content-encoded).
    private(set) var body = Data()
    /// The status of the latest status line seen.
    private var status: Int?
    /// The `Location` field of the latest response seen.
    private var location: String?
    /// The redirects seen so far (a `3xx` with a `Location`, followed by another response).
    private(set) var redirects: [HTTPRedirect] = []
    /// The body limit enforced by ``receiveBody(_:)``.
    private let maxBytes: Int
    /// Set when ``receiveBody(_:)`` refused data because of ``maxBytes``.
    private(set) var exceededLimit = false
    /// Whether any byte of a response (a header line) has arrived.
    private(set) var receivedFirstByte = false
    /// The longest wait from admission to the first response byte; `nil`: no such limit.
    private var firstByteTimeout: Duration?
    /// Set when the progress callback aborted the transfer because of ``firstByteTimeout``.
    private(set) var firstByteTimedOut = false
    /// libcurl's `CURLOPT_ERRORBUFFER`, allocated at admission.
    private var errorBuffer: UnsafeMutablePointer<CChar>?
    /// The request header list given to libcurl, freed after the transfer.
    private var headerList: UnsafeMutablePointer<curl_slist>?

    /// Takes over `submission`; the body limit comes from `maxResponseBytes`.
    init(_ submission: Submission, maxBytes: Int) {
        self.id = submission.id
        self.request = submission.request
        self.hostKey = Transfer.hostKey(for: submission.request.url)
        self.maxBytes = max(0, maxBytes)
        self.continuation = submission.continuation
        self.submittedAt = submission.submittedAt
    }

    deinit {
        errorBuffer?.deallocate()
        if let headerList { curl_slist_free_all(headerList) }
    }

    /// The admission key for `url`: lowercased host and explicit or default port.
    static func hostKey(for url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "http"
        let host = url.host?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(host):\(port)"
    }

    // MARK: Callbacks (loop thread)

    /// Appends body bytes; returns `false` (abort) when the body would exceed the limit.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if body.count + bytes.count > maxBytes {
            exceededLimit = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Records one raw header line as delivered by `CURLOPT_HEADERFUNCTION`.
    ///
    /// A status line (`HTTP/…`) starts a new response (redirect, `100 Continue`), so it clears
    /// what was collected; blank lines are skipped; obsolete folded lines extend the previous value.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        receivedFirstByte = true
        var line = bytes[...]
        while let last = line.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: "\n") {
            line = line.dropLast()
        }
        if line.isEmpty { return }
        if line.starts(with: "HTTP/".utf8) {
            noteStatusLine(Transfer.decode(line))
            headers.removeAll(keepingCapacity: true)
            return
        }
        if let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            guard let previous = headers.popLast() else { return }
            let more = Transfer.decode(line).trimmingCharacters(in: .whitespaces)
            headers.append((previous.0, previous.1.isEmpty ? more : previous.1 + " " + more))
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = Transfer.decode(line[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = Transfer.decode(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return }
        if name.lowercased() == "location" { location = value }
        headers.append((name, value))
    }

    /// A new response begins (`HTTP/1.1 200 OK`): the one before it was a redirect when it was a
    /// `3xx` with a `Location` (libcurl followed it).
    private func noteStatusLine(_ line: String) {
        if let status, (300..<400).contains(status), status != 304, let location {
            let from = redirects.last?.location ?? request.url
            if let target = URL(string: location, relativeTo: from)?.absoluteURL {
                redirects.append(HTTPRedirect(status: status, location: target))
            }
        }
        let parts = line.split(separator: " ", maxSplits: 2)
        status = parts.count > 1 ? Int(parts[1]) : nil
        location = nil
    }

    /// Called by libcurl's progress callback (about once a second, and on every transfer of
    /// data); returns `false` (abort) when no response byte has arrived within ``firstByteTimeout``.
    func checkProgress() -> Bool {
        guard !receivedFirstByte, let limit = firstByteTimeout, let admittedAt else { return true }
        if ContinuousClock.now - admittedAt >= limit {
            firstByteTimedOut = true
            return false
        }
        return true
    }

    /// Decodes header bytes as UTF-8, falling back to ISO Latin-1 (which never fails).
    private static func decode(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        if let string = String(validating: bytes, as: UTF8.self) { return string }
        return String(bytes.map { Character(Unicode.Scalar($0)) })
    }

    // MARK: Easy handle setup (loop thread)

    /// Configures `easy` for this transfer; returns a failure message naming the option that failed.
    func configure(_ easy: UnsafeMutableRawPointer, _ configuration: CurlClient.Configuration) -> String? {
        self.easy = easy
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        buffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        errorBuffer = buffer

        for (name, value) in request.headers {
            // An empty value needs curl's "Name;" form, or curl would drop the field.
            let line = value.isEmpty ? "\(name);" : "\(name): \(value)"
            guard let list = curl_slist_append(headerList, line) else { return "curl_slist_append failed" }
            headerList = list
        }

        let userdata = Unmanaged.passUnretained(self).toOpaque()
        var failures: [String] = []
        func check(_ code: CURLcode, _ option: String) {
            if code != CURLE_OK { failures.append("\(option): \(String(cString: curl_easy_strerror(code)))") }
        }
        check(ccurl_setopt_string(easy, CURLOPT_URL, request.url.absoluteString), "URL")
        check(ccurl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, buffer), "ERRORBUFFER")
        check(ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
        check(ccurl_setopt_long(easy, CURLOPT_TCP_NODELAY, 1), "TCP_NODELAY")
        firstByteTimeout = configuration.firstByteTimeout > .zero ? configuration.firstByteTimeout : nil
        check(ccurl_setopt_long(easy, CURLOPT_NOPROGRESS, firstByteTimeout == nil ? 1 : 0), "NOPROGRESS")
        check(ccurl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"), "PROTOCOLS_STR")
        check(ccurl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1), "FOLLOWLOCATION")
        check(ccurl_setopt_long(easy, CURLOPT_MAXREDIRS, max(0, configuration.maxRedirects)), "MAXREDIRS")
        check(ccurl_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"), "REDIR_PROTOCOLS_STR")
        check(
            ccurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.clampedMilliseconds),
            "CONNECTTIMEOUT_MS")
        check(ccurl_setopt_long(easy, CURLOPT_TIMEOUT_MS, configuration.totalTimeout.clampedMilliseconds), "TIMEOUT_MS")
        if configuration.lowSpeedLimit > 0 {
            check(ccurl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, configuration.lowSpeedLimit), "LOW_SPEED_LIMIT")
            check(ccurl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, configuration.lowSpeedTime.clampedSeconds), "LOW_SPEED_TIME")
        }
        check(ccurl_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxBytes)), "MAXFILESIZE_LARGE")
        check(ccurl_setopt_string(easy, CURLOPT_USERAGENT, configuration.userAgent), "USERAGENT")
        if configuration.acceptEncoding {
            // libcurl sends the header but leaves the body encoded: CurlClient.send decodes it in
            // the caller's task (ContentDecoding), so a body in flight is held at its wire size.
            check(ccurl_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ContentDecoding.acceptEncoding), "ACCEPT_ENCODING")
            check(ccurl_setopt_long(easy, CURLOPT_HTTP_CONTENT_DECODING, 0), "HTTP_CONTENT_DECODING")
        }
        let version = configuration.httpVersion == .http2OverTLS ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1
        check(ccurl_setopt_long(easy, CURLOPT_HTTP_VERSION, version), "HTTP_VERSION")
        if configuration.httpVersion == .http2OverTLS, request.url.scheme?.lowercased() == "https" {
            // Wait for a connection being set up that may multiplex, rather than opening another.
            check(ccurl_setopt_long(easy, CURLOPT_PIPEWAIT, 1), "PIPEWAIT")
        }
        if let headerList { check(ccurl_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList), "HTTPHEADER") }
        switch request.method.uppercased() {
        case "GET": check(ccurl_setopt_long(easy, CURLOPT_HTTPGET, 1), "HTTPGET")
        case "HEAD": check(ccurl_setopt_long(easy, CURLOPT_NOBODY, 1), "NOBODY")
        default: check(ccurl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method), "CUSTOMREQUEST")
        }

        check(ccurl_setopt_pointer(easy, CURLOPT_WRITEDATA, userdata), "WRITEDATA")
        check(
            ccurl_setopt_write_function(easy) { data, size, count, userdata in
                guard let userdata else { return 0 }
                let length = size * count
                guard length > 0, let data else { return length }
                let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
                return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
            }, "WRITEFUNCTION")
        check(ccurl_setopt_pointer(easy, CURLOPT_HEADERDATA, userdata), "HEADERDATA")
        check(
            ccurl_setopt_header_function(easy) { data, size, count, userdata in
                let length = size * count
                guard let userdata, let data else { return length }
                let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
                transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
                return length
            }, "HEADERFUNCTION")
        if firstByteTimeout != nil {
            check(ccurl_setopt_pointer(easy, CURLOPT_XFERINFODATA, userdata), "XFERINFODATA")
            check(
                ccurl_setopt_xferinfo_function(easy) { userdata, _, _, _, _ in
                    guard let userdata else { return 0 }
                    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
                    return transfer.checkProgress() ? 0 : 1
                }, "XFERINFOFUNCTION")
        }
        return failures.isEmpty ? nil : failures.joined(separator: "; ")
    }

    /// Frees what libcurl no longer needs once the easy handle has been reset or cleaned up.
    func releaseCurlResources() {
        easy = nil
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }

    // MARK: Results (loop thread)

    /// libcurl's error buffer text, if it holds any.
    var errorBufferText: String {
        guard let errorBuffer, errorBuffer.pointee != 0 else { return "" }
        return String(cString: errorBuffer)
    }

    /// The response assembled from what libcurl collected.
    func makeResponse(status: Int, effectiveURL: String?) -> HTTPResponse {
        let url = effectiveURL.flatMap { URL(string: $0) } ?? request.url
        return HTTPResponse(status: status, headers: HTTPHeaders(headers), body: body, url: url, redirects: redirects)
    }

    /// The body size received so far.
    var bytesReceived: Int { body.count }
}
