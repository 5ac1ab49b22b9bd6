import Foundation
import ReverseAudioCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A batch's claim on one output while it decides whether to write it and writes it: a file
/// beside the output's record (`NAME.json.claim`) that the claiming run holds under an
/// ``OwnershipLock`` and removes when it is done.
///
/// Runs of one batch at once (a shard started twice, a retried worker beside the first) thus
/// take each output in turn: a run that finds the claim held waits, then finds the output done
/// and skips it, where all of them used to write it and all but one fail "output already
/// exists" for an output that was good. A claim left by a killed run is swept (its lock is free).
package final class OutputClaim: Sendable {
    /// The lock held; nil when the output could not be claimed by name (something that is not
    /// a file took the claim's name) and the run goes on unclaimed, as before claims.
    private let lock: OwnershipLock?

    private init(lock: OwnershipLock?) {
        self.lock = lock
    }

    /// Claims the output whose claim file is `path` (its folder exists).
    /// - Returns: the claim, or nil while another live run holds it.
    /// - Throws: `OutputError.cannotCreateOutput(path:reason:)` when the claim cannot
    ///   be made (no permission in the state folder, a full disk).
    static func claim(at path: String) throws -> OutputClaim? {
        for _ in 0..<2 {
            switch OwnershipLock.createFile(at: path) {
            case .success(let lock):
                // A watchdog that ends the process removes it, as a partial.
                ProcessCleanup.register(file: path)
                return OutputClaim(lock: lock)
            case .failure(.failed(let code)):
                throw ReverseAudioError.output(.cannotCreateOutput(path: path, reason: "cannot claim the output in the batch's state folder (\(String(cString: strerror(code))))"))
            case .failure(.taken):
                var status = stat()
                if lstat(path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG { return OutputClaim(lock: nil) }
                // Held by a live run, or left by a killed one: swept when its lock is free.
                guard OwnershipLock.removeIfAbandoned(path, isFolder: false, remove: { unlink($0) }) else { return nil }
            }
        }
        return nil
    }

    /// Gives the output up: the claim file is removed, then its lock dropped. Idempotent.
    package func release() {
        guard let lock else { return }
        unlink(lock.path)
        ProcessCleanup.unregister(file: lock.path)
        lock.release()
    }

    deinit { release() }
}
