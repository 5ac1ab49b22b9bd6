import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing
import TestSupport
@testable import ReverseAudioServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `serve`'s routes answered in process (``InProcessClient``: no socket, no child), on the router `AudioServer.run` builds (its guard, its routes) over a temporary folder
/// of fixture copies: the list's JSON, the page with its types and CSP, the virtual WAV's ranges
/// checked against the fixtures' bytes, and every refusal the API promises (traversal, a FIFO,
/// a playlist, a bad parameter, another site, a missing token) with its status and reason.
@Suite struct ServerRoutesTests {
    typealias Client = InProcessClient<RouterResponder<ServerContext>>
    typealias Answer = Client.Answer

    /// The authority a browser's `Host` gives, which the in-process client does not set (it
    /// sends `localhost` without a port): taken from `X-Test-Authority`, else
    /// the server's own `127.0.0.1:8080`. Only the test's router holds this.
    struct TestAuthority: RouterMiddleware {
        typealias Context = ServerContext
        static let header = HTTPField.Name("X-Test-Authority")!

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            var head = request.head
            head.authority = request.headers[Self.header] ?? "127.0.0.1:8080"
            return try await next(Request(head: head, body: request.body), context)
        }
    }

    /// The application `AudioServer.run` serves, on `folder` (its guard built for `host`:8080).
    static func app(_ folder: TemporaryDirectory, host: String = "127.0.0.1", token: String? = nil,
                    output: URL? = nil) throws -> Router<ServerContext> {
        let media = try MediaFolder(root: folder.url, output: output ?? folder.file("Reversed"))
        let router = Router(context: ServerContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: TestAuthority())
        router.add(middleware: RequestGuard(host: host, port: 8080, token: token))
        let uploads = UploadStore(output: media.output, limit: 1 << 20, maximumAge: 3600)
        Routes(folder: media, jobs: JobTable(folder: media), files: OpenFiles(), catalog: FileCatalog(), uploads: uploads, urlHosts: [])
            .add(to: router)
        return router
    }

    static func folder(_ files: [String: String]) throws -> TemporaryDirectory { try ServerFolderTests.folder(files) }

    static func bytes(_ response: Answer) -> [UInt8] { Array(response.body.readableBytesView) }

    static func json(_ response: Answer) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
    }

    /// An error answer's reason: `{"error": {"message": …}}`.
    static func reason(_ response: Answer) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
        return (object?["error"] as? [String: Any])?["message"] as? String
    }

    static func get(_ client: Client, _ uri: String, _ headers: HTTPFields = [:]) async throws -> Answer {
        try await client.execute(uri: uri, method: .get, headers: headers)
    }

    static func post(_ client: Client, _ uri: String, json: String, _ headers: HTTPFields = [:]) async throws -> Answer {
        var fields = headers
        fields[.contentType] = "application/json"
        return try await client.execute(uri: uri, method: .post, headers: fields, body: ByteBuffer(string: json))
    }

    static func fixture(_ name: String) throws -> [UInt8] { try ServerFolderTests.fixtureBytes(name) }

    // MARK: - The list and a file's row

    @Test("the list: every audio file by relative name with its length, an unreadable one with its reason; the output folder and other files left out")
    func fileList() async throws {
        let folder = try Self.folder(["a.wav": "wav-pcm_s16le-1ch-8000.wav", "sub/b c.wav": "wav-pcm_s16le-2ch-44100.wav",
                                      "Reversed/old.wav": "wav-pcm_s16le-1ch-8000.wav", "notes.txt": "bad-empty.wav",
                                      "bad.mp3": "bad-text.mp3"])
        try await Self.app(folder).inProcess { client in
            let response = try await Self.get(client, "/api/files")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            let rows = try #require(try Self.json(response) as? [[String: Any]])
            #expect(Set(rows.compactMap { $0["name"] as? String }) == ["a.wav", "sub/b c.wav", "bad.mp3"], "\(rows)")
            let a = try #require(rows.first { $0["name"] as? String == "a.wav" })
            #expect(a["frames"] as? Int == 8000 && a["sampleRate"] as? Int == 8000 && a["channels"] as? Int == 1)
            #expect(a["duration"] as? Double == 1.0 && a["format"] as? String == "wav" && a["codec"] as? String == "pcm_s16le")
            let b = try #require(rows.first { $0["name"] as? String == "sub/b c.wav" })
            #expect(b["frames"] as? Int == 22050 && b["channels"] as? Int == 2 && b["duration"] as? Double == 0.5)
            let bad = try #require(rows.first { $0["name"] as? String == "bad.mp3" })
            #expect(Set(bad.keys) == ["name", "format", "error"] && bad["format"] as? String == "mp3")
            let error = try #require(bad["error"] as? String)
            #expect(error.hasPrefix("bad.mp3: ") && !error.contains(folder.url.path), "\(error)")
        }
    }

    @Test("?details=known answers at once: names not described yet are pending, described ones full rows")
    func fileListPending() async throws {
        let folder = try Self.folder(["a.wav": "wav-pcm_s16le-1ch-8000.wav", "b.wav": "wav-pcm_u8-1ch-8000.wav"])
        try await Self.app(folder).inProcess { client in
            let first = try #require(try Self.json(try await Self.get(client, "/api/files?details=known")) as? [[String: Any]])
            #expect(first.count == 2 && first.allSatisfy { $0["pending"] as? Bool == true && $0["frames"] == nil }, "\(first)")
            #expect(try await Self.get(client, "/api/files/a.wav").status == .ok)
            let later = try #require(try Self.json(try await Self.get(client, "/api/files?details=known")) as? [[String: Any]])
            let a = try #require(later.first { $0["name"] as? String == "a.wav" })
            let b = try #require(later.first { $0["name"] as? String == "b.wav" })
            #expect(a["frames"] as? Int == 8000 && a["pending"] == nil)
            #expect(b["pending"] as? Bool == true)
        }
    }

    @Test("a file's row by its URL-encoded name; a missing one is 404 with the reason as JSON")
    func fileRow() async throws {
        let folder = try Self.folder(["sub/b c.wav": "wav-pcm_s16le-2ch-44100.wav"])
        try await Self.app(folder).inProcess { client in
            let row = try #require(try Self.json(try await Self.get(client, "/api/files/sub%2Fb%20c.wav")) as? [String: Any])
            #expect(row["name"] as? String == "sub/b c.wav" && row["frames"] as? Int == 22050 && row["sampleRate"] as? Int == 44100)
            let missing = try await Self.get(client, "/api/files/missing.wav")
            #expect(missing.status == .notFound)
            #expect(missing.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(Self.reason(missing) == "missing.wav: no such file")
            let audio = try await Self.get(client, "/api/files/sub%2Fmissing.wav/audio")
            #expect(audio.status == .notFound && Self.reason(audio) == "sub/missing.wav: no such file")
        }
    }

    // MARK: - The page

    static let policy = "default-src 'self'; media-src 'self' blob:; img-src 'self' data:; frame-ancestors 'none'"

    @Test("the page and each of its files: the embedded bytes, their type, no caching, the CSP and no framing")
    func page() async throws {
        let folder = try Self.folder([:])
        try await Self.app(folder).inProcess { client in
            for (name, bytes) in Page.files {
                let response = try await Self.get(client, name == "index.html" ? "/" : "/\(name)")
                #expect(response.status == .ok, "\(name)")
                #expect(Self.bytes(response) == bytes, "\(name)")
                let type = name.hasSuffix(".html") ? "text/html; charset=utf-8"
                    : name.hasSuffix(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8"
                #expect(response.headers[.contentType] == type, "\(name)")
                #expect(response.headers[.cacheControl] == "no-store")
                #expect(response.headers[HTTPField.Name("Content-Security-Policy")!] == Self.policy, "\(name)")
                #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            }
            #expect(Page.files.keys.contains("app.mjs") && Page.files.keys.contains("style.css"))
            for missing in ["/index.html", "/nothing.mjs", "/nothing/here", "/api"] {
                #expect(try await Self.get(client, missing).status == .notFound, "\(missing)")
            }
        }
    }

    @Test("every file the page and its modules import is one the server serves")
    func pageModulesResolve() throws {
        let imports = try NSRegularExpression(pattern: #"(?:from\s+|import\s+)['"]\./([A-Za-z0-9_-]+\.mjs)['"]"#)
        let links = try NSRegularExpression(pattern: #"(?:src|href)="/([A-Za-z0-9_.-]+)""#)
        var named: Set<String> = []
        for (name, bytes) in Page.files {
            let text = String(decoding: bytes, as: UTF8.self)
            let pattern = name.hasSuffix(".html") ? links : imports
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let range = Range(match.range(at: 1), in: text)!
                named.insert(String(text[range]))
            }
        }
        #expect(named.contains("app.mjs") && named.contains("style.css") && named.contains("dom.mjs"), "\(named)")
        #expect(named.subtracting(Page.files.keys).isEmpty, "named but not served: \(named.subtracting(Page.files.keys))")
        // And every module served is reached from the page.
        #expect(Set(Page.files.keys).subtracting(named) == ["index.html"], "served but never imported: \(Set(Page.files.keys).subtracting(named))")
    }

    // MARK: - The virtual WAV by ranges

    @Test("a canonical 16-bit WAV's audio is the file itself: 200 with its length, ranges accepted, no caching; HEAD alike, without a body")
    func audioWhole() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let file = try Self.fixture("wav-pcm_s16le-1ch-8000.wav")
        try await Self.app(folder).inProcess { client in
            let response = try await Self.get(client, "/api/files/in.wav/audio")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "audio/wav" && response.headers[.acceptRanges] == "bytes")
            #expect(response.headers[.cacheControl] == "no-store" && response.headers[.contentRange] == nil)
            #expect(response.headers[.contentLength] == "\(file.count)")
            #expect(Self.bytes(response) == file)
            let head = try await client.execute(uri: "/api/files/in.wav/audio?direction=reverse", method: .head)
            #expect(head.status == .ok && head.body.readableBytes == 0)
            #expect(head.headers[.contentLength] == "\(file.count)")
        }
    }

    @Test("a range is 206 with Content-Range and exactly those bytes: the header, the decoded frames' start, across both, a suffix")
    func audioRanges() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-2ch-44100.wav"])
        let file = try Self.fixture("wav-pcm_s16le-2ch-44100.wav")
        let size = file.count
        try await Self.app(folder).inProcess { client in
            for (header, first, last) in [("bytes=0-43", 0, 43), ("bytes=0-99", 0, 99), ("bytes=40-47", 40, 47), ("bytes=44-", 44, size - 1),
                                          ("bytes=1000-70000", 1000, 70000), ("bytes=-10", size - 10, size - 1),
                                          ("bytes=88000-999999", 88000, size - 1)] {
                let response = try await Self.get(client, "/api/files/in.wav/audio", [.range: header])
                #expect(response.status == .partialContent, "\(header)")
                #expect(response.headers[.contentRange] == "bytes \(first)-\(last)/\(size)", "\(header)")
                #expect(response.headers[.contentLength] == "\(last - first + 1)")
                #expect(Self.bytes(response) == Array(file[first...last]), "\(header)")
            }
        }
    }

    @Test("backwards: the same header, the data the file's frames last to first, by ranges too")
    func audioReversed() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-2ch-44100.wav"])
        let file = try Self.fixture("wav-pcm_s16le-2ch-44100.wav")
        let reversed = Array(file.prefix(44)) + ServerFolderTests.reversedFrames(Array(file.dropFirst(44)), bytesPerFrame: 4)
        try await Self.app(folder).inProcess { client in
            for direction in ["reverse", "backward", "backwards"] {
                let whole = try await Self.get(client, "/api/files/in.wav/audio?direction=\(direction)")
                #expect(whole.status == .ok && Self.bytes(whole) == reversed, "\(direction)")
            }
            let part = try await Self.get(client, "/api/files/in.wav/audio?direction=reverse", [.range: "bytes=30-61"])
            #expect(part.status == .partialContent && Self.bytes(part) == Array(reversed[30...61]))
            let forward = try await Self.get(client, "/api/files/in.wav/audio?direction=forwards", [.range: "bytes=30-61"])
            #expect(Self.bytes(forward) == Array(file[30...61]))
        }
    }

    @Test("a range at or past the end is 416 with bytes */size and no body; one the server cannot parse gets the whole")
    func audioUnsatisfiable() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        try await Self.app(folder).inProcess { client in
            for header in ["bytes=16044-", "bytes=99999-100000", "bytes=-0"] {
                let response = try await Self.get(client, "/api/files/in.wav/audio?direction=reverse", [.range: header])
                #expect(response.status == .rangeNotSatisfiable, "\(header)")
                #expect(response.headers[.contentRange] == "bytes */16044" && response.body.readableBytes == 0, "\(header)")
            }
            let several = try await Self.get(client, "/api/files/in.wav/audio", [.range: "bytes=0-1,5-6"])
            #expect(several.status == .ok && several.body.readableBytes == 16044)
        }
    }

    @Test("loop=whole: one stream of whole laps, the first lap's end followed by the file's start")
    func audioLooping() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let file = try Self.fixture("wav-pcm_s16le-1ch-8000.wav")
        try await Self.app(folder).inProcess { client in
            let seam = try await Self.get(client, "/api/files/in.wav/audio?loop=whole", [.range: "bytes=16040-16047"])
            #expect(seam.status == .partialContent)
            #expect(Self.bytes(seam) == Array(file.suffix(4)) + Array(file[44..<48]))
            let size = try #require(seam.headers[.contentRange]?.split(separator: "/").last.flatMap { Int($0) })
            #expect((size - 44) % 16000 == 0 && size - 8 <= Int(Int32.max), "\(size)")
            #expect(try await Self.get(client, "/api/files/in.wav/audio?loop=none", [.range: "bytes=0-3"]).status == .partialContent)
        }
    }

    // MARK: - Refusals

    @Test("traversal: .., %2e%2e, encoded slashes and absolute paths, a link out of the folder: 404 telling nothing of the outside; a FIFO 403")
    func traversal() async throws {
        let outside = try Self.folder(["secret.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        try FileManager.default.createSymbolicLink(atPath: folder.file("out.wav").path, withDestinationPath: outside.file("secret.wav").path)
        try FileManager.default.createSymbolicLink(atPath: folder.file("inside.wav").path, withDestinationPath: "in.wav")
        #expect(mkfifo(folder.file("pipe.wav").path, 0o600) == 0)
        let segment = { (name: String) in name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name }
        let up = "../" + outside.url.lastPathComponent + "/secret.wav"
        let refused = [segment(up), "..%2F..%2F..%2Fetc%2Fpasswd", "%2e%2e", "%2E%2E%2Fsecret.wav", "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
                       segment(outside.file("secret.wav").path), "%2Fetc%2Fpasswd", "out.wav"]
        try await Self.app(folder).inProcess { client in
            for name in refused {
                for route in ["", "/audio", "/waveform.json"] {
                    let response = try await Self.get(client, "/api/files/\(name)\(route)")
                    #expect(response.status == .notFound, "\(name)\(route): \(response.status)")
                    let text = String(buffer: response.body)
                    #expect(!text.contains(outside.url.path) && !text.contains(folder.url.path), "\(text)")
                    #expect(Self.reason(response)?.hasSuffix(": no such file") == true, "\(text)")
                }
            }
            let pipe = try await Self.get(client, "/api/files/pipe.wav/audio")
            #expect(pipe.status == .forbidden && Self.reason(pipe) == "pipe.wav: not a regular file")
            #expect(try await Self.get(client, "/api/files/inside.wav/audio").status == .ok, "a link that stays inside works")
            let names = ((try Self.json(try await Self.get(client, "/api/files")) as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
            // Neither the link out nor the FIFO is listed (the link inside is the same file as in.wav: listed once).
            #expect(names == ["in.wav"], "\(names)")
        }
    }

    @Test("a bad query parameter is 400 with the reason naming the value")
    func badParameters() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let cases = [
            ("/api/files/in.wav/audio?direction=sideways", "direction: forward or reverse, not sideways"),
            ("/api/files/in.wav/audio?loop=twice", "loop: whole or none, not twice"),
            ("/api/files/in.wav/waveform.json?samples-per-pixel=1", "samples-per-pixel: a whole number from 2, not 1"),
            ("/api/files/in.wav/waveform.dat?samples-per-pixel=abc", "samples-per-pixel: a whole number from 2, not abc"),
            ("/api/files/in.wav/waveform.json?samples-per-pixel=99999999999", "samples-per-pixel: a whole number from 2, not 99999999999"),
            ("/api/files/in.wav/waveform.json?part=2&parts=2", "part and parts: 0 ≤ part (or K-L, K ≤ L) < parts ≤ 64, not 2 and 2"),
            ("/api/files/in.wav/waveform.json?part=3-1&parts=4", "part and parts: 0 ≤ part (or K-L, K ≤ L) < parts ≤ 64, not 3-1 and 4"),
            ("/api/files/in.wav/waveform.json?part=0&parts=65", "part and parts: 0 ≤ part (or K-L, K ≤ L) < parts ≤ 64, not 0 and 65"),
        ]
        try await Self.app(folder).inProcess { client in
            for (uri, reason) in cases {
                let response = try await Self.get(client, uri)
                #expect(response.status == .badRequest, "\(uri)")
                #expect(Self.reason(response) == reason, "\(uri): \(String(buffer: response.body))")
            }
        }
    }

    @Test("waveforms: .dat and .json are audiowaveform's bytes with their types; parts put end to end are the whole")
    func waveforms() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-2ch-44100.wav"])
        let golden = Fixtures.directory.appendingPathComponent("waveform-data/wav-pcm_s16le-2ch-44100")
        try await Self.app(folder).inProcess { client in
            for (format, type) in [("dat", "application/octet-stream"), ("json", "application/json")] {
                let response = try await Self.get(client, "/api/files/in.wav/waveform.\(format)?samples-per-pixel=256")
                #expect(response.status == .ok && response.headers[.contentType] == type)
                #expect(Self.bytes(response) == [UInt8](try Data(contentsOf: golden.appendingPathComponent("z256-b16-mixed.\(format)"))), "\(format)")
            }
            func points(_ uri: String) async throws -> [Int] {
                let object = try #require(try Self.json(try await Self.get(client, uri)) as? [String: Any])
                return try #require(object["data"] as? [Int])
            }
            let whole = try await points("/api/files/in.wav/waveform.json?samples-per-pixel=64")
            let parts = try await points("/api/files/in.wav/waveform.json?samples-per-pixel=64&part=0&parts=3")
                + points("/api/files/in.wav/waveform.json?samples-per-pixel=64&part=1-2&parts=3")
            #expect(!whole.isEmpty && parts == whole)
        }
    }

    @Test("a playlist in the folder reaching outside it is never media: listed with the reason, its audio and a job on it refused (400)")
    func playlists() async throws {
        let outside = try Self.folder(["secret.mp3": "mp3-cbr64-xing-1ch-22050.mp3"])
        let folder = try Self.folder(["real.wav": "wav-pcm_s16le-1ch-8000.wav"])
        func hls(_ target: String) -> Data { Data("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:1.0,\n\(target)\n#EXT-X-ENDLIST\n".utf8) }
        try hls(outside.file("secret.mp3").path).write(to: folder.file("innocent.mp3"))
        try hls("../" + outside.url.lastPathComponent + "/secret.mp3").write(to: folder.file("relative.mp3"))
        try Data("ffconcat version 1.0\nfile '\(outside.file("secret.mp3").path)'\n".utf8).write(to: folder.file("concat.mp3"))
        try await Self.app(folder).inProcess { client in
            let rows = try #require(try Self.json(try await Self.get(client, "/api/files")) as? [[String: Any]])
            #expect(rows.filter { $0["error"] == nil }.compactMap { $0["name"] as? String } == ["real.wav"], "\(rows)")
            for row in rows where row["error"] != nil {
                #expect((row["error"] as? String)?.contains("playlist") == true && row["frames"] == nil, "\(row)")
            }
            for name in ["innocent.mp3", "relative.mp3", "concat.mp3"] {
                let audio = try await Self.get(client, "/api/files/\(name)/audio")
                #expect(audio.status == .badRequest && Self.reason(audio)?.contains("playlist") == true, "\(name): \(String(buffer: audio.body))")
                #expect(!String(buffer: audio.body).contains(outside.url.path))
                let job = try await Self.post(client, "/api/jobs", json: #"{"file":"\#(name)","operation":"convert","output":"\#(name).wav"}"#)
                #expect(job.status == .badRequest && Self.reason(job) == "\(name): not audio this tool can read", "\(String(buffer: job.body))")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("Reversed").path))
    }

    // MARK: - The guard

    @Test("Host must be the server's (421 otherwise, DNS rebinding); a foreign Origin or a cross-site fetch is 403, but a navigation to the page")
    func guardHostAndOrigin() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let authority = TestAuthority.header
        try await Self.app(folder).inProcess { client in
            for host in ["attacker.example:8080", "127.0.0.1:1", "127.0.0.1", "localhost"] {
                let response = try await Self.get(client, "/api/files", [authority: host])
                #expect(response.status == .misdirectedRequest, "\(host)")
                #expect(Self.reason(response) == "this server answers only to 127.0.0.1:8080, [::1]:8080, localhost:8080")
            }
            for host in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080"] {
                #expect(try await Self.get(client, "/api/files", [authority: host]).status == .ok, "\(host)")
            }
            let foreign = try await Self.get(client, "/api/files", [.origin: "http://attacker.example"])
            #expect(foreign.status == .forbidden && Self.reason(foreign) == "requests from another site's page are refused")
            #expect(try await Self.get(client, "/api/files", [.origin: "http://127.0.0.1:8080"]).status == .ok)
            #expect(try await Self.get(client, "/api/files", [.origin: "https://127.0.0.1:8080"]).status == .forbidden)
            let job = try await Self.post(client, "/api/jobs", json: #"{"file":"in.wav","operation":"reverse","output":"x.wav"}"#,
                                          [.origin: "http://attacker.example"])
            #expect(job.status == .forbidden)
            let fetchSite = HTTPField.Name("Sec-Fetch-Site")!, fetchMode = HTTPField.Name("Sec-Fetch-Mode")!
            for site in ["cross-site", "same-site"] {
                let image = try await Self.get(client, "/api/files/in.wav/waveform.json", [fetchSite: site, fetchMode: "no-cors"])
                #expect(image.status == .forbidden, "\(site)")
                let navigateToAPI = try await Self.get(client, "/api/files", [fetchSite: site, fetchMode: "navigate"])
                #expect(navigateToAPI.status == .forbidden, "\(site)")
                #expect(try await Self.get(client, "/", [fetchSite: site, fetchMode: "navigate"]).status == .ok, "\(site)")
            }
            #expect(try await Self.get(client, "/api/files", [fetchSite: "same-origin"]).status == .ok)
            #expect(try await Self.get(client, "/api/files", [fetchSite: "none"]).status == .ok)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("Reversed/x.wav").path))
    }

    @Test("a token: refused without it or with another; taken from the header, the URL (the page redirects, setting the port's cookie) or that cookie")
    func guardToken() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let secret = "s3cret-0123456789abc"
        let header = RequestGuard.tokenHeader
        try await Self.app(folder, token: secret).inProcess { client in
            let none = try await Self.get(client, "/api/files")
            #expect(none.status == .forbidden && Self.reason(none) == "this server needs its token (the URL it printed holds it)")
            #expect(try await Self.get(client, "/api/files", [header: "s3cret-0123456789abd"]).status == .forbidden)
            #expect(try await Self.get(client, "/api/files", [header: secret + "x"]).status == .forbidden)
            #expect(try await Self.get(client, "/api/files", [header: secret]).status == .ok)
            let viaURL = try await Self.get(client, "/?token=\(secret)")
            #expect(viaURL.status == .seeOther && viaURL.headers[.location] == "/" && viaURL.body.readableBytes == 0)
            let cookie = try #require(viaURL.headers[.setCookie])
            #expect(cookie == "reverse_audio_token_8080=\(secret); Path=/; HttpOnly; SameSite=Strict")
            #expect(try await Self.get(client, "/api/files", [.cookie: "a=b; reverse_audio_token_8080=\(secret)"]).status == .ok)
            #expect(try await Self.get(client, "/", [.cookie: "reverse_audio_token_8080=\(secret)"]).status == .ok)
            // Another port's cookie, or the old name, is not this server's.
            #expect(try await Self.get(client, "/api/files", [.cookie: "reverse_audio_token_8081=\(secret)"]).status == .forbidden)
            #expect(try await Self.get(client, "/api/files", [.cookie: "reverse_audio_token=\(secret)"]).status == .forbidden)
            // The token in an API URL is answered, with the cookie set beside.
            let api = try await Self.get(client, "/api/files?token=\(secret)")
            #expect(api.status == .ok && api.headers[.setCookie]?.hasPrefix("reverse_audio_token_8080=") == true)
        }
    }

    @Test("bound to every address, any Host is answered, the token being what keeps others out")
    func guardWildcard() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let secret = "every-address-token-01"
        try await Self.app(folder, host: "0.0.0.0", token: secret).inProcess { client in
            for host in ["192.168.1.20:8080", "box.local:8080"] {
                let given = try await Self.get(client, "/api/files", [TestAuthority.header: host, RequestGuard.tokenHeader: secret])
                let without = try await Self.get(client, "/api/files", [TestAuthority.header: host])
                #expect(given.status == .ok && without.status == .forbidden, "\(host)")
            }
        }
    }

    // MARK: - Jobs, uploads and results through the API

    @Test("a malformed job is 400 with the shape a job takes; a missing file 404; a body over 64 KiB 413; no job 404; the settings")
    func jobRefusals() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        try await Self.app(folder).inProcess { client in
            for body in [#"{"file":"in.wav"}"#, #"{"file":"in.wav","operation":"explode"}"#, "not json"] {
                let response = try await Self.post(client, "/api/jobs", json: body)
                // The shape a job takes, not the decoder's words (a missing key, an unknown case).
                #expect(response.status == .badRequest && Self.reason(response)?.hasPrefix("a job is {") == true,
                        "\(body): \(Self.reason(response) ?? "no reason")")
            }
            let negative = try await Self.post(client, "/api/jobs", json: #"{"file":"in.wav","operation":"trim","start":-1}"#)
            #expect(negative.status == .badRequest && Self.reason(negative)?.isEmpty == false)
            let two = try await Self.post(client, "/api/jobs", json: #"{"file":"in.wav","upload":"x","operation":"reverse"}"#)
            #expect(two.status == .badRequest && Self.reason(two)?.contains("one input") == true)
            let gone = try await Self.post(client, "/api/jobs", json: #"{"file":"gone.wav","operation":"reverse","output":"x.wav"}"#)
            #expect(gone.status == .notFound && Self.reason(gone) == "gone.wav: no such file")
            let outside = try await Self.post(client, "/api/jobs", json: #"{"file":"../in.wav","operation":"reverse"}"#)
            #expect(outside.status == .notFound)
            let big = try await Self.post(client, "/api/jobs", json: String(repeating: " ", count: 70_000) + "{}")
            #expect(big.status == .contentTooLarge)
            let url = try await Self.post(client, "/api/jobs", json: #"{"url":"http://media.example.org/a.mp3","operation":"reverse"}"#)
            #expect(url.status == .forbidden && Self.reason(url)?.hasPrefix("url: media.example.org is not a host") == true, "\(String(buffer: url.body))")
            let file = try await Self.post(client, "/api/jobs", json: #"{"url":"file:///etc/passwd","operation":"reverse"}"#)
            #expect(file.status == .badRequest && Self.reason(file) == "url: an http:// or https:// address")
            let noJob = try await Self.get(client, "/api/jobs/nope")
            #expect(noJob.status == .notFound && Self.reason(noJob) == "no job nope")
            #expect(try await client.execute(uri: "/api/jobs/nope", method: .delete).status == .notFound)
            #expect(try await Self.get(client, "/api/jobs/nope/result").status == .notFound)
            let settings = try #require(try Self.json(try await Self.get(client, "/api/settings")) as? [String: Any])
            #expect((settings["urlHosts"] as? [String]) == [])
            #expect((try Self.json(try await Self.get(client, "/api/results")) as? [Any])?.isEmpty == true)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("Reversed").path), "a refused job made the output folder")
    }

    @Test("a job through the API: 202, its events end done, its result is a download (ranges too), listed and played as a result",
          .timeLimit(.minutes(2)))
    func jobThroughTheAPI() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let file = try Self.fixture("wav-pcm_s16le-1ch-8000.wav")
        try await Self.app(folder).inProcess { client in
            let accepted = try await Self.post(client, "/api/jobs", json: #"{"file":"in.wav","operation":"reverse"}"#)
            #expect(accepted.status == .accepted)
            let status = try #require(try Self.json(accepted) as? [String: Any])
            let id = try #require(status["id"] as? String)
            #expect(status["output"] as? String == "in-REVERSED.wav" && status["status"] as? String == "running")
            let events = try await Self.get(client, "/api/jobs/\(id)/events")
            #expect(events.headers[.contentType] == "text/event-stream")
            let text = String(buffer: events.body)
            #expect(text.hasSuffix("\n\n") && text.contains("event: done\ndata: "), "\(text)")
            #expect(!text.contains("event: failed"))
            let result = try await Self.get(client, "/api/jobs/\(id)/result")
            #expect(result.status == .ok && result.headers[.contentType] == "audio/wav")
            #expect(result.headers[.contentDisposition] == #"attachment; filename="in-REVERSED.wav"; filename*=UTF-8''in-REVERSED.wav"#)
            let output = Self.bytes(result)
            let input = try ServerFolderTests.dataChunk(file)
            #expect(try ServerFolderTests.dataChunk(output) == ServerFolderTests.reversedFrames(input, bytesPerFrame: 2))
            let part = try await Self.get(client, "/api/results/in-REVERSED.wav/download", [.range: "bytes=10-19"])
            #expect(part.status == .partialContent && Self.bytes(part) == Array(output[10...19]))
            #expect(part.headers[.contentRange] == "bytes 10-19/\(output.count)")
            let rows = try #require(try Self.json(try await Self.get(client, "/api/results")) as? [[String: Any]])
            #expect(rows.count == 1 && rows.first?["name"] as? String == "in-REVERSED.wav" && rows.first?["kind"] as? String == "audio")
            #expect(rows.first?["frames"] as? Int == 8000)
            let played = try await Self.get(client, "/api/results/in-REVERSED.wav/audio?direction=reverse", [.range: "bytes=44-"])
            #expect(Self.bytes(played) == input, "the result played backwards is the input")
            #expect(try await Self.get(client, "/api/results/..%2Fin.wav/audio").status == .notFound)
        }
    }

    @Test("an upload through the API: 201 with its name, then served as an upload; one that is no media 415")
    func uploadsThroughTheAPI() async throws {
        let folder = try Self.folder([:])
        let file = try Self.fixture("wav-pcm_s16le-1ch-8000.wav")
        try await Self.app(folder).inProcess { client in
            let created = try await client.execute(uri: "/api/uploads?name=take%201.wav", method: .post,
                                                   headers: [.contentType: "application/octet-stream"], body: ByteBuffer(bytes: file))
            #expect(created.status == .created)
            let upload = try #require(try Self.json(created) as? [String: Any])
            let name = try #require(upload["name"] as? String)
            #expect(upload["title"] as? String == "take 1.wav" && upload["kind"] as? String == "audio" && upload["size"] as? Int == file.count)
            let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let row = try #require(try Self.json(try await Self.get(client, "/api/uploads/\(encoded)")) as? [String: Any])
            #expect(row["frames"] as? Int == 8000)
            #expect(Self.bytes(try await Self.get(client, "/api/uploads/\(encoded)/audio")) == file)
            let refused = try await client.execute(uri: "/api/uploads?name=x.mp3", method: .post, body: ByteBuffer(string: "plain words"))
            #expect(refused.status == .unsupportedMediaType && Self.reason(refused)?.hasPrefix("x.mp3: not audio or video") == true)
            #expect(try await Self.get(client, "/api/uploads/nope.wav").status == .notFound)
        }
    }
}
