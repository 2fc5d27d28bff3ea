import CCurl
import Foundation

/// The multi handle's wake-up line: the one libcurl pointer used outside the loop thread.
///
/// Callers submit or cancel requests from any thread and must interrupt `curl_multi_poll` on the
/// loop thread; `curl_multi_wakeup` is documented thread-safe for that. The raw `CURLM` pointer is
/// not `Sendable`, hence `@unchecked Sendable`, made sound by these rules: the pointer is read and
/// used only while `lock` is held, only for `curl_multi_wakeup`, and the loop thread calls
/// ``invalidate()`` (under the same lock) before `curl_multi_cleanup`, so no wake-up can touch a
/// freed handle.
final class MultiWakeup: @unchecked Sendable {
    private let lock = NSLock()
    private var multi: UnsafeMutableRawPointer?

    /// Makes ``wake()`` reach `multi` (loop thread, once the handle exists).
    func install(_ multi: UnsafeMutableRawPointer) {
        lock.lock()
        defer { lock.unlock() }
        self.multi = multi
    }

    /// Interrupts the loop thread's `curl_multi_poll`; does nothing before install or after invalidate.
    func wake() {
        lock.lock()
        defer { lock.unlock() }
        if let multi { _ = curl_multi_wakeup(multi) }
    }

    /// Forgets the handle (loop thread, before `curl_multi_cleanup`).
    func invalidate() {
        lock.lock()
        defer { lock.unlock() }
        multi = nil
    }
}
