import Dispatch

/// Runs blocking work (SQLite reads) on a global dispatch queue, keeping Swift's cooperative pool
/// and the server's event loops free.
enum Blocking {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}
