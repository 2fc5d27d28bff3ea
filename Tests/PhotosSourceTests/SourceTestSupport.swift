import FeedCore
import FeedaggTesting
import Foundation
import PhotosSource
import Testing

// Shared by this target's decode and configuration tests: no network, no engine. Real
// responses are read in place from ../shared/realworld (beside the project); tests that need them
// are skipped, with a message, when that folder is absent.

enum Realworld {
    /// A `500px/mypum-GraphQL-500px/` file, byte for byte.
    static func fiveHundredPx(_ name: String) throws -> Data {
        try Data(contentsOf: RepositoryPaths.realworld.appendingPathComponent("500px/mypum-GraphQL-500px/\(name)"))
    }
}


/// A ghserver-style 500px envelope (`photos` in bench/ghserver.py) around `photos`.
func envelope(_ photos: [String], totals: Bool = true) -> String {
    let head = totals ? #""current_page":2,"total_pages":100,"total_items":2000,"# : ""
    return "{\(head)\"filters\":{\"category\":false,\"exclude\":false},\"feature\":\"editors\",\"photos\":[\(photos.joined(separator: ","))]}"
}

func photoJSON(id: Int = 123_456_789, name: String = "\"Golden Hour\"", description: String = "\"Tokyo at dusk\"",
               imageURL: String = "\"https://drscdn.500px.org/photo/123456789/q%3D80_m%3D2000/v2?sig=ab\"") -> String {
    """
    {"id":\(id),"user_id":4242,"name":\(name),"description":\(description),"created_at":"2017-10-02T13:43:27-05:00",
     "image_url":\(imageURL),"images":[{"size":2,"url":"https://drscdn.500px.org/photo/x","https_url":"https://drscdn.500px.org/photo/x"}],
     "user":{"id":4242,"username":"fast4242","firstname":"Fast4242","lastname":"","fullname":"Fast4242",
             "userpic_url":"https://drscdn.500px.org/user_avatar/4242/q%3D85_w%3D300_h%3D300/v2"}}
    """
}
