import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 29: `reverse-audio serve` against the live server on port 0, every answer checked
/// against the ffmpeg CLI or the tool's own commands.
@Suite("serve: the API on a live server", .runsProcesses)
struct ServeTests {
    /// A served folder: `name` copies of fixtures (subfolders made as needed).
    static func folder(_ files: [String: String]) throws -> TemporaryDirectory { try .holding(files) }

    static func int16s(_ data: Data) -> [Int16] { FFmpegOracle.int16Array(data) }

    @Test("the list: every audio file by its name in the folder, with the length every command gives; the output folder is not listed")
    func listing() async throws {
        let folder = try Self.folder(["a.mp3": "mp3-cbr64-xing-1ch-22050.mp3", "sub/b c.flac": "flac-s16-2ch-44100.flac",
                                      "Reversed/old.wav": "wav-pcm_s16le-1ch-8000.wav", "notes.txt": "bad-empty.wav"])
        let server = try await RunningServer(folder.url)
        let (status, value) = try await server.json("GET", "/api/files")
        #expect(status == 200)
        let rows = try #require(value as? [[String: Any]], "not a list: \(String(describing: value))")
        #expect(rows.map { $0["name"] as? String } == ["a.mp3", "sub/b c.flac"])
        for row in rows {
            let name = try #require(row["name"] as? String)
            let samples = try await FFmpegOracle.samples(of: folder.file(name))
            let channels = try #require(row["channels"] as? Int)
            #expect(row["frames"] as? Int == samples.count / channels, "\(name)")
            let rate = try #require(row["sampleRate"] as? Int)
            #expect(abs((row["duration"] as? Double ?? 0) - Double(samples.count / channels) / Double(rate)) < 1e-9)
            #expect(row["format"] as? String == (name as NSString).pathExtension)
        }
    }

    @Test("forwards and backwards, the virtual WAV is ffmpeg's decode and areverse, sample for sample",
          arguments: ["mp3-cbr128-xing-2ch-44100.mp3", "m4a-aac-2ch-44100.m4a", "adts-aac-2ch-44100.aac", "flac-s16-2ch-44100.flac",
                      "wav-pcm_s24le-2ch-48000.wav", "wav-pcm_s16le-1ch-8000.wav", "mp3-cbr32-xing-1ch-8000.mp3"])
    func virtualWAV(_ fixture: String) async throws {
        let name = "in." + (fixture as NSString).pathExtension
        let folder = try Self.folder([name: fixture])
        let server = try await RunningServer(folder.url)
        let (_, list) = try await server.json("GET", "/api/files")
        let row = try #require((list as? [[String: Any]])?.first)
        for reversed in [false, true] {
            let answer = try await server.request("GET", "/api/files/\(name)/audio" + (reversed ? "?direction=reverse" : ""))
            #expect(answer.status == 200, "\(fixture): \(answer.text.prefix(200))")
            #expect(answer.headers["accept-ranges"] == "bytes")
            #expect(answer.headers["content-type"] == "audio/wav")
            #expect(answer.headers["content-length"] == "\(answer.body.count)")
            let expected = await reversed ? try FFmpegOracle.reversedSamples(of: folder.file(name)) : try FFmpegOracle.samples(of: folder.file(name))
            let samples = Self.int16s(answer.body.dropFirst(44))
            #expect(samples.count == expected.count, "\(fixture) reversed \(reversed): \(samples.count) samples, ffmpeg \(expected.count)")
            #expect(samples == expected, "\(fixture) reversed \(reversed): first difference at \(zip(samples, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
            // The header says what the data is.
            let header = answer.body.prefix(44)
            #expect(String(decoding: header.prefix(4), as: UTF8.self) == "RIFF")
            let channels = Int(header[22]) | Int(header[23]) << 8
            let rate = Int(header[24]) | Int(header[25]) << 8 | Int(header[26]) << 16 | Int(header[27]) << 24
            #expect(channels == row["channels"] as? Int && rate == row["sampleRate"] as? Int)
        }
    }

    @Test("100 random ranges of a reversed stream are the same bytes of the whole; suffix, open and unsatisfiable ranges; HEAD")
    func ranges() async throws {
        let folder = try Self.folder(["song.mp3": "mp3-vbrq4-xing-2ch-44100.mp3"])
        let server = try await RunningServer(folder.url)
        let path = "/api/files/song.mp3/audio?direction=reverse"
        let whole = try await server.request("GET", path).body
        let size = whole.count
        var random = SplitMix(seed: 29)
        for _ in 0..<100 {
            let first = Int(random.next() % UInt64(size))
            let last = min(size - 1, first + Int(random.next() % 300_000))
            let answer = try await server.request("GET", path, headers: [("Range", "bytes=\(first)-\(last)")])
            #expect(answer.status == 206)
            #expect(answer.headers["content-range"] == "bytes \(first)-\(last)/\(size)")
            #expect(answer.body == whole[first...last], "bytes \(first)-\(last) of \(size)")
        }
        let suffix = try await server.request("GET", path, headers: [("Range", "bytes=-1000")])
        #expect(suffix.status == 206 && suffix.body == whole.suffix(1000))
        let open = try await server.request("GET", path, headers: [("Range", "bytes=0-")])
        #expect(open.status == 206 && open.body == whole && open.headers["content-range"] == "bytes 0-\(size - 1)/\(size)")
        let past = try await server.request("GET", path, headers: [("Range", "bytes=\(size)-")])
        #expect(past.status == 416 && past.headers["content-range"] == "bytes */\(size)" && past.body.isEmpty)
        let head = try await server.request("HEAD", path)
        #expect(head.status == 200 && head.headers["content-length"] == "\(size)" && head.body.isEmpty)
    }

