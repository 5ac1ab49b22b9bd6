import Foundation
import Hummingbird
import MultipartKit
import NIOCore
import ReverseAudio
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files handed to `serve` (`POST /api/uploads`: the page's drop zone, file picker and
/// camera), kept in a folder of their own inside the output folder until they are older than
/// ``maximumAge``, and named for the jobs API (`{"upload": name}`).
///
/// An upload streams to a temporary file as it arrives (memory stays at about one megabyte
/// whatever its size), under ``limit`` bytes and only while the disk keeps ``reserve`` bytes
/// free; it is published under its name only once it is whole and FFmpeg reads it as audio or
/// video. Cut off, refused or not media, it leaves nothing behind.
struct UploadStore: Sendable {
    /// `OUTPUT/.uploads`: hidden, so that the list (which leaves the output folder out anyway)
    /// and a user's file browser do not show it.
    let folder: URL
    /// Bytes an upload may hold.
    let limit: Int
    /// The folder's name in the output folder.
    static let folderName = ".uploads"
    /// How long an upload is kept (from its last byte), in seconds.
    let maximumAge: TimeInterval
    /// Bytes the disk must keep free beside an upload.
    static let reserve = 64 << 20
    /// 507, which HTTPTypes does not name.
    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
    /// Bytes gathered before they are written (one write per megabyte, off the request threads).
    static let writeBytes = 1 << 20

    /// What `POST /api/uploads` answers.
    struct Upload: ResponseEncodable, Sendable {
        /// The name the jobs API takes as `{"upload": name}`.
        let name: String
        /// The name as the user gave it (made safe), for a page to show.
        let title: String
        let size: Int
        /// `video` (a moving picture, for the video jobs) or `audio` (for the audio jobs; a
        /// video's sound is read by them too).
        let kind: String
        /// Seconds, when it has sound.
        let duration: Double?
    }

    init(output: URL, limit: Int, maximumAge: TimeInterval) {
        folder = output.appendingPathComponent(Self.folderName, isDirectory: true)
        self.limit = limit
        self.maximumAge = maximumAge
    }

    /// Receives `request`'s body: the file itself (its name in `?name=`), or a
    /// `multipart/form-data` form whose first file field is the file (its name the field's
    /// file name unless `?name=` gives one).
    /// - Throws: `HTTPError` 400 (no name, an empty file, a form without a file, a body cut
    ///   off), 413 (over the limit), 415 (not media this tool reads), 507 (the disk too full).
    func receive(_ request: Request) async throws -> Upload {
        let given = request.uri.queryParameters["name"].map(String.init)
        let boundary = Self.boundary(of: request.headers[.contentType])
        if boundary == nil, given == nil {
            throw HTTPError(.badRequest, message: "an upload names its file: POST /api/uploads?name=song.mp3, or a multipart form")
        }
        if let length = request.headers[.contentLength].flatMap(Int.init) {
            // A form carries a little more than its file: its boundaries and field headers.
            if length > limit + (boundary == nil ? 0 : 64 * 1024) { throw tooLarge() }
            try checkFreeSpace(for: length)
        }
        try makeFolder()
        let id = UUID().uuidString.prefix(8).lowercased()
        let partial = try PartialFile(folder.appendingPathComponent(".partial-\(id)"))
        do {
            let suggested: String?
            if let boundary {
                suggested = try await receiveForm(request.body, boundary: boundary, into: partial)
            } else {
                try await receiveBytes(request.body, into: partial)
                suggested = nil
            }
            guard partial.written > 0 else { throw HTTPError(.badRequest, message: "the upload is empty (0 bytes)") }
            let safe = Self.safeName(given ?? suggested ?? "upload")
            let name = "\(id)-\(safe)"
            let (kind, duration) = try await Self.describe(partial.url, name: safe)
            let size = partial.written
            try partial.publish(as: folder.appendingPathComponent(name))
            return Upload(name: name, title: safe, size: size, kind: kind, duration: duration)
        } catch {
            partial.discard()
            if error is HTTPError || error is CancellationError { throw error }
            throw HTTPError(.badRequest, message: "the upload was cut off before its end")
        }
    }

    /// Upload `name`, opened (a job keeps it open: its removal at expiry does not cut it), or 404.
    func open(_ name: String) throws -> FolderFile {
        let missing = HTTPError(.notFound, message: "no upload \(name) (uploads are kept \(String(format: "%g", maximumAge / 60)) minutes)")
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix("."), !name.contains("\0") else { throw missing }
        let descriptor = openDescriptor(folder.appendingPathComponent(name).path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw missing }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw missing
        }
        _ = fcntl(descriptor, F_SETFL, 0)
        return FolderFile(name: name, descriptor: descriptor, status: status)
    }

    /// Removes the uploads (and partial files left by a server that was killed) whose last byte
    /// is older than ``maximumAge``.
    func removeExpired(now: Date = Date()) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names {
            let path = folder.appendingPathComponent(name).path
            var status = stat()
            guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
            #if canImport(Darwin)
            let modified = TimeInterval(status.st_mtimespec.tv_sec)
            #else
            let modified = TimeInterval(status.st_mtim.tv_sec)
            #endif
            if now.timeIntervalSince1970 - modified > maximumAge { unlink(path) }
        }
    }

    // MARK: - Receiving

    private func receiveBytes(_ body: RequestBody, into partial: PartialFile) async throws {
        var pending = ByteBuffer()
        for try await chunk in body {
            try check(total: partial.written + pending.readableBytes + chunk.readableBytes)
            pending.writeImmutableBuffer(chunk)
            if pending.readableBytes >= Self.writeBytes {
                try await write(&pending, to: partial)
            }
        }
        try await write(&pending, to: partial)
    }

    /// The form's first file field, written to `partial`; its file name.
    private func receiveForm(_ body: RequestBody, boundary: String, into partial: PartialFile) async throws -> String? {
        let form = FormState()
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in
            if name.lowercased() == "content-disposition" { form.disposition = value }
        }
        parser.onBody = { bytes in
            guard form.isFilePart else { return }
            if form.fileName == nil { form.fileName = Self.fileName(inDisposition: form.disposition ?? "") ?? "upload" }
            form.pending.writeBuffer(&bytes)
        }
        parser.onPartComplete = {
            if form.isFilePart { form.fileDone = true }
            form.disposition = nil
        }
        for try await chunk in body {
            do {
                try parser.execute(chunk)
            } catch {
                throw HTTPError(.badRequest, message: "the form is not multipart/form-data as its Content-Type says")
            }
            try check(total: partial.written + form.pending.readableBytes)
            if form.pending.readableBytes >= Self.writeBytes {
                try await write(&form.pending, to: partial)
            }
        }
        try await write(&form.pending, to: partial)
        guard form.fileDone || form.fileName != nil else { throw HTTPError(.badRequest, message: "the form holds no file") }
        guard form.fileDone else { throw HTTPError(.badRequest, message: "the upload was cut off before its end") }
        return form.fileName
    }

    /// What the form parser has seen: the current part's disposition, the file's bytes not yet written.
    private final class FormState {
        var disposition: String?
        var fileName: String?
        var fileDone = false
        var pending = ByteBuffer()

        /// True inside the first part that carries a file.
        var isFilePart: Bool {
            guard !fileDone, let disposition else { return false }
            return disposition.range(of: "filename", options: .caseInsensitive) != nil
        }
    }

    private func check(total: Int) throws {
        if total > limit { throw tooLarge() }
    }

    private func tooLarge() -> HTTPError {
        HTTPError(.contentTooLarge, message: "an upload may hold \(limit / (1 << 20)) MiB at most (serve --upload-limit)")
    }

    private func write(_ pending: inout ByteBuffer, to partial: PartialFile) async throws {
        guard pending.readableBytes > 0 else { return }
        let bytes = pending
        pending.clear()
        // The disk is looked at once a write, so a body without a stated length cannot fill it.
        try checkFreeSpace(for: bytes.readableBytes)
        try await OffThread.run { try partial.append(bytes) }
    }

    private func checkFreeSpace(for bytes: Int) throws {
        var status = statvfs()
        // The nearest folder that exists: the uploads folder is made with the first upload.
        var probe = folder
        while !FileManager.default.fileExists(atPath: probe.path), probe.path != "/" { probe.deleteLastPathComponent() }
        guard statvfs(probe.path, &status) == 0 else { return }
        let free = Int(status.f_bavail) &* Int(status.f_frsize)
        if bytes > free - Self.reserve {
            throw HTTPError(Self.insufficientStorage, message: "not enough free space for the upload (\(free >> 20) MiB free)")
        }
    }

    /// Makes the uploads folder, refusing one that is a link or not a folder (nothing is ever
    /// written through a link).
    private func makeFolder() throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw HTTPError(.internalServerError, message: "the uploads folder could not be made")
        }
        var status = stat()
        guard lstat(folder.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw HTTPError(.internalServerError, message: "the uploads folder is not a folder")
        }
    }

    /// Audio (with its duration) or video; else 415 with FFmpeg's reason.
    private static func describe(_ url: URL, name: String) async throws -> (kind: String, duration: Double?) {
        try await OffThread.run {
            do {
                let info = try AudioInfo.read(from: url)
                // A clip with sound is still a video (a cover picture is not).
                return (info.videoStreams.contains { !$0.isAttachedPicture } ? "video" : "audio", info.duration)
            } catch let audioError {
                if (try? VideoReverser.check(url)) != nil { return ("video", nil) }
                // The library's message names the temporary file: the reason alone is kept.
                var reason = (audioError as? ReverseAudioError)?.description ?? "\(audioError)"
                for path in [url.displayPath, url.path] { reason = reason.replacingOccurrences(of: path + ": ", with: "") }
                throw HTTPError(.unsupportedMediaType, message: "\(name): not audio or video this tool reads (\(reason))")
            }
        }
    }

    // MARK: - Names

    /// An upload's name as the user gave it: without the prefix (8 hexadecimal digits and `-`)
    /// that keeps uploads of one name apart.
    static func title(of name: String) -> String {
        let prefix = name.prefix(9)
        guard prefix.count == 9, prefix.last == "-", prefix.dropLast().allSatisfy(\.isHexDigit) else { return name }
        return String(name.dropFirst(9))
    }

    /// `name` made safe as a file name: its last path component, letters, digits and `-_.,()+'&`
    /// and spaces kept, anything else `_`, no leading dot, at most 100 bytes (the extension kept).
    static func safeName(_ name: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var safe = String(last.unicodeScalars.map { scalar -> Character in
            let kept = CharacterSet.alphanumerics.contains(scalar) || " -_.,()+'&".unicodeScalars.contains(scalar)
            return kept && scalar.value >= 32 ? Character(scalar) : "_"
        })
        while safe.hasPrefix(".") || safe.hasPrefix(" ") { safe.removeFirst() }
        while safe.hasSuffix(" ") || safe.hasSuffix(".") { safe.removeLast() }
        if safe.utf8.count > 100 {
            let ext = (safe as NSString).pathExtension
            var stem = (safe as NSString).deletingPathExtension
            while stem.utf8.count + ext.utf8.count + 1 > 100, !stem.isEmpty { stem.removeLast() }
            safe = ext.isEmpty || ext.utf8.count > 16 ? String(stem) : "\(stem).\(ext)"
        }
        return safe.isEmpty ? "upload" : safe
    }

    /// The boundary of a `multipart/form-data` Content-Type; nil for any other type.
    static func boundary(of contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        return parameter("boundary", in: contentType)
    }

    /// The file name a part's Content-Disposition gives (`filename*=UTF-8''…` before `filename=`).
    static func fileName(inDisposition disposition: String) -> String? {
        if let extended = parameter("filename*", in: disposition), let quote = extended.range(of: "''") {
            return String(extended[quote.upperBound...]).removingPercentEncoding
        }
        return parameter("filename", in: disposition)
    }

    /// The value of `key` among a header's `; key=value` parameters, quotes removed.
    private static func parameter(_ key: String, in header: String) -> String? {
        for piece in header.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == key else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            }
            return value
        }
        return nil
    }
}

/// An upload's temporary file: created exclusively (never through a link), written in order,
/// then renamed into place or removed.
final class PartialFile: @unchecked Sendable {
    // @unchecked: one request's task uses it, one write at a time (each awaited).
    let url: URL
    private var descriptor: Int32
    private(set) var written = 0

    init(_ url: URL) throws {
        self.url = url
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw HTTPError(.internalServerError, message: "the upload could not be stored") }
    }

    func append(_ bytes: ByteBuffer) throws {
        try bytes.withUnsafeReadableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw HTTPError(UploadStore.insufficientStorage, message: "the upload could not be written (\(String(cString: strerror(errno))))") }
                offset += count
            }
        }
        written += bytes.readableBytes
    }

    /// Closes the file and gives it its name.
    func publish(as final: URL) throws {
        close(descriptor)
        descriptor = -1
        guard rename(url.path, final.path) == 0 else {
            unlink(url.path)
            throw HTTPError(.internalServerError, message: "the upload could not be stored")
        }
    }

    /// Closes and removes the file.
    func discard() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(url.path)
    }
}
