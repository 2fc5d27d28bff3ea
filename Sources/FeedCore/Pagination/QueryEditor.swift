package import Foundation

/// Edits one query parameter of a URL while keeping the rest of the query byte for byte.
package enum QueryEditor {
    /// The raw (percent-encoded) value of `name` in the URL's query.
    package static func value(of name: String, in url: URL) -> String? {
        guard let query = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedQuery else {
            return nil
        }
        for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.first.map(String.init) == name { return parts.count > 1 ? String(parts[1]) : "" }
        }
        return nil
    }

    /// The URL with `name=value` replacing the first `name` parameter, or appended.
    package static func setting(_ name: String, to value: String, in url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        let encodedName = QueryEncoding.encode(name)
        let pair = "\(encodedName)=\(QueryEncoding.encode(value))"
        var pairs = (components.percentEncodedQuery ?? "").split(separator: "&", omittingEmptySubsequences: true)
            .map(String.init)
        if let index = pairs.firstIndex(where: { $0 == encodedName || $0.hasPrefix(encodedName + "=") }) {
            pairs[index] = pair
        } else {
            pairs.append(pair)
        }
        components.percentEncodedQuery = pairs.joined(separator: "&")
        return components.url ?? url
    }

    /// When `a` and `b` differ only in one query parameter whose values are both integers:
    /// that parameter and the two values.
    package static func singleIntegerDifference(_ a: URL, _ b: URL) -> (String, Int, Int)? {
        guard let ca = URLComponents(url: a, resolvingAgainstBaseURL: true),
            let cb = URLComponents(url: b, resolvingAgainstBaseURL: true),
            ca.scheme == cb.scheme, ca.host == cb.host, ca.port == cb.port, ca.percentEncodedPath == cb.percentEncodedPath
        else { return nil }
        let qa = (ca.percentEncodedQuery ?? "").split(separator: "&").map(String.init)
        let qb = (cb.percentEncodedQuery ?? "").split(separator: "&").map(String.init)
        guard qa.count == qb.count else { return nil }
        var found: (String, Int, Int)?
        for (pa, pb) in zip(qa, qb) where pa != pb {
            let ka = pa.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let kb = pb.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard found == nil, ka.count == 2, kb.count == 2, ka[0] == kb[0], let va = Int(ka[1]), let vb = Int(kb[1])
            else { return nil }
            found = (String(ka[0]), va, vb)
        }
        return found
    }
}
