import Foundation
import ReverseAudio
import ReverseAudioPlayback
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files clients are reading, each opened once and shared: the length pass and the seek
/// index of a file are made on its first request, and every later range reuses them. At most
/// ``capacity`` are kept (the least recently used goes), each holding a few decoded chunks
/// and its decoder, about 5.5 MiB (measured by `scripts/bench --tables serve`): the server's
/// memory does not depend on the files' lengths, and stays under ~150 MiB with every slot used.
///
/// A file is known by its device, inode, size and modification time as its descriptor was
/// opened (``FolderFile``): one replaced or rewritten since is opened again.
final class OpenFiles: @unchecked Sendable {
    // @unchecked: `entries` and `recency` are touched only under `lock`.
    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    private var recency: [Key] = []
    /// Files kept open.
    let capacity: Int

    init(capacity: Int = 16) {
        self.capacity = capacity
    }

    struct Key: Hashable, Sendable {
        let device: UInt64, inode: UInt64, size: Int64, modified: Int64, modifiedNanoseconds: Int64

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            #if canImport(Darwin)
            modified = Int64(status.st_mtimespec.tv_sec)
            modifiedNanoseconds = Int64(status.st_mtimespec.tv_nsec)
            #else
            modified = Int64(status.st_mtim.tv_sec)
            modifiedNanoseconds = Int64(status.st_mtim.tv_nsec)
            #endif
        }
    }

    /// One file, opened by the first request that needs it; later ones wait for that open.
    /// The file is kept open with it: its decode reads through the file's descriptor.
    private final class Entry: @unchecked Sendable {
        // @unchecked: `opened` is set once under `opening`.
        let opening = NSLock()
        let file: FolderFile
        var opened: Result<DecodedFrames, any Error>?

        init(file: FolderFile) { self.file = file }
    }

    /// True when `file` is open or being opened: a later request waits for that open, which
    /// took the facts it needed, and needs none of its own.
    func holds(_ file: FolderFile) -> Bool {
        lock.withLock { entries[file.key] != nil }
    }

    /// `file`'s decode, opened now or earlier (blocking: call it off the request threads); a
    /// first open takes `facts` (``StreamFacts``) instead of reading the file for its length.
    func frames(of file: FolderFile, facts: StreamFacts? = nil) throws -> DecodedFrames {
        let key = file.key
        let entry = lock.withLock {
            if let found = entries[key] {
                recency.removeAll { $0 == key }
                recency.append(key)
                return found
            }
            let created = Entry(file: file)
            entries[key] = created
            recency.append(key)
            while recency.count > capacity {
                let victim = recency.removeFirst()
                entries[victim] = nil
            }
            return created
        }
        return try entry.opening.withLock {
            if let opened = entry.opened { return try opened.get() }
            let opened = Result { try DecodedFrames(url: try entry.file.url(), facts: facts) }
            entry.opened = opened
            if case .failure = opened { lock.withLock { if entries[key] === entry { entries[key] = nil } } }
            return try opened.get()
        }
    }
}
