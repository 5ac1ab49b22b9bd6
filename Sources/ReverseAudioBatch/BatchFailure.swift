import ReverseAudioCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a batch classes a failure: one input's problem (report it, go on with the rest) or the
/// output side's (a full disk, a folder it may not write in), which every other input would hit
/// too, so the batch stops at once and says so with its own exit status.
package enum BatchFailure {
    /// The system's reasons that mean the output side cannot take more: no space, no quota, a
    /// read-only file system, no permission.
    private static let outputSideReasons: [String] = [ENOSPC, EDQUOT, EROFS, EACCES].map { String(cString: strerror($0)) }
        + ["no permission to write"]

    /// True when `error` will fail every other input of the batch as well.
    package static func stopsTheBatch(_ error: ReverseAudioError) -> Bool {
        switch error {
        case .output(.cannotCreateOutput(_, let reason)), .output(.writeFailed(_, let reason)):
            return outputSideReasons.contains { reason.contains($0) }
        default:
            return false
        }
    }

    /// The kind of `error` for a manifest: its case's name (`notMedia`, `writeFailed`), stable
    /// across releases and easy to group by, unlike the message.
    package static func kind(of error: ReverseAudioError) -> String {
        error.kind
    }
}
