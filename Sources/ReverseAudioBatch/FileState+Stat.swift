import Foundation
import ReverseAudioCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ResumeDecision.FileState {
    /// What is at `path` now (links followed), or nil when nothing is there: one `stat`, no read.
    package init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        #if canImport(Darwin)
        let time = status.st_mtimespec
        #else
        let time = status.st_mtim
        #endif
        self.init(isRegularFile: (status.st_mode & S_IFMT) == S_IFREG, size: Int64(status.st_size),
                  modified: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }
}
