import Foundation
import Synchronization

/// Reads a pipe to its end on a thread of its own, keeping everything read.
final class OutputCollector: Sendable {
    private let collected = Mutex(Data())
    private let endSignal = DispatchSemaphore(value: 0)

    init() {}

    /// Everything read so far, as UTF-8.
    var text: String { collected.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Everything read so far.
    var data: Data { collected.withLock { $0 } }

    /// Starts reading `handle` until end of file on a dedicated thread.
    func drain(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                collected.withLock { $0.append(chunk) }
            }
            endSignal.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Blocks until the pipe has ended (the child closed it, normally by exiting). Idempotent.
    func waitForEnd() {
        endSignal.wait()
        endSignal.signal()
    }
}
