import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An output written under a temporary name in its own folder and renamed into place only when
/// complete, so a failure or cancellation never leaves a partial file or clobbers an old one.
final class OutputFile {
    /// Where the finished file goes.
    let url: URL
    /// Where it is written until then: `.NAME.PID-RANDOM.partial` beside `url`.
    let temporaryURL: URL
    private(set) var isCommitted = false

    /// Checks that `url` may be written and picks the temporary name.
    /// - Parameters:
    ///   - overwrite: replace an existing file at `url`.
    ///   - inputs: files being read; `url` may never be one of them, even with `overwrite`.
    init(url: URL, overwrite: Bool, inputs: [URL]) throws {
        self.url = url
        let path = url.displayPath
        let folder = url.deletingLastPathComponent()
        for input in inputs where OutputFile.isSameFile(url, input) {
            throw ReverseAudioError.outputIsInput(path: path)
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw ReverseAudioError.cannotCreateOutput(path: path, reason: "a folder has that name") }
            if !overwrite { throw ReverseAudioError.outputExists(path: path) }
        }
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) else {
            throw ReverseAudioError.cannotCreateOutput(path: path, reason: "folder \(folder.displayPath) does not exist")
        }
        guard isDirectory.boolValue else {
            throw ReverseAudioError.cannotCreateOutput(path: path, reason: "\(folder.displayPath) is not a folder")
        }
        guard access(folder.path, W_OK) == 0 else {
            throw ReverseAudioError.cannotCreateOutput(path: path, reason: "no permission to write in \(folder.displayPath)")
        }
        let unique = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        temporaryURL = folder.appendingPathComponent(".\(url.lastPathComponent).\(unique).partial")
    }

    deinit {
        if !isCommitted { discard() }
    }

    /// Renames the finished temporary file into place (atomically replacing any old file).
    func commit() throws {
        guard rename(temporaryURL.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw ReverseAudioError.writeFailed(path: url.displayPath, reason: "could not move the finished file into place: \(reason)")
        }
        isCommitted = true
    }

    /// Removes the temporary file, if any.
    func discard() {
        unlink(temporaryURL.path)
    }

    /// The temporary file's size in bytes, or 0.
    var temporarySize: Int64 {
        var status = stat()
        return stat(temporaryURL.path, &status) == 0 ? Int64(status.st_size) : 0
    }

    /// True when `a` and `b` name the same file: same resolved path, or the same inode (a hard
    /// link or another spelling of the path).
    static func isSameFile(_ a: URL, _ b: URL) -> Bool {
        if a.standardizedFileURL.resolvingSymlinksInPath().path == b.standardizedFileURL.resolvingSymlinksInPath().path {
            return true
        }
        var first = stat()
        var second = stat()
        guard stat(a.path, &first) == 0, stat(b.path, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}
