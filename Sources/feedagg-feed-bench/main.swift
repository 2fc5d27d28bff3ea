// Feed parser benchmark (`make bench-feed`): parse rate and peak memory of WebFeedSource's parser.
//
//   feedagg-feed-bench [--fixtures DIR] [--megabytes N] [--rounds R] [--fixtures-only]
//   feedagg-feed-bench --parse-file FILE     (one streamed parse; used by step 2)
//
// 1. every fixture of DIR (RSS, RDF, Atom, JSON Feed) parsed over and over until N MB (default
//    50) have been read: MB/s; R rounds of that (default 1), each reported;
// 2. two Atom documents of N and 4×N MB (the Movable Type fixture's entries repeated, ids made
//    unique), written to temporary files a block at a time, each parsed by a fresh process of
//    this program streaming the file (`FeedDocument.stream(fileAt:)`): MB/s, entries and that
//    process's peak RSS, which stays the same whatever the document's size;
// 3. an exec plugin's overhead per page against the same items from `source: http`.
// `--fixtures-only` stops after step 1 (for a profiler such as `valgrind --tool=callgrind`).
import Foundation
import ExecSource
import WebFeedSource

#if canImport(Glibc)
    import Glibc
#endif

func peakRSS() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
}

func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }

let limits = FeedDocument.Limits(maxBytes: 1 << 40, maxEntries: 100_000_000)
let url = URL(string: "https://bench.test/feed")!
let clock = ContinuousClock()

var arguments = Array(CommandLine.arguments.dropFirst())
var fixtures = "Tests/WebFeedSourceTests/Fixtures"
var target = 50
var rounds = 1
var parseFile: String?
var fixturesOnly = false
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--fixtures": fixtures = arguments.removeFirst()
    case "--megabytes": target = Int(arguments.removeFirst()) ?? target
    case "--rounds": rounds = max(1, Int(arguments.removeFirst()) ?? rounds)
    case "--parse-file": parseFile = arguments.removeFirst()
    case "--fixtures-only": fixturesOnly = true
    default:
        FileHandle.standardError.write(
            Data("usage: feedagg-feed-bench [--fixtures DIR] [--megabytes N] [--rounds R] [--fixtures-only] | --parse-file FILE\n".utf8))
        exit(2)
    }
}

// Step 2's child (and HostileDocumentTests' measured parse): one streamed parse of a file, then
// one line for the parent; a document that fails prints `error=<message> peak_rss=N`, exit 1.
if let parseFile {
    let start = clock.now
    var entries = 0
    let header: FeedDocument.Header
    do {
        header = try FeedDocument.stream(fileAt: parseFile, url: url, limits: limits) { _ in entries += 1 }
    } catch {
        print("error=\(error) peak_rss=\(peakRSS())")
        exit(1)
    }
    let seconds = (clock.now - start) / .seconds(1)
    let size = (try FileManager.default.attributesOfItem(atPath: parseFile)[.size] as? Int) ?? 0
    print("entries=\(entries) counted=\(header.entryCount) bytes=\(size) seconds=\(seconds) peak_rss=\(peakRSS())")
    exit(0)
}

let files = try FileManager.default.contentsOfDirectory(atPath: fixtures)
    .filter { !$0.hasSuffix(".expected.json") && !$0.hasSuffix(".md") }.sorted()
let documents = try files.map { try Data(contentsOf: URL(fileURLWithPath: fixtures).appendingPathComponent($0)) }
guard !documents.isEmpty else {
    FileHandle.standardError.write(Data("no fixtures in \(fixtures)\n".utf8))
    exit(1)
}

