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
        for name in Page.files.keys where name != "index.html" {
            router.get("/\(name)") { _, _ in Page.response(for: name) }
        }
        router.get("/api/settings") { _, _ in Settings(urlHosts: urlHosts) }
        router.get("/api/files") { request, _ in
            // `?details=known`: at once, a file not described yet as `{"name", "format", "pending": true}`.
            try await list(waiting: request.uri.queryParameters["details"] != "known")
        }
        router.get("/api/results") { _, _ in try await results.list(catalog: catalog) }
        router.post("/api/uploads") { request, _ in EditedResponse(status: .created, response: try await uploads.receive(request)) }
        // Files, results and uploads alike: the same player (both directions, the waveform).
        for shelf in Shelf.allCases {
            router.get("/api/\(shelf.rawValue)/{name}") { _, context in try await row(try open(shelf, context)) }
            router.get("/api/\(shelf.rawValue)/{name}/audio") { request, context in try await audio(request, try open(shelf, context)) }
            router.get("/api/\(shelf.rawValue)/{name}/waveform.json") { request, context in
                try await waveform(request, try open(shelf, context), .json)
            }
            router.get("/api/\(shelf.rawValue)/{name}/waveform.dat") { request, context in
                try await waveform(request, try open(shelf, context), .dat)
            }
        }
        router.get("/api/results/{name}/download") { request, context in try Self.download(request, try open(.results, context)) }
        router.post("/api/jobs") { request, context in try await startJob(request, context) }
        router.get("/api/jobs/{id}") { _, context in try await jobs.status(of: try context.parameters.require("id")) }
        router.delete("/api/jobs/{id}") { _, context in try await jobs.cancel(try context.parameters.require("id")) }
        router.get("/api/jobs/{id}/events") { _, context in try await events(context) }
        router.get("/api/jobs/{id}/result") { request, context in try await result(request, context) }
    }

    /// What the page adapts to (`GET /api/settings`): the hosts a job's URL may name (the URL
    /// field shows only when there is one).
    struct Settings: ResponseEncodable, Sendable {
        let urlHosts: [String]
    }

    /// Where a route's `{name}` is looked up.
    enum Shelf: String, CaseIterable, Sendable {
        /// The served folder's files.
        case files
        /// What jobs wrote, in the output folder.
        case results
        /// What was uploaded.
        case uploads
    }

    /// The results: the output folder's files.
    var results: ResultShelf { ResultShelf(output: folder.output) }

    /// The file a route's `{name}` names on `shelf`, opened there.
    private func open(_ shelf: Shelf, _ context: ServerContext) throws -> FolderFile {
        let encoded = try context.parameters.require("name")
        guard let name = encoded.removingPercentEncoding else { throw HTTPError(.badRequest, message: "a name that is not URL-encoded UTF-8") }
        switch shelf {
        case .files: return try folder.open(name)
        case .results: return try results.open(name)
        case .uploads: return try uploads.open(name)
        }
    }

    /// One file's row (`GET /api/files/{name}`), described now if it was not yet; the reason as
    /// the error when it cannot be read.
    private func row(_ file: FolderFile) async throws -> FileCatalog.Row {
        switch await catalog.describe(file) {
        case .success(let row): return row
        case .failure(let error): throw folder.answer(for: error, file: file)
        }
    }

    /// The rows of the list, in the walk's order, a file that cannot be read as audio with the
    /// reason; files not yet described are read a few at a time (as many as there are cores),
    /// each once per version of the file. Unless `waiting`, those are listed as pending instead
    /// (a page shows the names at once and the rest as it comes).
    private func list(waiting: Bool) async throws -> [FileCatalog.ListRow] {
        let files = await OffThread.runNonThrowing { [folder] in folder.names() }
        if !waiting {
            var rows: [FileCatalog.ListRow] = []
            for name in files {
                guard let file = try? folder.open(name) else { continue }
                rows.append(await catalog.known(file).map { .readable($0) } ?? .pending(name: name))
            }
            return rows
        }
        var rows = [FileCatalog.ListRow?](repeating: nil, count: files.count)
        let width = max(1, ProcessInfo.processInfo.activeProcessorCount)
        await withTaskGroup(of: (Int, FileCatalog.ListRow?).self) { group in
            var next = 0
            func addNext() {
                guard next < files.count else { return }
                let (index, name) = (next, files[next])
                group.addTask {
                    // A name the walk found but a request for it would not reach is left out.
                    guard let file = try? folder.open(name) else { return (index, nil) }
                    switch await catalog.describe(file) {
                    case .success(let row): return (index, .readable(row))
                    case .failure(let error):
                        let reason = (folder.answer(for: error, file: file) as? HTTPError)?.body ?? "cannot be read"
                        return (index, .unreadable(name: name, reason: reason))
                    }
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

    private func audio(_ request: Request, _ file: FolderFile) async throws -> Response {
        let direction: PlaybackDirection
        switch request.uri.queryParameters["direction"].map(String.init) {
        case nil, "forward", "forwards": direction = .forward
        case "reverse", "backward", "backwards": direction = .reverse
        case let other?: throw HTTPError(.badRequest, message: "direction: forward or reverse, not \(other)")
        }
        // `loop=whole`: the file over and over in one stream, seamless (``VirtualWAV/laps``).
        let looping: Bool
        switch request.uri.queryParameters["loop"].map(String.init) {
        case nil, "none": looping = false
        case "whole": looping = true
        case let other?: throw HTTPError(.badRequest, message: "loop: whole or none, not \(other)")
        }
        let wav: VirtualWAV
        do {
            // Asked for only on the file's first open: a range of an open file needs none.
            let facts = files.holds(file) ? nil : await catalog.facts(of: file)
            let frames = try await OffThread.run { try files.frames(of: file, facts: facts) }
            wav = try VirtualWAV(frames: frames, direction: direction, looping: looping)
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

    private func waveform(_ request: Request, _ file: FolderFile, _ format: WaveformData.Format) async throws -> Response {
        let given = request.uri.queryParameters["samples-per-pixel"].map(String.init) ?? "256"
        guard let samplesPerPixel = Int(given), (2...Int(Int32.max)).contains(samplesPerPixel) else {
            throw HTTPError(.badRequest, message: "samples-per-pixel: a whole number from 2, not \(given)")
        }
        let row = try await row(file)
        let least = FileCatalog.minimumSamplesPerPixel(frames: row.frames)
        guard samplesPerPixel >= least else {
            throw HTTPError(.badRequest, message: "samples-per-pixel: at least \(least) for \(row.name) (\(row.frames) frames; a waveform has at most \(FileCatalog.maximumPixels) points), not \(samplesPerPixel)")
        }
        // `part=K&parts=P`: the K-th of P parts, for a page that draws the waveform as it comes;
        // `part=K-L`: parts K through L in one pass.
        let parts = request.uri.queryParameters["parts"].map(String.init) ?? "1"
        let index = request.uri.queryParameters["part"].map(String.init) ?? "0"
        let bounds = index.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { Int($0) }
        guard let count = Int(parts), (1...64).contains(count), let first = bounds.first ?? nil, let last = bounds.last ?? nil,
              0 <= first, first <= last, last < count else {
            throw HTTPError(.badRequest, message: "part and parts: 0 ≤ part (or K-L, K ≤ L) < parts ≤ 64, not \(index) and \(parts)")
        }
        let bytes: [UInt8]
        do {
            bytes = try await catalog.waveform(of: file, samplesPerPixel: samplesPerPixel, format: format,
                                               part: .init(index: first, through: last, count: count))
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
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw error  // a body over the limit
        } catch {
            // Anything else (Hummingbird's decoder answers 400 in its own words) gets the shape.
            throw HTTPError(.badRequest, message: "a job is {\"file\"|\"upload\"|\"url\", \"operation\": \"reverse\"|\"convert\"|\"trim\"|\"reverse-video\"|\"boomerang\", \"output\", \"start\"?, \"end\"?, \"crf\"?}")
        }
        let source = try asked.input()
        let input: JobTable.Input
        var length: JobTable.AudioLength?
        switch source {
        case .file(let name), .upload(let name), .result(let name):
            let file: FolderFile
            switch source {
            case .upload: file = try uploads.open(name)
            case .result: file = try results.open(name)
            default: file = try folder.open(name)
            }
            input = .file(file)
            if !asked.operation.isVideo {
                switch await catalog.describe(file) {
                case .success(let row): length = .init(frames: row.frames, sampleRate: row.sampleRate)
                case .failure(let error):
                    if case .file = source { throw HTTPError(.badRequest, message: "\(name): not audio this tool can read") }
                    throw folder.answer(for: error, file: file)
                }
            }
        case .url(let address):
            // Read inside the job, never here: a stalled server must not hold a request.
            input = .remote(try remote(address))
        }
        return EditedResponse(status: .accepted, response: try await jobs.start(asked, input: input, inputName: source.name, title: source.title, length: length))
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
        return try Self.download(request, try results.open(url.lastPathComponent))
    }
}
