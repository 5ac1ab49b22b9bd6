import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 30, items 1–3 in `serve`: uploads (the body or a multipart form, streamed to a
/// temporary file, capped, checked as media, kept for a while), jobs on uploads (the audio
/// jobs, and reversed and boomerang videos of what a browser records) and on URLs of allowed
/// hosts. Whatever is refused or cut off leaves nothing in the output folder.
@Suite("serve: uploads, video jobs, URL jobs", .runsProcesses)
struct ServeUploadTests {
    /// The files in the server's uploads folder (partial ones included), sorted.
    static func uploads(_ output: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".uploads").path)) ?? []).sorted()
    }

    /// A `multipart/form-data` body holding `fields` (name, file name or nil, bytes), as a
    /// browser's `FormData` sends it; its Content-Type.
    static func form(_ fields: [(String, String?, Data)]) -> (Data, String) {
        let boundary = "----ReverseAudioTest\(UUID().uuidString.prefix(8))"
        var body = Data()
        for (name, file, bytes) in fields {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"".utf8))
            if let file { body.append(Data("; filename=\"\(file)\"\r\nContent-Type: application/octet-stream".utf8)) }
            body.append(Data("\r\n\r\n".utf8))
            body.append(bytes)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    /// Uploads `bytes`, raw (`?name=`) or as a form; the status and the answer's object.
    static func upload(_ server: RunningServer, _ bytes: Data, name: String, asForm: Bool) async throws -> (Int, [String: Any]) {
        let answer: HTTPExchange
        if asForm {
            let (body, type) = form([("note", nil, Data("a field before the file".utf8)), ("file", name, bytes)])
            answer = try await server.request("POST", "/api/uploads", headers: [("Content-Type", type)], body: body)
        } else {
            answer = try await server.request("POST", "/api/uploads?name=\(pathSegment(name))",
                                        headers: [("Content-Type", "application/octet-stream")], body: bytes)
        }
        return (answer.status, (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:])
    }

    /// Runs a job to its end and reads its result.
    static func result(_ server: RunningServer, _ job: [String: Any], timeout: Double = 60) async throws -> Data {
        let id = try await ServeJobTests.start(server, job)
        let events = try await ServeJobTests.events(server, id)
        #expect(events.last?.0 == "done", "\(job): \(events.last.map { "\($0.1)" } ?? "no events")")
        let answer = try await server.request("GET", "/api/jobs/\(id)/result")
        #expect(answer.status == 200)
        return answer.body
    }

    @Test("an upload, raw or from a form, is kept byte for byte under a safe name; a reverse job on it equals convert --reverse",
          arguments: [false, true])
    func uploadAndReverse(asForm: Bool) async throws {
        let folder = try ServeTests.folder([:])
        let output = folder.file("out")
        let server = try await RunningServer(folder.url, ["-o", output.path])
        let bytes = try Data(contentsOf: Fixtures.url("flac-s16-2ch-44100.flac"))
        let (status, answer) = try await Self.upload(server, bytes, name: "../../My Song?.flac", asForm: asForm)
        #expect(status == 201, "\(answer)")
        let name = try #require(answer["name"] as? String)
        #expect(name.hasSuffix("-My Song_.flac") && !name.contains("/"), "\(name)")
        #expect(answer["kind"] as? String == "audio" && answer["size"] as? Int == bytes.count, "\(answer)")
        #expect(try Data(contentsOf: output.appendingPathComponent(".uploads/\(name)")) == bytes)
        let reversed = try await Self.result(server, ["upload": name, "operation": "reverse", "output": "r.flac"])
        let expected = try await ServeJobTests.commandOutput(["convert", Fixtures.url("flac-s16-2ch-44100.flac").path, "OUT", "--reverse"], named: "r.flac")
        #expect(reversed == expected, "the upload's reversal differs from convert --reverse of the same file")
        #expect(Self.uploads(output) == [name], "\(Self.uploads(output))")
    }

    @Test("refused uploads leave nothing: no name, empty, not media, over the cap, a form without a file, a malformed form")
    func refusedUploads() async throws {
        let folder = try ServeTests.folder([:])
        let output = folder.file("out")
        let server = try await RunningServer(folder.url, ["-o", output.path, "--upload-limit", "1"])
        let audio = try Data(contentsOf: Fixtures.url("flac-s16-2ch-44100.flac"))
        var cases: [(String, HTTPExchange, Int, String)] = []
        await cases.append(("no name", try server.request("POST", "/api/uploads", body: audio), 400, "names its file"))
        await cases.append(("empty", try server.request("POST", "/api/uploads?name=a.flac", body: Data()), 400, "empty"))
        await cases.append(("text", try server.request("POST", "/api/uploads?name=a.mp3", body: Data(String(repeating: "not sound ", count: 500).utf8)),
                      415, "a.mp3: not audio or video"))
        await cases.append(("over the cap", try server.request("POST", "/api/uploads?name=big.wav", body: Data(count: (1 << 20) + 1)), 413, "1 MiB"))
        let (noFile, type) = Self.form([("note", nil, Data("just words".utf8))])
        await cases.append(("form without a file", try server.request("POST", "/api/uploads", headers: [("Content-Type", type)], body: noFile),
                      400, "no file"))
        let (emptyFile, emptyType) = Self.form([("file", "e.flac", Data())])
        await cases.append(("form with an empty file", try server.request("POST", "/api/uploads", headers: [("Content-Type", emptyType)], body: emptyFile),
                      400, "empty"))
        await cases.append(("malformed form", try server.request("POST", "/api/uploads", headers: [("Content-Type", "multipart/form-data; boundary=xyz")],
                                                           body: Data("this is not a form at all".utf8)), 400, "no file"))
        for (what, answer, status, phrase) in cases {
            #expect(answer.status == status, "\(what): \(answer.status) \(answer.text)")
            #expect(answer.text.contains(phrase), "\(what): \(answer.text)")
        }
        #expect(Self.uploads(output).isEmpty, "left behind: \(Self.uploads(output))")
        let (status, _) = try await server.json("POST", "/api/jobs", body: ["upload": "00000000-none.flac", "operation": "reverse", "output": "x.wav"])
        #expect(status == 404)
        let (both, _) = try await server.json("POST", "/api/jobs", body: ["upload": "a", "file": "b", "operation": "reverse", "output": "x.wav"])
        #expect(both == 400)
    }

    @Test("an upload cut off mid-way leaves no file")
    func cutOff() async throws {
        let folder = try ServeTests.folder([:])
        let output = folder.file("out")
        let server = try await RunningServer(folder.url, ["-o", output.path])
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(server.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        let head = "POST /api/uploads?name=cut.wav HTTP/1.1\r\nHost: \(server.host)\r\nContent-Length: \(8 << 20)\r\n\r\n"
        let part = Data(head.utf8) + Data(count: 3 << 20)
        _ = part.withUnsafeBytes { send(descriptor, $0.baseAddress!, $0.count, 0) }
        // The partial file exists while the body comes.
        let deadline = Date().addingTimeInterval(10)
        while Self.uploads(output).isEmpty, Date() < deadline { try? await Task.sleep(for: .microseconds(20_000)) }
        #expect(Self.uploads(output).first?.hasPrefix(".partial-") == true, "\(Self.uploads(output))")
        close(descriptor)
        let gone = Date().addingTimeInterval(10)
        while !Self.uploads(output).isEmpty, Date() < gone { try? await Task.sleep(for: .microseconds(20_000)) }
        #expect(Self.uploads(output).isEmpty, "left behind: \(Self.uploads(output))")
    }

    @Test("uploads older than --keep-uploads are removed, and then a job on one is 404")
    func expiry() async throws {
        let folder = try ServeTests.folder([:])
        let output = folder.file("out")
        let server = try await RunningServer(folder.url, ["-o", output.path, "--keep-uploads", "0.05"])
        let (status, answer) = try await Self.upload(server, try Data(contentsOf: Fixtures.url("wav-pcm_s16le-1ch-8000.wav")), name: "a.wav", asForm: false)
        #expect(status == 201)
        let name = try #require(answer["name"] as? String)
        #expect(Self.uploads(output) == [name])
        let deadline = Date().addingTimeInterval(10)
        while !Self.uploads(output).isEmpty, Date() < deadline { try? await Task.sleep(for: .microseconds(100_000)) }
        #expect(Self.uploads(output).isEmpty, "still there after 10 s: \(Self.uploads(output))")
        let (job, value) = try await server.json("POST", "/api/jobs", body: ["upload": name, "operation": "reverse", "output": "x.wav"])
        #expect(job == 404, "\(String(describing: value))")
    }

    @Test("what browsers record (live WebM with VP8/VP9 and Opus, fragmented MP4), uploaded: boomerang and reversed jobs, picture for picture",
          arguments: ["vp8-live-opus.webm", "vp9-live-opus.webm", "h264-fragmented-aac.mp4"])
    func videoJobs(_ fixture: String) async throws {
        let folder = try ServeTests.folder([:])
        let output = folder.file("out")
        let server = try await RunningServer(folder.url, ["-o", output.path])
        let input = Fixtures.video(fixture)
        let (status, answer) = try await Self.upload(server, try Data(contentsOf: input), name: fixture, asForm: true)
        #expect(status == 201 && answer["kind"] as? String == "video", "\(answer)")
        let name = try #require(answer["name"] as? String)
        let original = try await VideoOracle.pictures(of: input).map(\.md5)
        #expect(original.count > 30)
        let scratch = try TemporaryDirectory()
        for (operation, expected) in [("boomerang", original + original.dropLast().reversed()), ("reverse-video", original.reversed())] {
            let file = scratch.file("\(operation).mp4")
            try await Self.result(server, ["upload": name, "operation": operation, "output": "\(operation).mp4", "crf": 0]).write(to: file)
            let made = try await VideoOracle.pictures(of: file).map(\.md5)
            #expect(made == expected, "\(operation): \(made.count) pictures, \(expected.count) expected, first difference at \(zip(made, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
        }
        let (refused, value) = try await server.json("POST", "/api/jobs", body: ["upload": name, "operation": "boomerang", "output": "b.wav"])
        #expect(refused == 400, "a video job into .wav: \(String(describing: value))")
        let (crf, _) = try await server.json("POST", "/api/jobs", body: ["upload": name, "operation": "boomerang", "output": "c.mp4", "crf": 52])
        #expect(crf == 400)
    }

    @Test("URL jobs: only hosts and ports --allow-url-hosts names; the result equals the command's on the local file; a 404 fails the job")
    func urlJobs() async throws {
        let media = try ServeTests.folder(["in.flac": "flac-s16-2ch-44100.flac"])
        let http = try await FixtureHTTPServer(serving: media.url)
        let folder = try ServeTests.folder([:])
        let closed = try await RunningServer(folder.url)
        let (refused, value) = try await closed.json("POST", "/api/jobs", body: ["url": http.url("range", "in.flac"), "operation": "reverse", "output": "r.flac"])
        #expect(refused == 403, "\(String(describing: value))")

        let output = folder.file("out")
        let server = try await RunningServer(folder.url, ["-o", output.path, "--allow-url-hosts", "127.0.0.1:\(http.port)"])
        let reversed = try await Self.result(server, ["url": http.url("range", "in.flac"), "operation": "reverse", "output": "r.flac"])
        let expected = try await ServeJobTests.commandOutput(["convert", Fixtures.url("flac-s16-2ch-44100.flac").path, "OUT", "--reverse"], named: "r.flac")
        #expect(reversed == expected)
        for (address, status, phrase) in [("http://localhost:\(http.port)/range/in.flac", 403, "localhost is not a host"),
                                          ("file:///etc/passwd", 400, "url: an http:"), ("concat:/etc/passwd", 400, "url: an http:")] {
            let answer = try await server.request("POST", "/api/jobs", headers: [("Content-Type", "application/json")],
                                            body: try JSONSerialization.data(withJSONObject: ["url": address, "operation": "reverse", "output": "u.wav"]))
            #expect(answer.status == status && answer.text.contains(phrase), "\(address): \(answer.status) \(answer.text)")
        }
        // Read inside the job: accepted, then failed, saying only that it could not be read.
        let id = try await ServeJobTests.start(server, ["url": http.url("missing", "in.flac"), "operation": "reverse", "output": "u.wav"])
        let events = try await ServeJobTests.events(server, id)
        #expect(events.last?.0 == "failed" && "\(events.last?.1["error"] ?? "")".contains("could not be read as audio"), "\(events)")
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("u.wav").path))
    }
}
