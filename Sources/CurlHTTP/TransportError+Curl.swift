import CCurl
import FeedCore
import Foundation

extension TransportError {
    /// The error for a failed libcurl transfer of `request`.
    ///
    /// `detail` is libcurl's message for `code` plus its error-buffer text, with every secret
    /// header value of the request (and URL credentials) scrubbed, should libcurl ever echo one.
    /// When one of the client's timeouts ended the transfer, the detail names it (with the
    /// feeds.yaml setting behind it) instead of quoting libcurl.
    static func curl(
        _ code: CURLcode, request: HTTPRequest, errorBuffer: String, exceededLimit: Bool, limit: Int,
        timing: TimeoutFacts? = nil
    ) -> TransportError {
        if let timing, let detail = timing.detail(for: code, errorBuffer: errorBuffer) {
            return TransportError(kind: .timedOut, url: request.url, detail: detail)
        }
        let kind = Kind(curlCode: code, exceededLimit: exceededLimit)
        var detail = String(cString: curl_easy_strerror(code))
        if !errorBuffer.isEmpty, errorBuffer != detail { detail += ": " + errorBuffer }
        detail += " [curl error \(code.rawValue)]"
        if kind == .responseTooLarge { detail = "response body exceeds the limit of \(limit) bytes; " + detail }
        return TransportError(kind: kind, url: request.url, detail: scrub(detail, secretsOf: request))
    }

    /// `text` with every secret of `request` (secret header values and the words in them, URL
    /// user and password) replaced by `REDACTED`.
    static func scrub(_ text: String, secretsOf request: HTTPRequest) -> String {
        var secrets: [String] = []
        for (name, value) in request.headers where Redaction.secretHeaders.contains(name.lowercased()) {
            secrets.append(value)
            secrets += value.split(whereSeparator: { $0 == " " || $0 == "," || $0 == ";" || $0 == "=" })
                .map(String.init).filter { $0.count >= 4 }
        }
        if let user = request.url.user, !user.isEmpty { secrets.append(user) }
        if let password = request.url.password, !password.isEmpty { secrets.append(password) }
        var result = text
        for secret in secrets.sorted(by: { $0.count > $1.count }) where !secret.isEmpty {
            result = result.replacingOccurrences(of: secret, with: "REDACTED")
        }
        return result
    }
}

/// What the loop knows about a failed transfer's progress, to tell which timeout ended it.
struct TimeoutFacts {
    /// The client's timeouts, quoted in the error's detail (`no response within 10 s (first_byte_timeout)`).
    var configuration: CurlClient.Configuration
    /// The progress callback aborted the transfer for want of a first byte.
    var firstByteTimedOut: Bool
    /// A response byte had arrived.
    var receivedFirstByte: Bool
    /// A connection had been established (libcurl reached the point of sending the request).
    var connected: Bool

    /// The detail for a timeout, e.g. `no response within 2 s (first_byte_timeout)`; `nil` when
    /// `code` is not one of the client's timeouts (libcurl's own message is used then).
    func detail(for code: CURLcode, errorBuffer: String) -> String? {
        if code == CURLE_ABORTED_BY_CALLBACK, firstByteTimedOut {
            return "no response within \(configuration.firstByteTimeout.secondsText) (first_byte_timeout)"
        }
        guard code == CURLE_OPERATION_TIMEDOUT, !errorBuffer.hasPrefix("Operation too slow") else { return nil }
        let total = configuration.totalTimeout
        if !connected, configuration.connectTimeout < total {
            return "could not connect within \(configuration.connectTimeout.secondsText) (connect_timeout)"
        }
        if !receivedFirstByte { return "no response within \(total.secondsText) (timeout)" }
        return "no complete response within \(total.secondsText) (timeout)"
    }
}

extension TransportError.Kind {
    /// The coarse kind for a libcurl result code.
    init(curlCode code: CURLcode, exceededLimit: Bool) {
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_SEND_ERROR:
            self = .connectionFailed
        case CURLE_OPERATION_TIMEDOUT:
            self = .timedOut
        case CURLE_TOO_MANY_REDIRECTS:
            self = .tooManyRedirects
        case CURLE_WRITE_ERROR where exceededLimit, CURLE_FILESIZE_EXCEEDED:
            self = .responseTooLarge
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE, CURLE_BAD_CONTENT_ENCODING,
            CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3:
            self = .badResponse
        case CURLE_ABORTED_BY_CALLBACK:
            self = .cancelled
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            self = .tls
        default:
            self = .other
        }
    }
}
