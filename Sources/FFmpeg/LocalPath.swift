import CFFmpeg
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
        if isRemote(path) { return lowercasingScheme(path) }
        if path == "/dev/stdout" && isSocket(STDOUT_FILENO) { return "pipe:1" }
        if path == "/dev/stdin" && isSocket(STDIN_FILENO) { return "pipe:0" }
        return "file:" + path
    }

    /// True for an `http://` or `https://` URL: the only inputs that are not local paths.
    /// Nothing else a user writes ever reaches FFmpeg as a URL (`concat:`, `subfile:`, `data:`,
    /// `pipe:` are names of files here), and a remote input may use only the protocols below.
    static func isRemote(_ location: String) -> Bool {
        let lowered = location.prefix(8).lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }

    /// `path` with its scheme lowercased: FFmpeg finds protocols by exact name (`HTTP://` is
    /// "Protocol not found"), where URLs' schemes are case-insensitive (RFC 3986 § 3.1).
    private static func lowercasingScheme(_ path: String) -> String {
        guard let colon = path.firstIndex(of: ":") else { return path }
        return path[..<colon].lowercased() + path[colon...]
    }

    /// The protocols a remote input (and what it opens) may use: HTTP(S) and what it runs on.
    static let remoteProtocols = "http,https,tcp,tls"

    /// The options a remote input is opened with (its protocols are ``remoteProtocols``, and
    /// a redirect to `file:` or `concat:` is refused by FFmpeg): ``InputRules/remoteTimeout``
    /// without a byte, or to connect, is a failure (a cancellation is asked every few
    /// milliseconds besides, see `InterruptCheck`).
    static var remoteOptions: [(String, String)] {
        [("rw_timeout", String(Int64(InputRules.remoteTimeout * 1_000_000))), ("user_agent", "reverse-audio")]
    }

    /// Why an input could not be opened.
    enum OpenFailure: Error {
        /// `isCancelled` said stop while waiting for a writer.
        case cancelled
        /// `open` failed with this `errno`.
        case system(Int32)
    }

    /// What FFmpeg reads `path` through: its `file` protocol (a regular file, a device, a
    /// socket), or, for a FIFO (a named pipe, or standard input when it is one), an
    /// `AVIOContext` of ours over a descriptor opened without blocking (``FIFOReader``).
    ///
    /// FFmpeg's `file` protocol reads a pipe with a blocking `read`, which no signal handler of
    /// this process interrupts; and it opens a FIFO with a blocking `open`, which waits in the
    /// kernel until a writer comes, before FFmpeg ever polls its interrupt callback. Here a FIFO
    /// is opened with `O_NONBLOCK` (which never waits), a named FIFO's first writer is awaited
    /// with `poll` in 50 ms steps, and every read waits the same way: `isCancelled` (the
    /// demuxer's interrupt check) is asked at each step, so a stalled or absent writer never
    /// holds the process past a cancellation.
    /// - Throws: ``OpenFailure``.
    static func input(for path: String, isCancelled: @escaping () -> Bool) throws(OpenFailure) -> Input {
        if isRemote(path) { return Input(url: url(for: path), isRemote: true) }
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFIFO else { return Input(url: url(for: path)) }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system(errno) }
        let reader = FIFOReader(descriptor: descriptor, isCancelled: isCancelled)
        // A descriptor the process was given (standard input) had a writer from the start: an
        // empty read there is the end. A FIFO opened by name has none until someone opens it.
        if !namesDescriptor(path) {
            try reader.waitForWriter()
        }
        guard let context = reader.makeContext() else { throw .system(ENOMEM) }
        // The name is still FFmpeg's to see: probing weighs the extension.
        return Input(url: url(for: path), reader: reader, context: context)
    }

    /// An input as FFmpeg opens it: a URL, and for a FIFO the I/O context to install as the
    /// format context's `pb` (with `AVFMT_FLAG_CUSTOM_IO`), freed when this is released, after
    /// the demuxer that reads it.
    final class Input {
        let url: String
        /// An `http://` or `https://` URL, read through FFmpeg's own protocols.
        let isRemote: Bool
        private let reader: FIFOReader?
        private(set) var context: UnsafeMutablePointer<AVIOContext>?

        init(url: String, isRemote: Bool = false, reader: FIFOReader? = nil, context: UnsafeMutablePointer<AVIOContext>? = nil) {
            self.url = url
            self.isRemote = isRemote
            self.reader = reader
            self.context = context
        }

        deinit {
            if context != nil {
                av_freep(&context!.pointee.buffer)
                avio_context_free(&context)
            }
        }
    }

    /// Reads a FIFO for FFmpeg without ever blocking in the kernel: reads are non-blocking, and
    /// an empty pipe is waited on with `poll` in 50 ms steps between checks of `isCancelled`.
    /// Seen from FFmpeg it is what its `file` protocol makes of a FIFO: not seekable, size 0
    /// (FFmpeg's MP3 demuxer keeps the LAME tag's gapless figures only when the size is not an
    /// error, which the `pipe` protocol's would be).
    final class FIFOReader {
        let descriptor: Int32
        let isCancelled: () -> Bool

        init(descriptor: Int32, isCancelled: @escaping () -> Bool) {
            self.descriptor = descriptor
            self.isCancelled = isCancelled
        }

        deinit { close(descriptor) }

        /// Waits until a writer has written something or come and gone: Linux reports neither
        /// readable data nor a hang-up on a FIFO whose writer has not opened it yet.
        func waitForWriter() throws(OpenFailure) {
            while true {
                if isCancelled() { throw .cancelled }
                switch waitReadable() {
                case .ready: return
                case .timedOut: continue
                case .failed(let code): throw .system(code)
                }
            }
        }

        private enum Wait { case ready, timedOut, failed(Int32) }

        private func waitReadable() -> Wait {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 50)
            if ready > 0 { return .ready }
            if ready == 0 || errno == EINTR { return .timedOut }
            return .failed(errno)
        }

        /// FFmpeg's read callback: up to `size` bytes, the end (`AVERROR_EOF`) once every
        /// writer is gone, `AVERROR_EXIT` when cancelled.
        func read(into buffer: UnsafeMutablePointer<UInt8>, size: Int32) -> Int32 {
            while true {
                if isCancelled() { return ra_averror_exit() }
                let got = systemRead(descriptor, buffer, Int(size))
                if got > 0 { return Int32(got) }
                if got == 0 { return ra_averror_eof() }
                let code = errno
                guard code == EAGAIN || code == EWOULDBLOCK || code == EINTR else { return -code }
                if case .failed(let failure) = waitReadable() { return -failure }
            }
        }

        /// An I/O context reading through this reader (nil when FFmpeg cannot allocate one).
        func makeContext() -> UnsafeMutablePointer<AVIOContext>? {
            let size: Int32 = 32_768
            guard let buffer = av_malloc(Int(size)) else { return nil }
            let context = avio_alloc_context(
                buffer.assumingMemoryBound(to: UInt8.self), size, 0, Unmanaged.passUnretained(self).toOpaque(),
                { opaque, buffer, size in
                    guard let opaque, let buffer else { return ra_averror_einval() }
                    return Unmanaged<FIFOReader>.fromOpaque(opaque).takeUnretainedValue().read(into: buffer, size: size)
                },
                nil,
                { _, _, whence in
                    // As FFmpeg's file protocol answers for a FIFO: size 0, and no seeking.
                    (whence & AVSEEK_SIZE) != 0 ? 0 : Int64(-ESPIPE)
                })
            guard let context else {
                av_free(buffer)
                return nil
            }
            context.pointee.seekable = 0
            return context
        }
    }

    /// True for the names of this process's descriptors (`/dev/stdin`, `/dev/fd/N`).
    private static func namesDescriptor(_ path: String) -> Bool {
        path == "/dev/stdin" || path.hasPrefix("/dev/fd/") || path.hasPrefix("/proc/self/fd/")
    }

    private static func isSocket(_ descriptor: Int32) -> Bool {
        var status = stat()
        return fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }
}

/// `read(2)` (a member of ``LocalPath/FIFOReader`` has that name).
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
