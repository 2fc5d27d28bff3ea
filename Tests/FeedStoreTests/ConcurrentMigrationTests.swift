import FeedStore
import FeedaggTesting
import Foundation
import Testing

@Suite("SQLite store: several processes creating one store at once")
struct ConcurrentMigrationTests {
    @Test("eight `feedagg feeds` opening one new store at once, twenty times: every one succeeds, the schema is migrated once")
    func eightProcessesOpenANewStore() async throws {
        let folder = try TemporaryFolder("feedagg-concurrent-migration")
        defer { folder.remove() }
        let binary = try TestBinary.feedagg
        for round in 0..<20 {
            // An empty file: the store every one of them opens is new, and each migrates it.
            let path = folder.path("store-\(round).sqlite")
            #expect(FileManager.default.createFile(atPath: path, contents: nil))
            let outputs = try await withThrowingTaskGroup(of: ProcessOutput.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await ChildProcess.run(
                            binary, arguments: ["feeds", "--db", path], environment: TestBinary.cleanEnvironment,
                            timeout: .seconds(60))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // Before each process retried on a migration another had just committed, 7 of 240
            // such opens failed (`duplicate column name: fanout`, `table feed already exists`).
            for output in outputs {
                #expect(output.status == 0 && !output.terminatedBySignal, "round \(round): \(output.summary)")
            }
            let store = try FeedStore.open(path: path)
            #expect(try store.schemaVersions() == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"])
            #expect(try store.integrityCheck())
            try store.close()
        }
    }
}
