import FeedCore
import Foundation
import GitHubSource
import PhotosSource
import StableHash

#if canImport(Glibc)
    import Glibc
#endif

/// `feedagg-cpu-bench` (`make bench-cpu`): the CPU-bound half of issue 4's benchmarks.
///
/// Decodes page files through the real built-in sources (`GitHubReposSource`,
/// `FiveHundredPxSource`), maps them to `FeedItem`s and merges every item with `UnifiedStream`,
/// then prints items/s per stage and overall and the peak RSS (`getrusage`). No network, no store.
///
/// Stages, each timed around the calls only (reading a page file is timed apart, as `read`):
/// - `decode`: the source's element decoding into its DTOs (first half of `decodePage`: the
///   single-pass `JSONReader` decoder, falling back to `Decodable` for a page it cannot decode);
/// - `decode with Codable`: the same through `Decodable` only (`JSONDecoder`, the fallback path,
///   driven by the same field table), for comparison; every page's DTOs are also checked equal
///   between the two;
/// - `map`: DTOs to `FeedItem`s (second half);
/// - `decodePage`: the public `decodePage`, both halves, as the engine calls it; its items are
///   kept (raw JSON included, as the engine gets them) for
/// - `merge`: `UnifiedStream.merge` of every feed's items (one feed per org, one for photos).
///
/// Pages are generated once, deterministically, into `--pages DIR` (see ``PageGenerator``).
@main
struct CPUBench {
    struct Options {
        var pagesDirectory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("feedagg-cpu-bench-pages")
        var orgs = 10
        var pagesPerOrg = 100
        var photoPages = 200
        var perPage = 100
        var reps = 3
        var regenerate = false
    }

    static let usage = """
        usage: feedagg-cpu-bench [--pages DIR] [--orgs N] [--pages-per-org N] [--photo-pages N] [--per-page N]
                                 [--reps N] [--regenerate]
        Defaults: 10 orgs x 100 pages x 100 repos (100,000 repos) and 200 x 100 photos, 3 repetitions,
        pages generated once into $TMPDIR/feedagg-cpu-bench-pages.
        """

    static func parse(_ arguments: [String]) -> Options? {
        var options = Options()
        var index = 0
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        func number() -> Int? { value().flatMap(Int.init).flatMap { $0 >= 0 ? $0 : nil } }
        while index < arguments.count {
            switch arguments[index] {
            case "--pages": guard let v = value() else { return nil }; options.pagesDirectory = URL(fileURLWithPath: v)
            case "--orgs": guard let v = number() else { return nil }; options.orgs = v
            case "--pages-per-org": guard let v = number() else { return nil }; options.pagesPerOrg = v
            case "--photo-pages": guard let v = number() else { return nil }; options.photoPages = v
            case "--per-page": guard let v = number(), v > 0 else { return nil }; options.perPage = v
            case "--reps": guard let v = number(), v > 0 else { return nil }; options.reps = v
            case "--regenerate": options.regenerate = true
            default: return nil
            }
            index += 1
        }
        return options
    }

