package import Foundation

/// Reason phrases for the statuses APIs actually send.
package enum HTTPStatus {
    /// The standard reason phrase of `code`, or an empty string.
    package static func phrase(_ code: Int) -> String {
        switch code {
        case 200: return "OK"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 422: return "Unprocessable Entity"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }

    /// A short message from an error body: GitHub's `{"message": …}`, else the first line of text.
    package static func message(fromBody body: Data) -> String? {
        guard !body.isEmpty else { return nil }
        if let object = try? JSONSerialization.jsonObject(with: body.prefix(65_536)) as? [String: Any],
            let message = (object["message"] ?? object["error"]) as? String
        {
            return String(message.prefix(300))
        }
        let text = String(decoding: body.prefix(300), as: UTF8.self)
        if text.contains("<") { return nil }  // HTML error pages say nothing useful in one line
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.trimmingCharacters(in: .whitespaces).isEmpty ? nil : line
    }
}
