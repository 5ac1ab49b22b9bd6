import Foundation
import Hummingbird
import ReverseAudio
import ReverseAudioPlayback

/// The routes of ``AudioServer``, each answering from the folder, the open files and the jobs.
struct Routes: Sendable {
    let folder: MediaFolder
    let jobs: JobTable
    let files: OpenFiles
    let catalog: FileCatalog
    let uploads: UploadStore
    /// The hosts a job's `url` may name (`serve --allow-url-hosts`), as given; none by default
    /// (the rule itself is ``InputPolicy``'s, which every remote open and redirect follows).
    let urlHosts: [String]

    func add(to router: Router<ServerContext>) {
        router.get("/") { _, _ in Page.response(for: "index.html") }
        router.get("/app.js") { _, _ in Page.response(for: "app.js") }
        router.get("/style.css") { _, _ in Page.response(for: "style.css") }
        router.get("/api/files") { _, _ in try await list() }
        router.get("/api/files/{name}/audio") { request, context in try await audio(request, context) }
        router.get("/api/files/{name}/waveform.json") { request, context in try await waveform(request, context, .json) }
        router.get("/api/files/{name}/waveform.dat") { request, context in try await waveform(request, context, .dat) }
        router.post("/api/uploads") { request, _ in EditedResponse(status: .created, response: try await uploads.receive(request)) }
        router.post("/api/jobs") { request, context in try await startJob(request, context) }
        router.get("/api/jobs/{id}") { _, context in try await jobs.status(of: try context.parameters.require("id")) }
        router.delete("/api/jobs/{id}") { _, context in try await jobs.cancel(try context.parameters.require("id")) }
        router.get("/api/jobs/{id}/events") { _, context in try await events(context) }
        router.get("/api/jobs/{id}/result") { request, context in try await result(request, context) }
    }

    /// The file a route's `{name}` names, opened inside the folder.
    private func file(_ context: ServerContext) throws -> FolderFile {
        let encoded = try context.parameters.require("name")
        guard let name = encoded.removingPercentEncoding else { throw HTTPError(.badRequest, message: "a name that is not URL-encoded UTF-8") }
        return try folder.open(name)
    }

    /// The rows of the list, in the walk's order; files not yet described are read a few at a
    /// time (as many as there are cores), each once per version of the file.
    private func list() async throws -> [FileCatalog.Row] {
        let files = await OffThread.runNonThrowing { [folder] in folder.names() }
        var rows = [FileCatalog.Row?](repeating: nil, count: files.count)
        let width = max(1, ProcessInfo.processInfo.activeProcessorCount)
        await withTaskGroup(of: (Int, FileCatalog.Row?).self) { group in
            var next = 0
            func addNext() {
                guard next < files.count else { return }
                let (index, name) = (next, files[next])
                group.addTask {
                    // A name the walk found but a request for it would not reach is left out.
                    guard let file = try? folder.open(name) else { return (index, nil) }
                    return (index, await catalog.row(file))
                }
                next += 1
            }
            for _ in 0..<width { addNext() }
            for await (index, row) in group {
                rows[index] = row
                addNext()
            }
        }
        return rows.compactMap { $0 }
    }

    private func audio(_ request: Request, _ context: ServerContext) async throws -> Response {
        let file = try file(context)
        let direction: PlaybackDirection
        switch request.uri.queryParameters["direction"].map(String.init) {
        case nil, "forward", "forwards": direction = .forward
        case "reverse", "backward", "backwards": direction = .reverse
        case let other?: throw HTTPError(.badRequest, message: "direction: forward or reverse, not \(other)")
        }
        let wav: VirtualWAV
        do {
            let frames = try await OffThread.run { try files.frames(of: file) }
            wav = try VirtualWAV(frames: frames, direction: direction)
        } catch {
            throw folder.answer(for: error, file: file)
        }
        let folder = self.folder
        return Self.ranged(request, size: wav.size, pieceBytes: VirtualWAV.pieceBytes,
                           headers: [.contentType: "audio/wav", .cacheControl: "no-store"]) { piece in
            do {
                return try await OffThread.run { try wav.bytes(piece) }
            } catch {
                throw folder.answer(for: error)
            }
        }
    }

    /// A body of `size` bytes answered whole (200) or by the one range `request` asks (206 with
    /// `Content-Range`; 416 past the end), made piece by piece by `bytes` as the client reads:
    /// each piece waits until the one before is taken, so memory stays at one piece.
    static func ranged(_ request: Request, size: Int, pieceBytes: Int, headers given: HTTPFields,
                       bytes: @escaping @Sendable (ClosedRange<Int>) async throws -> ByteBuffer) -> Response {
        var headers = given
        headers[.acceptRanges] = "bytes"
        let range: ClosedRange<Int>
        switch ByteRange(header: request.headers[.range], size: size) {
        case .unsatisfiable:
            return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(size)", .acceptRanges: "bytes"])
        case .whole:
            guard size > 0 else { return Response(status: .ok, headers: headers, body: .init()) }
            range = 0...(size - 1)
        case .part(let part):
            range = part
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(size)"
        }
        let body = ResponseBody(contentLength: range.count) { writer in
            var at = range.lowerBound
            while at <= range.upperBound {
                try Task.checkCancellation()
                let end = min(at + pieceBytes - 1, range.upperBound)
                // Suspends while the client is not reading.
                try await writer.write(try await bytes(at...end))
                at = end + 1
            }
            try await writer.finish(nil)
        }
        return Response(status: headers[.contentRange] == nil ? .ok : .partialContent, headers: headers, body: body)
    }

