import Foundation

/// `Tests/<Name>SourceTests/Fixtures/<type>-example/`: two recorded pages of the sample's items
/// (the made-up items without `--sample`) in the `Fixtures/` exchange format, and the `feed.json`
/// `feedagg record` writes beside them (the feed's name, type and parameters, `per_page` included).
struct FixtureTemplate {
    let request: ScaffoldRequest
    let api: APIModule
    let draft: ItemDraft

    /// The items the made-up API's fixture holds when no `--sample` is given.
    static func madeUpElements(name: String) -> [String] {
        let rows: [(Int, String, String?)] = [
            (1, "First example item", "2026-11-20T09:00:00Z"), (2, "Second example item", "2026-11-19T17:30:00Z"),
            (3, "Third example item", "2026-11-18T08:15:00Z"), (4, "Fourth example item", "2026-11-17T12:00:00Z"),
            (5, "Fifth example item", nil),
        ]
        return rows.map { id, title, updated in
            let date = updated.map { "\"\($0)\"" } ?? "null"
            return #"{"author":"example-user-\#(id)","id":\#(id),"title":"\#(title)","updated_at":\#(date),"url":"https://\#(name.lowercased()).example/items/\#(id)"}"#
        }
    }

    /// Items on the first page: `per_page` of the recorded feed.
    private var perPage: Int { max(1, (draft.elements.count + 1) / 2) }
    private var isLink: Bool { request.pagination == .link }

    var files: [(name: String, text: String)] {
        let path = substitute(api.path(request.slug))
        let base = "https://\(api.host)" + path
        let first = isLink ? "\(base)?per_page=\(perPage)" : "\(base)?page=1&per_page=\(perPage)"
        let second = isLink ? "\(base)?per_page=\(perPage)&page=2" : "\(base)?page=2&per_page=\(perPage)"
        let items = draft.elements.map { String(decoding: $0, as: UTF8.self) }
        let pages = [Array(items.prefix(perPage)), Array(items.dropFirst(perPage))].filter { !$0.isEmpty }
        let slug = path.split(separator: "/").joined(separator: "-")
        var files: [(String, String)] = []
        for (index, page) in pages.enumerated() {
            let number = index + 1
            var link: String?
            if isLink && pages.count == 2 {
                link = number == 1 ? #"<\#(second)>; rel="next", <\#(second)>; rel="last""# : #"<\#(first)>; rel="prev", <\#(first)>; rel="first""#
            }
            let array = "[\n      " + page.joined(separator: ",\n      ") + "\n    ]"
            let body = isLink ? array : "{\"items\": \(array), \"page\": \(number), \"total_pages\": \(pages.count)}"
            files.append(("00\(number)-\(slug).json", exchange(url: number == 1 ? first : second, link: link, body: body)))
        }
        return files + [("feed.json", feedFile)]
    }

    /// `/repos/\(owner)` with the parameters' example values.
    private func substitute(_ path: String) -> String {
        var text = path
        for parameter in api.parameters {
            text = text.replacingOccurrences(of: #"\("# + "\(api.segment)(\(parameter.name)))", with: parameter.example)
        }
        return text
    }

    private var feedFile: String {
        var parameters = Dictionary(uniqueKeysWithValues: api.parameters.map { ($0.name, $0.example) })
        parameters["per_page"] = String(perPage)
        let object: [String: Any] = ["name": request.fixtureName, "source": request.typeName, "parameters": parameters]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private func exchange(url: String, link: String?, body: String) -> String {
        var headers = [#"["Content-Type", "application/json; charset=utf-8"]"#]
        if let link { headers.append("[\"Link\", \(jsonString(link))]") }
        let requestHeaders = api.recordedRequestHeaders.map { "[\(jsonString($0.0)), \(jsonString($0.1))]" }
        return """
            {
              "request": {
                "headers": [\(requestHeaders.joined(separator: ", "))],
                "method": "GET",
                "url": "\(url)"
              },
              "response": {
                "body": \(body),
                "headers": [
                  \(headers.joined(separator: ",\n      "))
                ],
                "status": 200
              }
            }

            """
    }

    private func jsonString(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
