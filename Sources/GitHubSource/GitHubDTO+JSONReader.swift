package import FeedCore

// Single-pass decoders for the GitHub DTOs: each walks one element's object once and reads only
// the fields its `Decodable` conformance reads, with the same result. Whatever they do not decode
// exactly as `JSONDecoder` would (a null or missing required field, a wrong type, a duplicated
// wanted key…) throws `JSONReader.Unsupported`, and `JSONPage` then decodes the page through
// `Decodable`, so errors keep their precise JSON paths.

extension GitHubUserDTO {
    private static let keys = JSONKeySet(["login", "id", "html_url", "avatar_url", "type", "site_admin"])

    /// Reads a user object (not null) as `init(from:)` would.
    package init(reading reader: inout JSONReader) throws(JSONReader.Unsupported) {
        var login: String?
        var id: Int?, htmlURL: String?, avatarURL: String?, type: String?, siteAdmin: Bool?
        var seen: UInt32 = 0
        var object = try reader.beginObject()
        while let key = try reader.nextKey(&object) {
            guard let field = try Self.keys.index(of: key, in: reader) else {
                try reader.skipValue()
                continue
            }
            try JSONReader.claim(field, in: &seen)
            switch field {
            case 0: login = try reader.readString()
            case 1: id = try reader.readIntOrNull()
            case 2: htmlURL = try reader.readStringOrNull()
            case 3: avatarURL = try reader.readStringOrNull()
            case 4: type = try reader.readStringOrNull()
            default: siteAdmin = try reader.readBoolOrNull()
            }
        }
        guard let login else { throw JSONReader.Unsupported() }
        self.init(login: login, id: id, htmlURL: htmlURL, avatarURL: avatarURL, type: type, siteAdmin: siteAdmin)
    }

    /// A user object or null, as `decodeIfPresent` would.
    static func readOrNull(_ reader: inout JSONReader) throws(JSONReader.Unsupported) -> GitHubUserDTO? {
        try reader.readNull() ? nil : try GitHubUserDTO(reading: &reader)
    }
}

extension RepositoryDTO {
    private static let keys = JSONKeySet([
        "id", "name", "html_url", "language", "forks_count", "forks", "watchers_count", "watchers",
        "open_issues_count", "open_issues", "owner", "created_at", "updated_at",
    ])

    /// Reads a repository object as `init(from:)` would.
    package init(reading reader: inout JSONReader) throws(JSONReader.Unsupported) {
        var id: Int?, name: String?
        var htmlURL: String?, language: String?
        var forksCount: Int?, forks: Int?, watchersCount: Int?, watchers: Int?, openIssuesCount: Int?, openIssues: Int?
        var owner: GitHubUserDTO?
        var createdAt: String?, updatedAt: String?
        var seen: UInt32 = 0
        var object = try reader.beginObject()
        while let key = try reader.nextKey(&object) {
            guard let field = try Self.keys.index(of: key, in: reader) else {
                try reader.skipValue()
                continue
            }
            try JSONReader.claim(field, in: &seen)
            switch field {
            case 0: id = try reader.readInt()
            case 1: name = try reader.readString()
            case 2: htmlURL = try reader.readStringOrNull()
            case 3: language = try reader.readStringOrNull()
            case 4: forksCount = try reader.readIntOrNull()
            case 5: forks = try reader.readIntOrNull()
            case 6: watchersCount = try reader.readIntOrNull()
            case 7: watchers = try reader.readIntOrNull()
            case 8: openIssuesCount = try reader.readIntOrNull()
            case 9: openIssues = try reader.readIntOrNull()
            case 10: owner = try GitHubUserDTO.readOrNull(&reader)
            case 11: createdAt = try reader.readStringOrNull()
            default: updatedAt = try reader.readStringOrNull()
            }
        }
        guard let id, let name else { throw JSONReader.Unsupported() }
        self.init(
            id: id, name: name, htmlURL: htmlURL, language: language, forksCount: forksCount, forks: forks,
            watchersCount: watchersCount, watchers: watchers, openIssuesCount: openIssuesCount, openIssues: openIssues,
            owner: owner, createdAt: createdAt, updatedAt: updatedAt)
    }
}

extension GistDTO {
    private static let keys = JSONKeySet([
        "id", "description", "html_url", "files", "owner", "user", "created_at", "updated_at",
    ])
    private static let fileKeys = JSONKeySet(["filename", "language"])

    /// Reads a gist object as `init(from:)` would.
    package init(reading reader: inout JSONReader) throws(JSONReader.Unsupported) {
        var id: String?
        var description: String?, htmlURL: String?
        var files: [String: FileDTO]?
        var owner: GitHubUserDTO?, user: GitHubUserDTO?
        var createdAt: String?, updatedAt: String?
        var seen: UInt32 = 0
        var object = try reader.beginObject()
        while let key = try reader.nextKey(&object) {
            guard let field = try Self.keys.index(of: key, in: reader) else {
                try reader.skipValue()
                continue
            }
            try JSONReader.claim(field, in: &seen)
            switch field {
            case 0: id = try reader.readString()
            case 1: description = try reader.readStringOrNull()
            case 2: htmlURL = try reader.readStringOrNull()
            case 3: files = try Self.readFiles(&reader)
            case 4: owner = try GitHubUserDTO.readOrNull(&reader)
            case 5: user = try GitHubUserDTO.readOrNull(&reader)
            case 6: createdAt = try reader.readStringOrNull()
            default: updatedAt = try reader.readStringOrNull()
            }
        }
        guard let id else { throw JSONReader.Unsupported() }
        self.init(
            id: id, description: description, htmlURL: htmlURL, files: files, owner: owner, user: user,
            createdAt: createdAt, updatedAt: updatedAt)
    }

    /// `files`: null, or an object of file objects keyed by name (a repeated name is left to `Decodable`).
    private static func readFiles(_ reader: inout JSONReader) throws(JSONReader.Unsupported) -> [String: FileDTO]? {
        if try reader.readNull() { return nil }
        var files: [String: FileDTO] = [:]
        var object = try reader.beginObject()
        while let key = try reader.nextKey(&object) {
            let name = try reader.string(of: key)
            guard files[name] == nil else { throw JSONReader.Unsupported() }
            var filename: String?, language: String?
            var seen: UInt32 = 0
            var file = try reader.beginObject()
            while let fileKey = try reader.nextKey(&file) {
                guard let field = try fileKeys.index(of: fileKey, in: reader) else {
                    try reader.skipValue()
                    continue
                }
                try JSONReader.claim(field, in: &seen)
                if field == 0 { filename = try reader.readStringOrNull() } else { language = try reader.readStringOrNull() }
            }
            files[name] = FileDTO(filename: filename, language: language)
        }
        return files
    }
}
