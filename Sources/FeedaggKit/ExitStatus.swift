/// Exit statuses of `feedagg`, documented in the README.
public enum ExitStatus: Int32, Sendable {
    /// Every feed succeeded.
    case success = 0
    /// An unexpected internal error (I/O on output, …).
    case internalError = 1
    /// Bad command-line usage or configuration: nothing was fetched.
    case usageOrConfig = 2
    /// Some feeds failed; the others were printed.
    case partialFailure = 3
    /// Every feed failed.
    case allFailed = 4
    /// The store could not be used (locked by another process past the wait, damaged, unwritable);
    /// nothing in it was changed.
    case storeUnavailable = 5
}