    static func main() {
        guard let options = parse(Array(CommandLine.arguments.dropFirst())) else {
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            exit(2)
        }
        do {
            try run(options)
        } catch {
            FileHandle.standardError.write(Data("feedagg-cpu-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Peak resident set size of this process so far, in MB.
    static func peakRSSMegabytes() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024  // kilobytes on Linux
    }

    /// Times `body`, adding its duration to `total`.
    static func timed<T>(_ total: inout Double, _ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        let value = try body()
        total += (ContinuousClock.now - start).seconds
        return value
    }

    /// A page file as the engine hands a `200` response to `decodePage`.
    static func fetched(_ file: URL, url: URL) throws -> FetchedPage {
        let body = try Data(contentsOf: file)
        return FetchedPage(
            number: 1, url: url,
            response: HTTPResponse(status: 200, headers: ["Content-Type": "application/json; charset=utf-8"], body: body, url: url))
    }

    /// A built-in source declared like feeds.yaml would (`pairs` under the feed's mapping).
    static func makeSource<S: FeedSource>(_ type: S.Type, name: String, _ pairs: [(String, String)]) throws -> S {
        let file = SourceFile(path: "bench.yaml", text: "")
        let at = SourceLocation(file: file, line: 1, column: 1)
        func scalar(_ text: String) -> ConfigNode { ConfigNode(.scalar(text, plain: true), at: at) }
        let entries = [(key: scalar("name"), value: scalar(name)), (key: scalar("source"), value: scalar(S.descriptor.typeName))]
            + pairs.map { (key: scalar($0.0), value: scalar($0.1)) }
        let parameters = FeedParameters(
            node: ConfigNode(.mapping(entries), at: at), defaults: nil, feedName: name, sourceType: S.descriptor.typeName)
        let base = URL(string: "http://127.0.0.1:8765")!
        let context = FeedContext(name: name, baseURL: base, pageSize: 100)
        return try S(feed: context, parameters: parameters)
    }

    /// FNV-1a over every field of the items, to show that two builds decode the same output.
    static func checksum(_ items: [FeedItem], into hash: inout FNV1a) {
        func mix(_ text: String?) {
            hash.combine((text ?? "\u{0}").utf8)
            hash.combine(CollectionOfOne(0xFF))
        }
        for item in items {
            mix(item.id)
            mix(item.title)
            mix(item.summary)
            mix(item.url)
            mix(item.author?.name)
            mix(item.author?.url)
            mix(item.author?.avatarURL)
            mix(item.imageURL)
            mix(item.published.map { "\($0.timeIntervalSince1970)" })
            mix(item.updated.map { "\($0.timeIntervalSince1970)" })
            hash.combine(item.raw ?? Data())
        }
    }

    struct Feed {
        var name: String
        var files: [URL]
    }

    /// The decode and map times of one source's pages, in seconds.
    struct Stages {
        var decode = 0.0
        var map = 0.0

        /// Decodes every page file with `decode`, then maps its elements with `map`, each timed
        /// around its call only (results dropped); returns the number of items.
        mutating func decodeThenMap<Element>(
            _ files: [URL], url: URL, decode elements: (FetchedPage) throws -> [Element],
            map items: ([Element]) throws -> [FeedItem]
        ) throws -> Int {
            var count = 0
            for file in files {
                let page = try CPUBench.fetched(file, url: url)
                let decoded = try CPUBench.timed(&decode) { try elements(page) }
                count += try CPUBench.timed(&map) { try items(decoded) }.count
            }
            return count
        }
    }

    /// One repetition's timings, in seconds, by stage name.
    typealias Timings = [String: Double]

    static func run(_ options: Options) throws {
        let directory = options.pagesDirectory.appendingPathComponent(
            "v1-\(options.orgs)x\(options.pagesPerOrg)x\(options.perPage)-p\(options.photoPages)")
        let marker = directory.appendingPathComponent(".complete")
        if options.regenerate || !FileManager.default.fileExists(atPath: marker.path) {
            let start = ContinuousClock.now
            try? FileManager.default.removeItem(at: directory)
            try PageGenerator().write(
                to: directory, orgs: options.orgs, pagesPerOrg: options.pagesPerOrg, photoPages: options.photoPages,
                perPage: options.perPage)
            try Data().write(to: marker)
            print("generated pages in \(directory.path) in \(String(format: "%.1f", (ContinuousClock.now - start).seconds)) s")
        }
        let repoFeeds = (0..<options.orgs).map { o in
            Feed(
                name: "org\(o + 1)-repos",
                files: (1...max(1, options.pagesPerOrg)).prefix(options.pagesPerOrg).map {
                    directory.appendingPathComponent(PageGenerator.repoFile(org: o + 1, page: $0))
                })
        }
        let photoFiles = (1...max(1, options.photoPages)).prefix(options.photoPages).map {
            directory.appendingPathComponent(PageGenerator.photoFile(page: $0))
        }
        let repoSources = try repoFeeds.map { feed in
            try makeSource(GitHubReposSource.self, name: feed.name, [("org", String(feed.name.dropLast(6)))])
        }
        let photoSource = try makeSource(FiveHundredPxSource.self, name: "editors-photos", [("feature", "editors")])
        let repoURL = URL(string: "http://127.0.0.1:8765/orgs/org/repos?per_page=100")!
        let photoURL = URL(string: "http://127.0.0.1:8765/v1/photos?feature=editors&rpp=100")!

        var repoBytes = 0, photoBytes = 0, repoCount = 0, photoCount = 0, mergedCount = 0, rawBytes = 0
        var checksums: Set<UInt64> = []
        var fellBack = 0, mismatches = 0
        var all: [Timings] = []
        var stageRSS: [(String, Double)] = []
        for rep in 1...options.reps {
            var t: Timings = [:]
            // read: every file once (this also warms the page cache for the stages below).
            repoBytes = 0
            photoBytes = 0
            var readTime = 0.0
            for feed in repoFeeds {
                for file in feed.files { repoBytes += try timed(&readTime) { try Data(contentsOf: file) }.count }
            }
            for file in photoFiles { photoBytes += try timed(&readTime) { try Data(contentsOf: file) }.count }
            t["read"] = readTime

            // decode, then map, page by page (results dropped).
            var repoStages = Stages()
            repoCount = 0
            for (feed, source) in zip(repoFeeds, repoSources) {
                repoCount += try repoStages.decodeThenMap(
                    feed.files, url: repoURL, decode: source.decodeRepositories, map: source.items(from:))
            }
            t["repos.decode"] = repoStages.decode
            t["repos.map"] = repoStages.map
            var photoStages = Stages()
            photoCount = try photoStages.decodeThenMap(
                photoFiles, url: photoURL, decode: photoSource.decodePhotos, map: photoSource.items(from:))
            t["photos.decode"] = photoStages.decode
            t["photos.map"] = photoStages.map

            // The same decoding through Decodable only, checked equal to the reader's.
            var decode = 0.0
            for (feed, source) in zip(repoFeeds, repoSources) {
                for file in feed.files {
                    let page = try fetched(file, url: repoURL)
                    let codable = try timed(&decode) { try JSONPage.elements(RepositoryDTO.self, in: page) }
                    if rep == 1 {
                        let read = JSONPage.readElements(in: page, reading: RepositoryDTO.init(reading:))
                        if read == nil { fellBack += 1 }
                        if try source.decodeRepositories(page).map(\.value) != codable.map(\.value) { mismatches += 1 }
                    }
                }
            }
            t["repos.decodeCodable"] = decode
            decode = 0
            for file in photoFiles {
                let page = try fetched(file, url: photoURL)
                let codable = try timed(&decode) { try JSONPage.elements(PhotoDTO.self, in: page, at: ["photos"]) }
                if rep == 1 {
                    let read = JSONPage.readElements(in: page, at: ["photos"], reading: PhotoDTO.init(reading:))
                    if read == nil { fellBack += 1 }
                    if try photoSource.decodePhotos(page).map(\.value) != codable.map(\.value) { mismatches += 1 }
                }
            }
            t["photos.decodeCodable"] = decode
            if rep == 1 { stageRSS.append(("after decode + map (results dropped)", peakRSSMegabytes())) }

            // decodePage, keeping every item for the merge.
            var inputs: [UnifiedStream.Input] = []
            var hash = FNV1a()
            var decodePage = 0.0
            for (feed, source) in zip(repoFeeds, repoSources) {
                var items: [FeedItem] = []
                items.reserveCapacity(feed.files.count * options.perPage)
                for file in feed.files {
                    let page = try fetched(file, url: repoURL)
                    items += try timed(&decodePage) { try source.decodePage(page) }.items
                }
                checksum(items, into: &hash)
                inputs.append(UnifiedStream.Input(feed: feed.name, source: GitHubReposSource.descriptor.typeName, items: items))
            }
            t["repos.decodePage"] = decodePage
            decodePage = 0
            var photos: [FeedItem] = []
            for file in photoFiles {
                let page = try fetched(file, url: photoURL)
                photos += try timed(&decodePage) { try photoSource.decodePage(page) }.items
            }
            checksum(photos, into: &hash)
            inputs.append(UnifiedStream.Input(feed: "editors-photos", source: FiveHundredPxSource.descriptor.typeName, items: photos))
            t["photos.decodePage"] = decodePage
            checksums.insert(hash.value)
            rawBytes = inputs.reduce(0) { $0 + $1.items.reduce(0) { $0 + ($1.raw?.count ?? 0) } }
            if rep == 1 { stageRSS.append(("after decodePage (all items kept)", peakRSSMegabytes())) }

            var merge = 0.0
            let merged = timed(&merge) { UnifiedStream.merge(inputs) }
            mergedCount = merged.count
            t["merge"] = merge
            if rep == 1 { stageRSS.append(("after merge", peakRSSMegabytes())) }
            all.append(t)
            print(String(format: "rep %d: repos decodePage %.3f s, photos decodePage %.3f s, merge %.3f s", rep,
                         t["repos.decodePage"] ?? 0, t["photos.decodePage"] ?? 0, merge))
        }

        func median(_ key: String) -> Double {
            let values = all.compactMap { $0[key] }.sorted()
            guard !values.isEmpty else { return 0 }
            return values.count % 2 == 1 ? values[values.count / 2] : (values[values.count / 2 - 1] + values[values.count / 2]) / 2
        }
        let mb = 1_048_576.0
        print("")
        print("feedagg-cpu-bench: \(repoCount) github.repos items (\(repoFeeds.count) feeds x \(options.pagesPerOrg) pages x \(options.perPage), "
            + String(format: "%.1f MB", Double(repoBytes) / mb) + ") and \(photoCount) photos.500px items ("
            + "\(photoFiles.count) pages x \(options.perPage), " + String(format: "%.1f MB", Double(photoBytes) / mb)
            + "), from \(directory.path)")
        print("median of \(options.reps) repetitions; each stage timed around its calls only")
        func row(_ stage: String, _ items: Int, _ time: Double, bytes: Int? = nil) {
            let rate = time > 0 ? Double(items) / time : 0
            let throughput = bytes.map { time > 0 ? String(format: "%8.1f", Double($0) / mb / time) : "       -" } ?? "        "
            let label = stage.count < 40 ? stage + String(repeating: " ", count: 40 - stage.count) : stage
            print("  " + label + String(format: " %7d items %8.3f s %10.0f items/s", items, time, rate) + " \(throughput)"
                + (bytes == nil ? "" : " MB/s"))
        }
        row("read page files", repoCount + photoCount, median("read"), bytes: repoBytes + photoBytes)
        row("github.repos decode (to DTOs)", repoCount, median("repos.decode"), bytes: repoBytes)
        row("github.repos decode with Codable only", repoCount, median("repos.decodeCodable"), bytes: repoBytes)
        row("github.repos map (DTOs to items)", repoCount, median("repos.map"))
        row("github.repos decodePage", repoCount, median("repos.decodePage"), bytes: repoBytes)
        row("photos.500px decode (to DTOs)", photoCount, median("photos.decode"), bytes: photoBytes)
        row("photos.500px decode with Codable only", photoCount, median("photos.decodeCodable"), bytes: photoBytes)
        row("photos.500px map (DTOs to items)", photoCount, median("photos.map"))
        row("photos.500px decodePage", photoCount, median("photos.decodePage"), bytes: photoBytes)
        row("merge (UnifiedStream, \(repoFeeds.count + 1) feeds)", repoCount + photoCount, median("merge"))
        let overall = all.map { ($0["repos.decodePage"] ?? 0) + ($0["photos.decodePage"] ?? 0) + ($0["merge"] ?? 0) }.sorted()
        row("overall (decodePage + merge)", repoCount + photoCount, overall[overall.count / 2])
        print("  JSONReader vs Codable: \(mismatches) of \(repoFeeds.count * options.pagesPerOrg + photoFiles.count) pages decoded differently, \(fellBack) fell back to Codable")
        print("  merged stream: \(mergedCount) entries; output checksum \(checksums.map { String($0, radix: 16) }.sorted().joined(separator: ", "))")
        for (label, rss) in stageRSS { print("  peak RSS \(label): " + String(format: "%.1f MB", rss)) }
        print(String(format: "peak RSS (getrusage ru_maxrss): %.1f MB; of it, raw item JSON kept by the items: %.1f MB",
                     peakRSSMegabytes(), Double(rawBytes) / mb))
    }
}
