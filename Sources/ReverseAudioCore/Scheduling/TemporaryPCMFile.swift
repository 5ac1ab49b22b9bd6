import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A headerless file of interleaved frames written and read at frame positions.
///
/// Its name is removed as soon as it is created: only the open descriptor keeps it, so the
/// space returns to the system when the file is released, or when the process ends in any way
/// (a crash or SIGKILL included). Nothing is ever left behind in the folder.
package final class TemporaryPCMFile: PositionedPCMSink {
    /// The name it had when created (for messages; it no longer exists).
    package let url: URL
    package let bytesPerFrame: Int
    private let descriptor: Int32

    package init(in directory: URL, bytesPerFrame: Int) throws {
        self.bytesPerFrame = bytesPerFrame
        let template = directory.appendingPathComponent(".reverse-audio-XXXXXX.pcm").path
        var name = Array(template.utf8CString)
        let opened = name.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
        guard opened >= 0 else {
            throw ReverseAudioError.output(.cannotCreateOutput(path: template, reason: String(cString: strerror(errno))))
        }
        descriptor = opened
        url = URL(fileURLWithPath: String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        unlink(url.path)
    }

    deinit {
        close(descriptor)
    }

    /// A name through which FFmpeg (or anyone) can open this unnamed file: `/dev/fd/N`.
    package var descriptorURL: URL { URL(fileURLWithPath: "/dev/fd/\(descriptor)") }

    /// Copies the whole file into `destination`, a pipe or a device (or one of this process's
    /// descriptors by name, written directly so the shell's redirection is kept).
    /// - Parameter path: the destination as the user named it, for messages.
    package func copy(to destination: URL, path: String) throws {
        let named = OutputFile.descriptorNumber(destination)
        let output = named ?? open(destination.path, O_WRONLY | O_NOCTTY)
        guard output >= 0 else {
            throw ReverseAudioError.output(.writeFailed(path: path, reason: String(cString: strerror(errno))))
        }
        defer { if named == nil { close(output) } }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: off_t = 0
        while true {
            let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw ReverseAudioError.input(.unreadable(path: url.path, reason: String(cString: strerror(errno)))) }
            if got == 0 { return }
            var sent = 0
            while sent < got {
                let written = buffer.withUnsafeBytes { Foundation.write(output, $0.baseAddress! + sent, got - sent) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw ReverseAudioError.output(.writeFailed(path: path, reason: String(cString: strerror(errno)))) }
                sent += written
            }
            offset += off_t(got)
        }
    }

    /// Bytes currently on disk for this file.
    package var size: Int64 {
        var status = stat()
        return fstat(descriptor, &status) == 0 ? Int64(status.st_size) : 0
    }

    package func write(_ source: UnsafeRawBufferPointer, frames: Int, at frame: Int64) throws {
        var bytes = UnsafeRawBufferPointer(rebasing: source[0..<(frames * bytesPerFrame)])
        var offset = off_t(frame * Int64(bytesPerFrame))
        while !bytes.isEmpty {
            let written = pwrite(descriptor, bytes.baseAddress, bytes.count, offset)
            guard written > 0 else {
                if written < 0 && errno == EINTR { continue }
                throw ReverseAudioError.output(.writeFailed(path: url.path, reason: String(cString: strerror(errno))))
            }
            bytes = UnsafeRawBufferPointer(rebasing: bytes[written...])
            offset += off_t(written)
        }
    }

    /// Empties the file, to be written again.
    package func discardWrites(expectingFrames frames: Int64) throws {
        guard ftruncate(descriptor, 0) == 0 else {
            throw ReverseAudioError.output(.writeFailed(path: url.path, reason: String(cString: strerror(errno))))
        }
    }

    /// Reads `frames` frames starting at frame `frame`.
    package func read(frames: Int, at frame: Int64) throws -> [UInt8] {
        var samples = [UInt8](repeating: 0, count: frames * bytesPerFrame)
        try samples.withUnsafeMutableBytes { try read(into: $0, at: frame) }
        return samples
    }

    /// Reads `buffer.count` bytes starting at frame `frame` into `buffer` (no allocation: a
    /// video spill reads pictures of megabytes this way).
    package func read(into buffer: UnsafeMutableRawBufferPointer, at frame: Int64) throws {
        var filled = 0
        while filled < buffer.count {
            let got = pread(descriptor, buffer.baseAddress! + filled, buffer.count - filled,
                            off_t(frame * Int64(bytesPerFrame) + Int64(filled)))
            guard got > 0 else {
                if got < 0 && errno == EINTR { continue }
                throw ReverseAudioError.input(.unreadable(path: url.path, reason: got == 0 ? "unexpected end" : String(cString: strerror(errno))))
            }
            filled += got
        }
    }
}
