import Foundation
import ReverseAudio
import ReverseAudioCommandLine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `-` (and FFmpeg's `pipe:0`/`pipe:1`) as the names of standard input and output, as `sox`
/// and `ffmpeg` take them.
enum StandardStreams {
    /// True when `argument` names standard input: `-`, FFmpeg's `pipe:0` and `pipe:`, or
    /// `/dev/stdin` (another `pipe:N` is a file name: a descriptor other than 0 is no input
    /// of ours).
    static func isStandardInput(_ argument: String) -> Bool {
        ["-", "pipe:0", "pipe:", "/dev/stdin"].contains(argument)
    }

    /// The input `argument` names, read once, in order: `convert` streams a pipe.
    /// - Throws: `CommandLineError` for a URL of a scheme other than http and https.
    static func inputURL(_ argument: String) throws -> URL {
        isStandardInput(argument) ? URL(fileURLWithPath: "/dev/stdin") : try namedInput(argument)
    }

    /// A file's path, or an `http://` or `https://` URL (`SCHEME://…` of any other scheme is
    /// refused: no `ftp`, `rtmp` or `concat` from a command line). A `file://` URL is the file
    /// it names on this machine, as a file manager or browser writes it (RFC 8089:
    /// percent-escapes decoded, host empty or `localhost`), so a name copied from one works.
    /// - Throws: `CommandLineError` (exit 64) for another scheme, a URL without a host, or a
    ///   `file://` URL that names no local file.
    static func namedInput(_ argument: String) throws -> URL {
        guard let separator = argument.range(of: "://") else { return URL(fileURLWithPath: argument) }
        let scheme = argument[..<separator.lowerBound]
        guard let first = scheme.first, first.isLetter, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else {
            return URL(fileURLWithPath: argument)
        }
        switch scheme.lowercased() {
        case "http", "https":
            guard let url = URL(string: argument), url.host?.isEmpty == false else {
                throw CommandLineError("\(argument): not a URL this tool can read (write it as http://HOST/PATH, spaces as %20)")
            }
            return url
        case "file":
            return try fileURLPath(argument)
        default:
            throw CommandLineError("\(scheme)://: inputs are files, - (standard input), or http:// and https:// URLs")
        }
    }

    /// The file a `file://` URL names. Refused rather than guessed at: another machine's host
    /// (its path would silently name a local file of the same name), a `?` or `#` part (a
    /// name holding one writes it as %3F or %23; dropping it would open another file), and a
    /// URL without a path (it would name the current folder).
    /// - Throws: `CommandLineError` (exit 64) saying how to write it.
    private static func fileURLPath(_ argument: String) throws -> URL {
        let form = "write file:///ABSOLUTE/PATH, with % escapes where needed, or the path itself"
        guard let url = URL(string: argument), url.isFileURL else {
            throw CommandLineError("\(argument): not a file URL (\(form))")
        }
        if let host = url.host, !host.isEmpty, host.lowercased() != "localhost" {
            throw CommandLineError("\(argument): a file URL on another machine (\(host)) is not read; \(form)")
        }
        if url.query != nil || url.fragment != nil {
            throw CommandLineError("\(argument): a file URL with a ? or # part names no file; \(form) (? as %3F, # as %23)")
        }
        guard url.path.hasPrefix("/"), url.path.count > 1 else {
            throw CommandLineError("\(argument): the file URL names no file; \(form)")
        }
        return URL(fileURLWithPath: url.path)
    }

    /// The input `argument` names, for a command that reads it more than once (counting, then
    /// decoding; seeking): standard input, when it is a pipe, is first copied whole into an
    /// unnamed temporary file that then becomes standard input. The copy has no name, so it
    /// is gone however the process ends.
    static func seekableInputURL(_ argument: String) throws -> URL {
        guard isStandardInput(argument) else { return try namedInput(argument) }
        try makeStandardInputSeekable()
        return URL(fileURLWithPath: "/dev/stdin")
    }

    static func outputURL(_ argument: String) -> URL {
        ["-", "pipe:1", "pipe:"].contains(argument) ? URL(fileURLWithPath: "/dev/stdout") : URL(fileURLWithPath: argument)
    }

    private static func makeStandardInputSeekable() throws {
        var status = stat()
        guard fstat(STDIN_FILENO, &status) == 0 else {
            throw ReverseAudioError.input(.unreadable(path: "-", reason: String(cString: strerror(errno))))
        }
        if (status.st_mode & S_IFMT) == S_IFREG { return }  // `< file`: already a file
        if isatty(STDIN_FILENO) == 1 {
            throw ReverseAudioError.input(.unreadable(path: "-", reason: "it is a terminal; pipe the audio in (cat song.mp3 | reverse-audio … -)"))
        }
        var template = Array((NSTemporaryDirectory() + "/.reverse-audio-stdin-XXXXXX").utf8CString)
        let copy = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard copy >= 0 else {
            throw ReverseAudioError.output(.cannotCreateOutput(path: NSTemporaryDirectory(), reason: String(cString: strerror(errno))))
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        defer { close(copy) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var waiting = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        while true {
            // A writer that stalls must not hold the process past a signal: wait in short
            // steps, and read only what has come (a read then never blocks).
            try SignalCancellation.check()
            waiting.revents = 0
            let ready = poll(&waiting, 1, 50)
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            let got = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw ReverseAudioError.input(.unreadable(path: "-", reason: String(cString: strerror(errno)))) }
            if got == 0 { break }
            var sent = 0
            while sent < got {
                let written = buffer.withUnsafeBytes { write(copy, $0.baseAddress! + sent, got - sent) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    throw ReverseAudioError.output(.writeFailed(path: NSTemporaryDirectory(), reason: "copying standard input: \(String(cString: strerror(errno)))"))
                }
                sent += written
            }
        }
        lseek(copy, 0, SEEK_SET)
        guard dup2(copy, STDIN_FILENO) >= 0 else {
            throw ReverseAudioError.input(.unreadable(path: "-", reason: String(cString: strerror(errno))))
        }
    }
}
