// A worker that dies holding leases, for the coordination tests: it registers, leases up to
// LIMIT due feeds, prints `leased: a,b,…` (on standard error) and then waits, beating no heartbeat, until it is
// killed (the tests send SIGKILL).
//
// Usage: feedagg-lease-holder HOST PORT USER DATABASE WORKER-ID LEASE-TIMEOUT-MS LIMIT
import Foundation

#if PostgreSQL
    import Logging
    import PostgresNIO
    import WorkerCoordination

    let arguments = CommandLine.arguments
    guard arguments.count == 8, let port = Int(arguments[2]), let leaseMilliseconds = Int64(arguments[6]),
        let limit = Int(arguments[7])
    else {
        FileHandle.standardError.write(Data("usage: feedagg-lease-holder HOST PORT USER DATABASE WORKER-ID LEASE-TIMEOUT-MS LIMIT\n".utf8))
        exit(2)
    }
    let logger = Logger(label: "feedagg-lease-holder")
    let client = PostgresClient(
        configuration: .init(host: arguments[1], port: port, username: arguments[3], password: nil, database: arguments[4], tls: .disable))
    let coordinator = WorkerCoordinator(
        client: client, id: WorkerID(arguments[5]),
        settings: CoordinationSettings(leaseTimeout: .milliseconds(leaseMilliseconds)), logger: logger)

    await withTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        do {
            try await WorkerCoordinator.migrate(client, logger: logger)
            try await coordinator.register()
            let leases = try await coordinator.leaseDueFeeds(limit: limit)
            FileHandle.standardError.write(Data(("leased: " + leases.map(\.feed).joined(separator: ",") + "\n").utf8))
            while true { try await Task.sleep(for: .seconds(3600)) }
        } catch {
            FileHandle.standardError.write(Data("feedagg-lease-holder: \(error)\n".utf8))
            exit(1)
        }
    }
#else
    FileHandle.standardError.write(Data("feedagg-lease-holder: built without the PostgreSQL trait\n".utf8))
    exit(2)
#endif