// 1. The fixtures, round after round.
for round in 1...rounds {
    var total = 0
    var entries = 0
    let start = clock.now
    while total < target * 1_000_000 {
        for document in documents {
            entries += try FeedDocument.parse(document, url: url, limits: limits).entries.count
            total += document.count
        }
    }
    let elapsed = (clock.now - start) / .seconds(1)
    print(
        "fixtures\(rounds > 1 ? " run \(round)/\(rounds)" : "") (\(documents.count) files, "
            + "\(megabytes(documents.reduce(0) { $0 + $1.count })) per round): "
            + "\(megabytes(total)) in \(String(format: "%.2f", elapsed)) s = \(String(format: "%.1f", Double(total) / 1_000_000 / elapsed)) MB/s, "
            + "\(entries) entries, peak RSS \(megabytes(peakRSS()))")
}

if fixturesOnly { exit(0) }

// 2. Two large Atom documents, written to files and streamed by fresh processes.
let atom = String(decoding: try Data(contentsOf: URL(fileURLWithPath: fixtures).appendingPathComponent("movabletype-touchnokia.atom")), as: UTF8.self)
guard let first = atom.range(of: "<entry>"), let last = atom.range(of: "</entry>", options: .backwards) else {
    FileHandle.standardError.write(Data("the Atom fixture has no entries\n".utf8))
    exit(1)
}
let head = Data(atom[..<first.lowerBound].utf8)
let block = String(atom[first.lowerBound..<last.upperBound])

/// Writes an Atom document of at least `megabytes` MB to `path`, about 1 MB at a time.
func writeDocument(megabytes: Int, to path: String) throws {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.write(contentsOf: head)
    var written = head.count
    var pending = Data()
    var copy = 0
    while written + pending.count < megabytes * 1_000_000 {
        pending.append(contentsOf: block.replacingOccurrences(of: "<id>tag:touchnokia.ru,2009://", with: "<id>tag:copy\(copy):").utf8)
        copy += 1
        if pending.count >= 1_000_000 {
            try handle.write(contentsOf: pending)
            written += pending.count
            pending.removeAll(keepingCapacity: true)
        }
    }
    pending.append(contentsOf: "</feed>\n".utf8)
    try handle.write(contentsOf: pending)
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedagg-feed-bench-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
for size in [target, target * 4] {
    let path = folder.appendingPathComponent("atom-\(size)mb.xml").path
    try writeDocument(megabytes: size, to: path)
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).absoluteURL
    child.arguments = ["--parse-file", path]
    let pipe = Pipe()
    child.standardOutput = pipe
    try child.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    child.waitUntilExit()
    try? FileManager.default.removeItem(atPath: path)
    var fields: [String: String] = [:]
    for pair in output.split(whereSeparator: \.isWhitespace) {
        let parts = pair.split(separator: "=", maxSplits: 1)
        if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
    }
    guard child.terminationStatus == 0, let bytes = fields["bytes"].flatMap(Int.init),
        let seconds = fields["seconds"].flatMap(Double.init), let rss = fields["peak_rss"].flatMap(Int.init),
        let entries = fields["entries"]
    else {
        FileHandle.standardError.write(Data("the streamed parse of \(path) failed: \(output)\n".utf8))
        exit(1)
    }
    print(
        "one Atom document of \(megabytes(bytes)), streamed from its file by a fresh process: "
            + "\(String(format: "%.2f", seconds)) s = \(String(format: "%.1f", Double(bytes) / 1_000_000 / seconds)) MB/s, "
            + "\(entries) entries, peak RSS of that process \(megabytes(rss))")
}

// 3. An exec plugin's overhead per page: the same 30 items from `source: exec` and from
//    `source: http` over loopback (ExecOverhead.swift), pages alternating in rounds of 10.
let overhead = try await ExecOverhead.measure(pages: 200)
print(
    "exec plugin (/bin/sh, \(overhead.items) items per page), median of \(overhead.pages) pages: "
        + String(format: "%.2f ms per page; source: http over loopback, same items: %.2f ms per page; ", overhead.execMilliseconds, overhead.httpMilliseconds)
        + String(format: "overhead %.2f ms per page (goal: <= 5 ms)", overhead.overhead))
