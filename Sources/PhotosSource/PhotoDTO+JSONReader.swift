package import FeedCore

// A single-pass decoder for the 500px photo DTO: it walks one element's object once and reads
// only the fields `PhotoDTO`'s `Decodable` conformance reads, with the same result. Whatever it
// does not decode exactly as `JSONDecoder` would (a null or missing `id`, a wrong type, a
// duplicated wanted key…) throws `JSONReader.Unsupported`, and `JSONPage` then decodes the page
// through `Decodable`, so errors keep their precise JSON paths.

extension PhotoDTO {
    private static let keys = JSONKeySet(["id", "name", "description", "url", "image_url", "images", "created_at", "user"])
    private static let imageKeys = JSONKeySet(["size", "url", "https_url"])
    private static let userKeys = JSONKeySet(["username", "fullname", "userpic_url", "userpic_https_url"])

    /// Reads a photo object as `init(from:)` would.
    package init(reading reader: inout JSONReader) throws(JSONReader.Unsupported) {
        var id: Int?
        var name: String?, description: String?, url: String?, createdAt: String?
        var imageURL: ImageURLField?
        var images: [Image]?
        var user: User?
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
            case 1: name = try reader.readStringOrNull()
            case 2: description = try reader.readStringOrNull()
            case 3: url = try reader.readStringOrNull()
            case 4: imageURL = try Self.readImageURL(&reader)
            case 5: images = try Self.readImages(&reader)
            case 6: createdAt = try reader.readStringOrNull()
            default: user = try Self.readUser(&reader)
            }
        }
        guard let id else { throw JSONReader.Unsupported() }
        self.init(
            id: id, name: name, description: description, url: url, imageURL: imageURL, images: images,
            createdAt: createdAt, user: user)
    }

    /// `image_url`: null, a string, or an array of strings (anything else is left to `Decodable`).
    private static func readImageURL(_ reader: inout JSONReader) throws(JSONReader.Unsupported) -> ImageURLField? {
        if try reader.readNull() { return nil }
        guard try reader.peek() == UInt8(ascii: "[") else { return .one(try reader.readString()) }
        var urls: [String] = []
        var array = try reader.beginArray()
        while try reader.nextElement(&array) { urls.append(try reader.readString()) }
        return .many(urls)
    }

    /// `images`: null or an array of image objects.
    private static func readImages(_ reader: inout JSONReader) throws(JSONReader.Unsupported) -> [Image]? {
        if try reader.readNull() { return nil }
        var images: [Image] = []
        var array = try reader.beginArray()
        while try reader.nextElement(&array) {
            var size: Int?, url: String?, httpsURL: String?
            var seen: UInt32 = 0
            var object = try reader.beginObject()
            while let key = try reader.nextKey(&object) {
                guard let field = try imageKeys.index(of: key, in: reader) else {
                    try reader.skipValue()
                    continue
                }
                try JSONReader.claim(field, in: &seen)
                switch field {
                case 0: size = try reader.readIntOrNull()
                case 1: url = try reader.readStringOrNull()
                default: httpsURL = try reader.readStringOrNull()
                }
            }
            images.append(Image(size: size, url: url, httpsURL: httpsURL))
        }
        return images
    }

    /// `user`: null or the photographer object.
    private static func readUser(_ reader: inout JSONReader) throws(JSONReader.Unsupported) -> User? {
        if try reader.readNull() { return nil }
        var username: String?, fullname: String?, userpicURL: String?, userpicHTTPSURL: String?
        var seen: UInt32 = 0
        var object = try reader.beginObject()
        while let key = try reader.nextKey(&object) {
            guard let field = try userKeys.index(of: key, in: reader) else {
                try reader.skipValue()
                continue
            }
            try JSONReader.claim(field, in: &seen)
            switch field {
            case 0: username = try reader.readStringOrNull()
            case 1: fullname = try reader.readStringOrNull()
            case 2: userpicURL = try reader.readStringOrNull()
            default: userpicHTTPSURL = try reader.readStringOrNull()
            }
        }
        return User(username: username, fullname: fullname, userpicURL: userpicURL, userpicHTTPSURL: userpicHTTPSURL)
    }
}
