import CCurl
import FeedCore
import Foundation
import Synchronization

/// The loop-thread half: owns the multi handle, the admission queue and every running transfer.
/// Created on the loop thread and never leaves it.
final class CurlLoopWorker {
    private let loop: CurlEventLoop
    private let multi: UnsafeMutableRawPointer
    private let configuration: CurlClient.Configuration
    private let onTransfer: (@Sendable (CurlClient.TransferMetrics) -> Void)?
    /// Admitted transfers by easy handle.
    private var running: [UnsafeMutableRawPointer: Transfer] = [:]
    /// Transfers waiting for a free slot, oldest first.
    private var waiting: [Transfer] = []
    /// Admitted transfers per host key.
    private var perHost: [String: Int] = [:]
    /// Reset easy handles kept for reuse.
    private var easyPool: [UnsafeMutableRawPointer] = []
    private let easyPoolLimit = 16

    /// `curl_global_init`, run once per process (Swift initialises statics exactly once, thread-safely).
    private static let globalInit: CURLcode = ccurl_global_init_all()

    /// Initialises libcurl and creates the multi handle; on failure records why (failing every
    /// request already registered) and returns `nil`.
    init?(
        loop: CurlEventLoop, configuration: CurlClient.Configuration,
        onTransfer: (@Sendable (CurlClient.TransferMetrics) -> Void)?
    ) {
        let initFailure: String?
        var created: UnsafeMutableRawPointer?
        if CurlLoopWorker.globalInit != CURLE_OK {
            initFailure = "curl_global_init: \(String(cString: curl_easy_strerror(CurlLoopWorker.globalInit)))"
        } else if let multi = curl_multi_init() {
            _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.perHostLimit)
            _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.totalLimit)
            _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.totalLimit)
            created = multi
            initFailure = nil
        } else {
            initFailure = "curl_multi_init failed"
        }
        let thread = pthread_self()
        let pending = loop.state.withLock { state -> [Submission] in
            state.loopThread = thread
            state.initFailure = initFailure
            guard initFailure != nil else { return [] }
            // Nothing will ever run: refuse later submissions and fail the queued ones.
            state.isShutDown = true
            let pending = CurlLoopWorker.takeQueued(&state)
            for submission in pending { state.requests[submission.id] = nil }
            return pending
        }
        guard initFailure == nil, let multi = created else {
            for submission in pending {
                submission.continuation.resume(
                    throwing: TransportError(
                        kind: .other, url: submission.request.url,
                        detail: "libcurl could not be initialised (\(initFailure ?? "unknown failure"))"))
            }
            return nil
        }
        loop.wakeup.install(multi)
        self.loop = loop
        self.multi = multi
        self.configuration = configuration
        self.onTransfer = onTransfer
    }

    /// Removes and returns every queued submission, oldest first, marking them active.
    private static func takeQueued(_ state: inout SharedState) -> [Submission] {
        var taken: [Submission] = []
        for id in state.submissionOrder {
            if case .queued(let submission)? = state.requests[id] {
                state.requests[id] = .active
                taken.append(submission)
            }
        }
        state.submissionOrder.removeAll()
        return taken
    }

    // MARK: - The loop

    /// Runs until shutdown: drain submissions and cancellations, admit, perform, collect, poll.
    func run() {
        while true {
            let (incoming, cancelled, stop) = loop.state.withLock { state in
                let incoming = CurlLoopWorker.takeQueued(&state)
                let cancelled = state.cancellations
                state.cancellations.removeAll()
                return (incoming, cancelled, state.isShutDown)
            }
            waiting += incoming.map { Transfer($0, maxBytes: configuration.maxResponseBytes) }
            for id in cancelled { cancelTransfer(id) }
            if stop { break }

            admit()
            var stillRunning: Int32 = 0
            _ = curl_multi_perform(multi, &stillRunning)
            collectCompletions()
            if admit() { continue }  // slots freed and filled: perform the new transfers before sleeping
            var descriptors: Int32 = 0
            _ = curl_multi_poll(multi, nil, 0, 1000, &descriptors)
        }
        tearDown()
    }

    // MARK: - Starting and completing transfers

    /// Starts waiting transfers, oldest first, while their host and the total have room.
    /// Returns whether any was started.
    @discardableResult
    private func admit() -> Bool {
        guard !waiting.isEmpty, running.count < configuration.totalLimit else { return false }
        var admitted = false
        var stillWaiting: [Transfer] = []
        for transfer in waiting {
            if running.count < configuration.totalLimit,
                perHost[transfer.hostKey, default: 0] < configuration.perHostLimit
            {
                start(transfer)
                admitted = true
            } else {
                stillWaiting.append(transfer)
            }
        }
        waiting = stillWaiting
        return admitted
    }

    /// Configures an easy handle for `transfer` and adds it to the multi handle.
    private func start(_ transfer: Transfer) {
        guard let easy = easyPool.popLast() ?? curl_easy_init() else {
            fail(transfer, TransportError(kind: .other, url: transfer.request.url, detail: "curl_easy_init failed"))
            return
        }
        transfer.admittedAt = .now
        if let problem = transfer.configure(easy, configuration) {
            recycle(easy, of: transfer)
            fail(transfer, TransportError(kind: .other, url: transfer.request.url, detail: "cannot configure libcurl: \(problem)"))
            return
        }
        let code = curl_multi_add_handle(multi, easy)
        guard code == CURLM_OK else {
            recycle(easy, of: transfer)
            let message = String(cString: curl_multi_strerror(code))
            fail(transfer, TransportError(kind: .other, url: transfer.request.url, detail: "curl_multi_add_handle: \(message)"))
            return
        }
        running[easy] = transfer
        perHost[transfer.hostKey, default: 0] += 1
    }

    /// Finishes every transfer libcurl reports done.
    private func collectCompletions() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let result = message.pointee.data.result  // copy before remove_handle frees the message
            _ = curl_multi_remove_handle(multi, easy)
            guard let transfer = running.removeValue(forKey: easy) else { continue }
            release(transfer)
            complete(transfer, easy: easy, result: result)
        }
    }

    /// Turns a finished transfer into a response or an error and resumes its caller.
    private func complete(_ transfer: Transfer, easy: UnsafeMutableRawPointer, result: CURLcode) {
        var status = 0
        var httpVersion = 0
        var connects = 0
        var seconds = 0.0
        var effective: UnsafePointer<CChar>?
        _ = ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        _ = ccurl_getinfo_long(easy, CURLINFO_HTTP_VERSION, &httpVersion)
        _ = ccurl_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        _ = ccurl_getinfo_double(easy, CURLINFO_TOTAL_TIME, &seconds)
        _ = ccurl_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effective)
        let effectiveURL = effective.map { String(cString: $0) }

        let outcome: Result<HTTPResponse, TransportError>
        if result == CURLE_OK {
            outcome = .success(transfer.makeResponse(status: status, effectiveURL: effectiveURL))
        } else {
            var pretransfer: curl_off_t = 0
            _ = ccurl_getinfo_off_t(easy, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
            let timing = TimeoutFacts(
                configuration: configuration, firstByteTimedOut: transfer.firstByteTimedOut,
                receivedFirstByte: transfer.receivedFirstByte, connected: pretransfer > 0)
            outcome = .failure(
                .curl(
                    result, request: transfer.request, errorBuffer: transfer.errorBufferText,
                    exceededLimit: transfer.exceededLimit, limit: configuration.maxResponseBytes, timing: timing))
        }
        if let onTransfer {
            let queuedFor = transfer.admittedAt.map { $0 - transfer.submittedAt } ?? .zero
            let failure: TransportError.Kind? = if case .failure(let error) = outcome { error.kind } else { nil }
            onTransfer(
                CurlClient.TransferMetrics(
                    url: Redaction.shown(effectiveURL ?? transfer.request.url.absoluteString),
                    status: failure == nil ? status : nil, failure: failure,
                    bytesReceived: transfer.bytesReceived, seconds: seconds,
                    queuedSeconds: queuedFor.seconds,
                    connectionReused: connects == 0, httpVersion: CurlLoopWorker.versionName(httpVersion)))
        }
        recycle(easy, of: transfer)
        finish(transfer, outcome)
    }

    /// The name of a `CURL_HTTP_VERSION_*` value.
    private static func versionName(_ version: Int) -> String {
        switch version {
        case CURL_HTTP_VERSION_1_0: "1.0"
        case CURL_HTTP_VERSION_1_1: "1.1"
        case CURL_HTTP_VERSION_2_0: "2"
        case CURL_HTTP_VERSION_3: "3"
        default: ""
        }
    }

    // MARK: - Cancelling, failing and tearing down

    /// Cancels the transfer `id` if it is still waiting or running here.
    private func cancelTransfer(_ id: UInt64) {
        if let index = waiting.firstIndex(where: { $0.id == id }) {
            let transfer = waiting.remove(at: index)
            fail(transfer, TransportError(kind: .cancelled, url: transfer.request.url, detail: "request was cancelled"))
        } else if let (easy, transfer) = running.first(where: { $0.value.id == id }) {
            _ = curl_multi_remove_handle(multi, easy)
            running[easy] = nil
            release(transfer)
            recycle(easy, of: transfer)
            fail(transfer, TransportError(kind: .cancelled, url: transfer.request.url, detail: "request was cancelled"))
        }
    }

    /// Frees the admission slot of a transfer that left libcurl.
    private func release(_ transfer: Transfer) {
        let count = perHost[transfer.hostKey, default: 1] - 1
        perHost[transfer.hostKey] = count > 0 ? count : nil
    }

    /// Resets `easy` (so it no longer points into `transfer`) and keeps it for reuse or frees it.
    private func recycle(_ easy: UnsafeMutableRawPointer, of transfer: Transfer) {
        curl_easy_reset(easy)
        transfer.releaseCurlResources()
        if easyPool.count < easyPoolLimit {
            easyPool.append(easy)
        } else {
            curl_easy_cleanup(easy)
        }
    }

    private func fail(_ transfer: Transfer, _ error: TransportError) {
        finish(transfer, .failure(error))
    }

    /// Forgets the transfer's registration, then resumes its caller.
    private func finish(_ transfer: Transfer, _ outcome: Result<HTTPResponse, TransportError>) {
        let id = transfer.id
        loop.state.withLock { _ = $0.requests.removeValue(forKey: id) }
        transfer.continuation.resume(with: outcome.mapError { $0 as any Error })
    }

    /// Fails everything still pending, then frees every libcurl resource.
    private func tearDown() {
        let leftovers = loop.state.withLock { CurlLoopWorker.takeQueued(&$0) }
        for (easy, transfer) in running {
            _ = curl_multi_remove_handle(multi, easy)
            recycle(easy, of: transfer)
            fail(transfer, TransportError(kind: .cancelled, url: transfer.request.url, detail: "the HTTP client was shut down"))
        }
        running.removeAll()
        for transfer in waiting + leftovers.map({ Transfer($0, maxBytes: configuration.maxResponseBytes) }) {
            fail(transfer, TransportError(kind: .cancelled, url: transfer.request.url, detail: "the HTTP client was shut down"))
        }
        waiting.removeAll()
        for easy in easyPool { curl_easy_cleanup(easy) }
        easyPool.removeAll()
        loop.wakeup.invalidate()
        loop.state.withLock { $0.loopThread = nil }
        _ = curl_multi_cleanup(multi)
    }
}
