#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a local path is handed to FFmpeg's I/O.
enum LocalPath {
    /// The URL FFmpeg opens for `path`: always through its `file` protocol, so that a name with
    /// a colon (`http:x.mp3`, `concat:a.mp3|b.mp3`) is the file of that name and never a network
    /// or concatenation protocol. Standard input or output connected to a socket cannot be
    /// opened by name (ENXIO), so those go through FFmpeg's `pipe` protocol on the descriptor.
    static func url(for path: String) -> String {
        if path == "/dev/stdout" && isSocket(STDOUT_FILENO) { return "pipe:1" }
        if path == "/dev/stdin" && isSocket(STDIN_FILENO) { return "pipe:0" }
        return "file:" + path
    }

    private static func isSocket(_ descriptor: Int32) -> Bool {
        var status = stat()
        return fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }
}