    @Test("names that resolve outside the folder or to no regular file are refused; nothing of them leaks")
    func traversal() async throws {
        let outside = try TemporaryDirectory()
        try FileManager.default.copyItem(at: Fixtures.url("wav-pcm_s16le-1ch-8000.wav"), to: outside.file("secret.wav"))
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        try FileManager.default.createSymbolicLink(atPath: folder.file("out.wav").path, withDestinationPath: outside.file("secret.wav").path)
        try FileManager.default.createSymbolicLink(atPath: folder.file("inside.wav").path, withDestinationPath: "in.wav")
        #expect(mkfifo(folder.file("pipe.wav").path, 0o600) == 0)
        let server = try await RunningServer(folder.url)
        let relativeOut = "../" + outside.url.lastPathComponent + "/secret.wav"
        let refused: [(String, Int)] = [
            // Outside the folder is answered as missing (404): nothing tells what exists there.
            (pathSegment(relativeOut), 404), (pathSegment(outside.file("secret.wav").path), 404),
            ("..%2F..%2F..%2Fetc%2Fpasswd", 404), ("%2E%2E", 404), ("out.wav", 404), ("pipe.wav", 403), ("missing.wav", 404),
        ]
        for (segment, status) in refused {
            let started = Date()
            let answer = try await server.request("GET", "/api/files/\(segment)/audio")
            #expect(answer.status == status, "\(segment): \(answer.status) \(answer.text)")
            #expect(Date().timeIntervalSince(started) < 5, "\(segment) took long (a FIFO opened?)")
            #expect(!answer.text.contains(outside.url.path) && !answer.text.contains(folder.url.path), "\(answer.text)")
            #expect(answer.body.count < 500, "\(segment): \(answer.body.count) bytes")
        }
        await #expect(try server.request("GET", "/api/files/inside.wav/audio").status == 200, "a link that stays inside works")
        let (_, list) = try await server.json("GET", "/api/files")
        let names = ((list as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
        #expect(!names.contains("out.wav") && !names.contains("pipe.wav"), "\(names)")
        await #expect(try server.request("GET", "/nothing/here").status == 404)
        await #expect(try server.request("GET", "/api/files/in.wav/audio?direction=sideways").status == 400)
    }

    @Test("a foreign Host (DNS rebinding) gets 421, a foreign Origin 403; the server's own names pass")
    func hostAndOrigin() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let server = try await RunningServer(folder.url)
        await #expect(try server.request("GET", "/api/files", host: "attacker.example:\(server.port)").status == 421)
        await #expect(try server.request("GET", "/api/files", host: "127.0.0.1:1").status == 421)
        await #expect(try server.request("GET", "/api/files", host: "localhost:\(server.port)").status == 200)
        await #expect(try server.request("GET", "/api/files", headers: [("Origin", "http://attacker.example")]).status == 403)
        await #expect(try server.request("POST", "/api/jobs", headers: [("Origin", "http://attacker.example"), ("Content-Type", "application/json")],
                                   body: Data(#"{"file":"in.wav","operation":"reverse","output":"x.wav"}"#.utf8)).status == 403)
        #expect(!FileManager.default.fileExists(atPath: folder.file("Reversed/x.wav").path))
        await #expect(try server.request("GET", "/api/files", headers: [("Origin", "http://\(server.host)")]).status == 200)
    }

    @Test("a token: refused without it, taken from the header, the URL (the page redirects, setting a cookie named for the port) or that cookie")
    func token() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let secret = "s3cret-0123456789abc"
        let server = try await RunningServer(folder.url, ["--token", secret])
        #expect(server.token == secret)
        await #expect(try server.request("GET", "/api/files").status == 403)
        await #expect(try server.request("GET", "/api/files", headers: [("X-ReverseAudio-Token", "wrong")]).status == 403)
        await #expect(try server.request("GET", "/api/files", headers: [("X-ReverseAudio-Token", secret)]).status == 200)
        let viaURL = try await server.request("GET", "/?token=\(secret)")
        // The token leaves the address bar: the page without it, the cookie set on the way.
        #expect(viaURL.status == 303 && viaURL.headers["location"] == "/", "\(viaURL.status) \(viaURL.headers)")
        let cookie = try #require(viaURL.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        #expect(cookie == "reverse_audio_token_\(server.port)=\(secret)")
        await #expect(try server.request("GET", "/api/files", headers: [("Cookie", cookie)]).status == 200)
        await #expect(try server.request("GET", "/", headers: [("Cookie", cookie)]).status == 200)
        // Another port's cookie of the old name is not this server's.
        await #expect(try server.request("GET", "/api/files", headers: [("Cookie", "reverse_audio_token=\(secret)")]).status == 403)
    }

    @Test("a body too large is refused with 413; a malformed job with 400")
    func limits() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let server = try await RunningServer(folder.url)
        let big = Data(repeating: UInt8(ascii: " "), count: 200_000)
        await #expect(try server.request("POST", "/api/jobs", headers: [("Content-Type", "application/json")], body: big).status == 413)
        await #expect(try server.json("POST", "/api/jobs", body: ["file": "in.wav"]).status == 400)
        await #expect(try server.json("POST", "/api/jobs", body: ["file": "in.wav", "operation": "explode", "output": "x.wav"]).status == 400)
        await #expect(try server.json("POST", "/api/jobs", body: ["file": "in.wav", "operation": "reverse", "output": "../x.wav"]).status == 400)
        await #expect(try server.json("POST", "/api/jobs", body: ["file": "in.wav", "operation": "reverse", "output": "x.xyz"]).status == 400)
        await #expect(try server.json("POST", "/api/jobs", body: ["file": "gone.wav", "operation": "reverse", "output": "x.wav"]).status == 404)
        await #expect(try server.json("POST", "/api/jobs", body: ["file": "in.wav", "operation": "trim", "output": "x.wav"]).status == 400)
        // Past the end (the file is 1 s): refused before any job starts, with the range's own message.
        let past = try await server.json("POST", "/api/jobs", body: ["file": "in.wav", "operation": "trim", "output": "x.wav", "start": 0.5, "end": 3])
        #expect(past.status == 400 && "\(String(describing: past.value))".contains("after the end"), "\(String(describing: past.value))")
        await #expect(try server.json("GET", "/api/jobs/nope").status == 404)
        #expect(!FileManager.default.fileExists(atPath: folder.file("Reversed").path), "a refused job made the output folder")
    }

