import Hummingbird
import HTTPTypes
import NIOCore
import Synchronization

/// The first pages readers poll most — of the stream, of each feed, as JSON, Atom or JSON Feed —
/// kept rendered with their entity tags until the store changes.
///
/// An entry holds the store's change number (``StoreDriver/changeVersion()``) read before it was
/// rendered; a request finding the number unchanged is answered from the entry — no page read, no
/// rendering, no digest of the body — and a matching `If-None-Match` costs only that number's read.
/// A change landing while a page renders leaves the entry with the older number, so the next
/// request renders again: an entry is never newer than its number, never served after a change.
///
/// Bounded: at most ``capacity`` bytes of bodies (entries past it push the oldest out), and a body
/// over ``largestBody`` is not kept. Keys carry everything a rendering depends on — the path and
/// query as sent, the origin the links are built on, the configuration's generation.
final class RenderedPages: Sendable {
    /// One rendered answer.
    struct Page: Sendable {
        var version: Int64
        var headers: HTTPFields
        var body: ByteBuffer
        /// The entity tag, without quotes.
        var tag: String
    }

    private struct State {
        var pages: [String: Page] = [:]
        /// Keys in the order they were stored (oldest first), for eviction.
        var order: [String] = []
        var bytes = 0
    }

    private let state = Mutex(State())
    /// Bytes of bodies kept at most.
    let capacity: Int
    /// The largest body kept.
    let largestBody: Int

    init(capacity: Int = 8 << 20, largestBody: Int = 1 << 20) {
        self.capacity = capacity
        self.largestBody = largestBody
    }

    /// The page kept under `key` when it was rendered at `version`.
    func page(_ key: String, version: Int64) -> Page? {
        state.withLock { state in
            guard let page = state.pages[key], page.version == version else { return nil }
            return page
        }
    }

    /// Keeps `page` under `key` (replacing an older one), within the capacity.
    func keep(_ page: Page, as key: String) {
        let size = page.body.readableBytes
        guard size <= largestBody else { return }
        state.withLock { state in
            if let old = state.pages.removeValue(forKey: key) {
                state.bytes -= old.body.readableBytes
                state.order.removeAll { $0 == key }
            }
            while state.bytes + size > capacity, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                state.bytes -= state.pages.removeValue(forKey: oldest)?.body.readableBytes ?? 0
            }
            state.pages[key] = page
            state.order.append(key)
            state.bytes += size
        }
    }

    /// Pages and bytes kept (for tests and metrics).
    var usage: (pages: Int, bytes: Int) { state.withLock { ($0.pages.count, $0.bytes) } }

    /// The response of a kept page: its headers and body, with its `ETag` set.
    static func response(_ page: Page) -> Response {
        var headers = page.headers
        headers[.eTag] = "\"\(page.tag)\""
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: page.body))
    }
}
