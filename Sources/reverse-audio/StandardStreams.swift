import Foundation
import ReverseAudio
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `-` (and FFmpeg's `pipe:0`/`pipe:1`) as the names of standard input and output, as `sox`
/// and `ffmpeg` take them.
enum StandardStreams {
    /// True when `argument` names standard input.
    static func isStandardInput(_ argument: String) -> Bool {
        ["-", "pipe:0", "pipe:", "/dev/stdin"].contains(argument)
    }

    /// The input `argument` names, read once, in order: `convert` streams a pipe.
    static func inputURL(_ argument: String) -> URL {
        isStandardInput(argument) ? URL(fileURLWithPath: "/dev/stdin") : URL(fileURLWithPath: argument)
    }

    /// The input `argument` names, for a command that reads it more than once (counting, then
    /// decoding; seeking): standard input, when it is a pipe, is first copied whole into an
    /// unnamed temporary file that then becomes standard input. The copy has no name, so it
    /// is gone however the process ends.
    static func seekableInputURL(_ argument: String) throws -> URL {
        guard isStandardInput(argument) else { return URL(fileURLWithPath: argument) }
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
