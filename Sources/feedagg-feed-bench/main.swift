// Feed parser benchmark (`make bench-feed`): parse rate and peak memory of WebFeedSource's parser.
//
//   feedagg-feed-bench [--fixtures DIR] [--megabytes N]
//
// 1. every fixture of DIR (RSS, RDF, Atom, JSON Feed) parsed over and over until N MB (default
//    50) have been read: MB/s;
// 2. one Atom document of at least N MB (the Movable Type fixture's entries repeated, ids made
//    unique) parsed once: MB/s, entries, and the peak RSS before and after it;
// 3. an exec plugin's overhead per page against the same items from `source: http`.
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

var arguments = Array(CommandLine.arguments.dropFirst())
var fixtures = "Tests/WebFeedSourceTests/Fixtures"
var target = 50
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--fixtures": fixtures = arguments.removeFirst()
    case "--megabytes": target = Int(arguments.removeFirst()) ?? target
    default:
        FileHandle.standardError.write(Data("usage: feedagg-feed-bench [--fixtures DIR] [--megabytes N]\n".utf8))
        exit(2)
    }
}
let limits = FeedDocument.Limits(maxBytes: 1 << 30, maxEntries: 10_000_000)
let url = URL(string: "https://bench.test/feed")!
let files = try FileManager.default.contentsOfDirectory(atPath: fixtures)
    .filter { !$0.hasSuffix(".expected.json") && !$0.hasSuffix(".md") }.sorted()
let documents = try files.map { try Data(contentsOf: URL(fileURLWithPath: fixtures).appendingPathComponent($0)) }
guard !documents.isEmpty else {
    FileHandle.standardError.write(Data("no fixtures in \(fixtures)\n".utf8))
    exit(1)
}

// 1. The fixtures, round after round.
var total = 0
var entries = 0
let clock = ContinuousClock()
let start = clock.now
while total < target * 1_000_000 {
    for document in documents {
        entries += try FeedDocument.parse(document, url: url, limits: limits).entries.count
        total += document.count
    }
}
let elapsed = (clock.now - start) / .seconds(1)
print(
    "fixtures (\(documents.count) files, \(megabytes(documents.reduce(0) { $0 + $1.count })) per round): "
        + "\(megabytes(total)) in \(String(format: "%.2f", elapsed)) s = \(String(format: "%.1f", Double(total) / 1_000_000 / elapsed)) MB/s, "
        + "\(entries) entries, peak RSS \(megabytes(peakRSS()))")

// 2. One large Atom document.
let atom = String(decoding: try Data(contentsOf: URL(fileURLWithPath: fixtures).appendingPathComponent("movabletype-touchnokia.atom")), as: UTF8.self)
guard let first = atom.range(of: "<entry>"), let last = atom.range(of: "</entry>", options: .backwards) else {
    FileHandle.standardError.write(Data("the Atom fixture has no entries\n".utf8))
    exit(1)
}
let head = String(atom[..<first.lowerBound])
let block = String(atom[first.lowerBound..<last.upperBound])
var big = head
var copy = 0
while big.utf8.count < target * 1_000_000 {
    big += block.replacingOccurrences(of: "<id>tag:touchnokia.ru,2009://", with: "<id>tag:copy\(copy):")
    copy += 1
}
big += "</feed>\n"
let bigData = Data(big.utf8)
big = ""
let before = peakRSS()
let bigStart = clock.now
let parsed = try FeedDocument.parse(bigData, url: url, limits: limits)
let bigElapsed = (clock.now - bigStart) / .seconds(1)
print(
    "one Atom document of \(megabytes(bigData.count)): \(String(format: "%.2f", bigElapsed)) s = "
        + "\(String(format: "%.1f", Double(bigData.count) / 1_000_000 / bigElapsed)) MB/s, \(parsed.entries.count) entries, "
        + "peak RSS \(megabytes(before)) before, \(megabytes(peakRSS())) after")

// 3. An exec plugin's overhead per page: the same 30 items from `source: exec` and from
//    `source: http` over loopback (ExecOverhead.swift), pages alternating in rounds of 10.
let overhead = try await ExecOverhead.measure(pages: 200)
print(
    "exec plugin (/bin/sh, \(overhead.items) items per page), median of \(overhead.pages) pages: "
        + String(format: "%.2f ms per page; source: http over loopback, same items: %.2f ms per page; ", overhead.execMilliseconds, overhead.httpMilliseconds)
        + String(format: "overhead %.2f ms per page (goal: <= 5 ms)", overhead.overhead))