    private func waveform(_ request: Request, _ context: ServerContext, _ format: WaveformData.Format) async throws -> Response {
        let file = try file(context)
        let given = request.uri.queryParameters["samples-per-pixel"].map(String.init) ?? "256"
        guard let samplesPerPixel = Int(given), (2...Int(Int32.max)).contains(samplesPerPixel) else {
            throw HTTPError(.badRequest, message: "samples-per-pixel: a whole number from 2, not \(given)")
        }
        let row: FileCatalog.Row
        switch await catalog.describe(file) {
        case .success(let found): row = found
        case .failure(let error): throw folder.answer(for: error, file: file)
        }
        let least = FileCatalog.minimumSamplesPerPixel(frames: row.frames)
        guard samplesPerPixel >= least else {
            throw HTTPError(.badRequest, message: "samples-per-pixel: at least \(least) for \(row.name) (\(row.frames) frames; a waveform has at most \(FileCatalog.maximumPixels) points), not \(samplesPerPixel)")
        }
        let bytes: [UInt8]
        do {
            bytes = try await catalog.waveform(of: file, samplesPerPixel: samplesPerPixel, format: format)
        } catch {
            throw folder.answer(for: error, file: file)
        }
        let type = format == .json ? "application/json" : "application/octet-stream"
        return Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private func startJob(_ request: Request, _ context: ServerContext) async throws -> EditedResponse<JobStatus> {
        let asked: JobRequest
        do {
            asked = try await request.decode(as: JobRequest.self, context: context)
        } catch let error as any HTTPResponseError {
            throw error  // a body over the limit (413)
        } catch {
            throw HTTPError(.badRequest, message: "a job is {\"file\"|\"upload\"|\"url\", \"operation\": \"reverse\"|\"convert\"|\"trim\"|\"reverse-video\"|\"boomerang\", \"output\", \"start\"?, \"end\"?, \"crf\"?}")
        }
        let source = try asked.input()
        let input: JobTable.Input
        var length: JobTable.AudioLength?
        switch source {
        case .file(let name), .upload(let name):
            let file = try source.isUpload ? uploads.open(name) : folder.open(name)
            input = .file(file)
            if !asked.operation.isVideo {
                switch await catalog.describe(file) {
                case .success(let row): length = .init(frames: row.frames, sampleRate: row.sampleRate)
                case .failure(let error):
                    if !source.isUpload { throw HTTPError(.badRequest, message: "\(name): not audio this tool can read") }
                    throw folder.answer(for: error, file: file)
                }
            }
        case .url(let address):
            // Read inside the job, never here: a stalled server must not hold a request.
            input = .remote(try remote(address))
        }
        return EditedResponse(status: .accepted, response: try await jobs.start(asked, input: input, inputName: source.name, length: length))
    }

    /// A job's `url`, accepted only for `http`/`https` on a host and port `--allow-url-hosts`
    /// names (so the server fetches nothing else on a page's behalf).
    private func remote(_ address: String) throws -> URL {
        guard let url = URL(string: address), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host?.lowercased(), !host.isEmpty else {
            throw HTTPError(.badRequest, message: "url: an http:// or https:// address")
        }
        guard InputPolicy.allowsRemote(address), !urlHosts.isEmpty else {
            let allowed = urlHosts.isEmpty ? "none is (serve --allow-url-hosts H1,H2:PORT names them)" : "only \(urlHosts.joined(separator: ", ")) are"
            throw HTTPError(.forbidden, message: "url: \(host) is not a host (and port) this server fetches from; \(allowed)")
        }
        return url
    }

    private func events(_ context: ServerContext) async throws -> Response {
        let updates = try await jobs.events(of: try context.parameters.require("id"))
        let body = ResponseBody { writer in
            let encoder = JSONEncoder()
            for await status in updates {
                let json = String(decoding: try encoder.encode(status), as: UTF8.self)
                let name = status.status == .running ? "progress" : status.status.rawValue
                try await writer.write(ByteBuffer(string: "event: \(name)\ndata: \(json)\n\n"))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
    }

    private func result(_ request: Request, _ context: ServerContext) async throws -> Response {
        let url = try await jobs.result(of: try context.parameters.require("id"))
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path), let size = attributes[.size] as? Int else {
            throw HTTPError(.notFound, message: "the output is gone")
        }
        let name = url.lastPathComponent
        let ascii = String(name.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 32 ? Character($0) : "_" })
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;,"))) ?? ascii
        let headers: HTTPFields = [.contentType: Page.mediaType(of: url),
                                   .contentDisposition: "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"]
        // Ranges too: a browser seeks in a result it plays only when they are answered.
        return Self.ranged(request, size: size, pieceBytes: 256 * 1024, headers: headers) { piece in
            try await OffThread.run {
                let handle = try FileHandle(forReadingFrom: url)
                defer { try? handle.close() }
                try handle.seek(toOffset: UInt64(piece.lowerBound))
                let data = try handle.read(upToCount: piece.count) ?? Data()
                guard data.count == piece.count else { throw HTTPError(.conflict, message: "\(name) changed while it was read") }
                return ByteBuffer(bytes: data)
            }
        }
    }
}
