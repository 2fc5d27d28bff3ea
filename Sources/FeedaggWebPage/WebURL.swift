import Foundation

/// The only links and images a page built from remote items may carry: absolute `http` and `https`
/// URLs. Anything else (`javascript:`, `data:`, `vbscript:`, relative paths, protocol-relative
/// `//host` links, text with spaces or control characters a browser would strip before reading the
/// scheme) is dropped, so remote text can never run script through an `href` or `src`.
///
/// `app.js` applies the same rule to the items it adds (its `safeURL`).
enum WebURL {
    /// `text` when it is an absolute `http`/`https` URL with a host, else `nil`.
    static func safe(_ text: String?) -> String? {
        guard let text, !text.isEmpty, text.count <= 4096 else { return nil }
        // Browsers drop tabs and newlines anywhere in a URL and control characters or spaces at its
        // ends before they read the scheme ("java\tscript:"): a URL holding any of them is refused.
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else { return nil }
        let lowered = text.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return nil }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { return nil }
        return text
    }
}
