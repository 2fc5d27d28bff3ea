/// The DTO structs of a generated source: `<Name>ItemDTO` and nested author objects, one
/// `JSONFields` table each, drafted from the sample (``ItemDraft``).
struct DTOTemplate {
    let name: String
    let typeName: String
    let draft: ItemDraft

    var text: String {
        var structs = [
            object(
                "\(name)ItemDTO", fields: draft.fields, skipped: draft.skipped,
                doc: "The fields of an item that `\(typeName)` reads (drafted from a sample response): one table drives both the\n/// fast reader and `Decodable`, so a new field is one property and one `.field` line.")
        ]
        for field in draft.fields {
            guard let nested = field.nested else { continue }
            structs.append(
                object(field.type, fields: nested, skipped: [], doc: "The `\(field.key)` object of an item: who made it."))
            structs.append(
                """
                extension \(field.type) {
                    /// As an item's author: its login (or name), profile and avatar.
                    var feedAuthor: FeedAuthor? {
                        guard let name = \(authorName(nested)) else { return nil }
                        return FeedAuthor(name: name, url: \(nonEmpty(nested, "html_url")), avatarURL: \(nonEmpty(nested, "avatar_url")))
                    }
                }

                """)
        }
        return structs.joined(separator: "\n")
    }

    private func authorName(_ fields: [DraftField]) -> String {
        let names = ["login", "name"].compactMap { key in fields.first { $0.key == key } }
            .map { "ItemText.nonEmpty(\($0.property))" }
        return names.joined(separator: " ?? ")
    }

    private func nonEmpty(_ fields: [DraftField], _ key: String) -> String {
        fields.first { $0.key == key }.map { "ItemText.nonEmpty(\($0.property))" } ?? "nil"
    }

    /// The blank a read starts from: a placeholder for each required property.
    private func blank(_ type: String, _ fields: [DraftField]) -> String {
        let arguments = fields.filter { !$0.optional }.map { field -> String in
            let value: String
            switch field.type {
            case "String": value = "\"\""
            case "Int": value = "0"
            case "Bool": value = "false"
            default: value = blank(field.type, field.nested ?? [])
            }
            return "\(field.property): \(value)"
        }
        return "\(type)(\(arguments.joined(separator: ", ")))"
    }

    private func object(_ type: String, fields: [DraftField], skipped: [String], doc: String) -> String {
        let properties = fields.map { "    var \($0.property): \($0.declaredType)" }
        let notes = skipped.isEmpty ? [] : ["    // Not drafted (add a property and a .field line to read one):"] + skipped.map { "    //   \($0)" }
        let entries = fields.map { #"        .field("\#($0.key)", \.\#($0.property)),"# }
        return """
            /// \(doc)
            struct \(type): JSONObjectReadable {
            \((properties + notes).joined(separator: "\n"))

                /// The members read, in declaration order (non-optional properties are required).
                static let fields = JSONFields<\(type)>(\(blank(type, fields)), [
            \(entries.joined(separator: "\n"))
                ])
            }

            """
    }
}