    /// `reverse-audio` does not link the web server: `serve` runs `reverse-audio-serve`, found
    /// beside it (a copy of the tool alone says so in one line; beside its server it serves).
    @Test("serve runs reverse-audio-serve beside the tool, which alone cannot serve")
    func serveRunsTheServerExecutable() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let alone = try TemporaryDirectory()
        let tool = alone.file("reverse-audio")
        try FileManager.default.copyItem(at: BuiltProducts.reverseAudio, to: tool)
        let refused = try await ProcessRunner.run(tool.path, ["serve", folder.url.path, "--port", "0"])
        #expect(refused.status == 1, "\(refused.status): \(refused.errorText)")
        #expect(refused.errorText == "reverse-audio: error: \(alone.file("reverse-audio-serve").path) is missing: serve runs it "
                + "(install it beside reverse-audio; swift build --product reverse-audio-serve builds it)\n", "\(refused.errorText)")
        // The arguments reach it as given: a bad one is refused there in the tool's words.
        try FileManager.default.copyItem(at: BuiltProducts.toolDirectory.appendingPathComponent("reverse-audio-serve"),
                                         to: alone.file("reverse-audio-serve"))
        let server = try await ProcessRunner.run(tool.path, ["serve", folder.url.path, "--token", "short"])
        #expect(server.status == 64, "\(server.status): \(server.errorText)")
        #expect(server.errorText.hasPrefix("reverse-audio: error: "), "\(server.errorText)")
        // The web server's module names are in its type metadata, which stripping keeps (a size
        // comparison would not hold for a build that links the Swift runtime into both).
        let serverModule = Data("Hummingbird".utf8)
        let holdsServer = try [BuiltProducts.reverseAudio, alone.file("reverse-audio-serve")].map {
            try Data(contentsOf: $0, options: .alwaysMapped).range(of: serverModule) != nil
        }
        #expect(holdsServer == [false, true], "reverse-audio, reverse-audio-serve name Hummingbird: \(holdsServer)")
    }

    @Test("a port in use: one line naming the address, exit 1 (not a silent exit 0)")
    func portInUse() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let server = try await RunningServer(folder.url)
        let result = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, ["serve", folder.url.path, "--port", "\(server.port)"])
        #expect(result.status == 1, "\(result.status): \(result.errorText)")
        #expect(result.errorText == "reverse-audio: error: cannot listen on 127.0.0.1:\(server.port): Address already in use\n", "\(result.errorText)")
        await #expect(try server.request("GET", "/api/files").status == 200, "the first server still answers")
    }
}
