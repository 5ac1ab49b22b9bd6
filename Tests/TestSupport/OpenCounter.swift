import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Counts how many times a file is opened while some work runs, by anyone (FFmpeg's `file`
/// protocol, our own `open`), with Linux's inotify: an `IN_OPEN` event per open of the file.
/// inotify merges an event into an identical one not yet read, so reads and closes are watched
/// too: an open followed by a read (every open that decodes: FFmpeg probes the file at once)
/// is counted; two opens with nothing read between them count once. A full queue fails.
public enum OpenCounter {
    /// True where opens can be counted (Linux).
    public static var isAvailable: Bool {
        #if os(Linux)
        return true
        #else
        return false
        #endif
    }

    /// The opens of `url` while `work` runs, and what it returned.
    public static func count<Result>(_ url: URL, during work: () throws -> Result) throws -> (opens: Int, result: Result) {
        #if os(Linux)
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let watch = inotify_add_watch(descriptor, url.path, UInt32(IN_OPEN) | UInt32(IN_ACCESS) | UInt32(IN_CLOSE))
        guard watch >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let result = try work()
        var opens = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard got > 0 else { break }
            var offset = 0
            while offset < got {
                let event = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self) }
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { throw POSIXError(.EOVERFLOW) }
                if event.wd == watch && event.mask & UInt32(IN_OPEN) != 0 { opens += 1 }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
        }
        return (opens, result)
        #else
        return (0, try work())
        #endif
    }
}
