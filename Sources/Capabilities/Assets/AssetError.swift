#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything that can go wrong on the asset volume, typed so callers can decide what to do.
///
/// Descriptions name the relative path and the failing operation only — never file contents.
public enum AssetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The volume has no space left (ENOSPC or EDQUOT): retried with backoff, as space may be freed.
    case diskFull(path: String)
    /// The root (or a folder below it) cannot be written: a read-only mount (EROFS) or missing permission (EACCES, EPERM).
    case readOnly(path: String)
    /// A name or path would leave the root: `..`, an absolute path, or a symbolic link pointing outside.
    case pathEscapesRoot(String)
    /// A name that is empty, too long, or contains characters that are never allowed (NUL, `/` in a single component).
    case invalidName(String)
    /// No asset at this relative path.
    case notFound(path: String)
    /// The bytes on disk do not match the checksum that was recorded for them.
    case checksumMismatch(path: String, expected: String, actual: String)
    /// A generated-content record is inconsistent (for example inline bytes for a non-text type).
    case invalidRecord(reason: String)
    /// The file is larger than the reader's cap (`size` is what `stat` or the read found), so it
    /// was not read into memory.
    case tooLarge(path: String, size: Int64, limit: Int)
    /// Any other operating-system failure, with the operation that failed and `errno`.
    case io(operation: String, path: String, errno: Int32)

    /// Maps an `errno` from a failed system call to the matching case.
    public init(errno code: Int32, operation: String, path: String) {
        switch code {
        case ENOSPC, EDQUOT: self = .diskFull(path: path)
        case EROFS, EACCES, EPERM: self = .readOnly(path: path)
        case ENOENT: self = .notFound(path: path)
        default: self = .io(operation: operation, path: path, errno: code)
        }
    }

    /// True when the same operation may succeed later without anyone changing the request: transient
    /// I/O failures, and a volume that is full (space gets freed, the sweep runs) or not writable (a
    /// remount in progress, permissions being fixed), which are retried with backoff instead of
    /// failing the job at once. A bad name, a path out of the root or a checksum mismatch are not.
    public var isRetryable: Bool {
        switch self {
        case .io(_, _, let code): return code == EINTR || code == EAGAIN || code == EIO
        case .diskFull, .readOnly: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .diskFull(let path): return "asset volume is full (writing \(path))"
        case .readOnly(let path): return "asset volume is read-only or not writable (\(path))"
        case .pathEscapesRoot(let path): return "path escapes the asset root: \(path)"
        case .invalidName(let name): return "invalid asset name: \(name.debugDescription)"
        case .notFound(let path): return "no asset at \(path)"
        case .checksumMismatch(let path, let expected, let actual):
            return "checksum mismatch for \(path): expected \(expected), found \(actual)"
        case .invalidRecord(let reason): return "invalid generated-content record: \(reason)"
        case .tooLarge(let path, let size, let limit):
            return "\(path) is too large: \(size) bytes, more than the limit of \(limit)"
        case .io(let operation, let path, let code):
            return "\(operation) failed for \(path): \(String(cString: strerror(code)))"
        }
    }
}
