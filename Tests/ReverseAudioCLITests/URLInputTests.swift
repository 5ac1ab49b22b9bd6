import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `Tests/HTTPServer/fixture_server.py` serving a folder on loopback: the modes its paths
/// choose (ranges, none, redirects, stalls, cuts) and the bytes it sent.
final class FixtureHTTPServer: @unchecked Sendable {
    // @unchecked: the process is only read and terminated.
    let process = Process()
    let port: Int

    private let portFolder: TemporaryDirectory

    init(serving folder: URL) async throws {
        portFolder = try TemporaryDirectory()
        let portFile = portFolder.file("port")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Fixtures.packageRoot.appendingPathComponent("Tests/HTTPServer/fixture_server.py").path,
                             folder.path, portFile.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        var port: Int?
        while port == nil, Date() < deadline, process.isRunning {
            port = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0) }
            if port == nil { try? await Task.sleep(for: .milliseconds(20)) }
        }
        guard let port else {
            kill(process.processIdentifier, SIGKILL)
            throw FFmpegOracle.Failure(description: "the fixture server did not start")
        }
        self.port = port
    }

    /// `http://127.0.0.1:PORT/MODE/NAME`.
    func url(_ mode: String, _ name: String) -> String { "http://127.0.0.1:\(port)/\(mode)/\(name)" }

    /// The bytes the server sent since the last call (and since it started).
    func bytesSent() async throws -> Int {
        let script = "import json,sys,urllib.request;print(json.load(urllib.request.urlopen(sys.argv[1]))['bytes'])"
        let result = try await ProcessRunner.run("python3", ["-c", script, "http://127.0.0.1:\(port)/stats?reset=1"])
        guard result.status == 0, let bytes = Int(result.outputText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw FFmpegOracle.Failure(description: "the fixture server's statistics: \(result.errorText)")
        }
        return bytes
    }

    deinit {
        // SIGKILL: a test process may ignore SIGTERM, and ignored signals pass to children.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()  // deinit cannot await; a killed process is reaped at once
    }
}

/// Issue 30, item 1: URL inputs. Every command that reads takes an `http://` or `https://` URL
/// through FFmpeg's own protocols (ranges for seeking) and writes what it writes from the same
/// file on disk, byte for byte; a server that cannot seek, a missing file, a redirect loop, a
/// body cut short and a stall are clear errors that leave nothing; other schemes are refused.
@Suite("URL inputs", .runsProcesses)
struct URLInputTests {
    static let inputs = ["mp3-cbr128-xing-2ch-44100.mp3", "m4a-aac-2ch-44100.m4a", "flac-s16-2ch-44100.flac",
                         "wav-pcm_s24le-2ch-48000.wav", "adts-aac-2ch-44100.aac"]

    /// The tool's output for `arguments` (IN replaced by `input`, OUT by a file named `name`),
    /// its exit status and standard error.
    static func output(_ arguments: [String], input: String, named name: String) async throws -> (Data?, Int32, String) {
        let folder = try TemporaryDirectory()
        let output = folder.file(name)
        let result = try await ProcessRunner.run(BuiltProducts.reverseAudio.path,
                                           arguments.map { $0 == "IN" ? input : $0 == "OUT" ? output.path : $0 } + ["-q"])
        return (try? Data(contentsOf: output), result.status, result.errorText)
    }

    @Test("info, convert (forwards and reversed), trim, waveform and play read a URL as they read the file", arguments: inputs)
    func sameAsTheFile(_ fixture: String) async throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.copyItem(at: Fixtures.url(fixture), to: folder.file(fixture))
        let server = try await FixtureHTTPServer(serving: folder.url)
        let remote = server.url("range", fixture)
        let local = folder.file(fixture).path
        let ext = (fixture as NSString).pathExtension
        let commands: [([String], String)] = [
            (["convert", "IN", "OUT"], "f.wav"),
            (["convert", "IN", "OUT", "--reverse"], "r.flac"),
            (["trim", "IN", "OUT", "--start", "0.05", "--end", "0.25"], "t.\(ext)"),
            (["waveform", "IN", "OUT", "--samples-per-pixel", "256"], "w.json"),
            (["play", "IN", "--reverse", "--to-file", "OUT"], "p.wav"),
        ]
        for (arguments, name) in commands {
            let (fromURL, status, errors) = try await Self.output(arguments, input: remote, named: name)
            let (fromFile, _, _) = try await Self.output(arguments, input: local, named: name)
            #expect(status == 0, "\(arguments.first!) on \(fixture): \(errors)")
            #expect(fromURL != nil && fromURL == fromFile, "\(arguments.first!) on \(fixture): the URL's output differs from the file's")
        }
        let info = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, ["info", remote, "--json"])
        let localInfo = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, ["info", local, "--json"])
        let frames = { (text: String) in
            ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any])?["frames"] as? Int
        }
        #expect(info.status == 0 && frames(info.outputText) != nil && frames(info.outputText) == frames(localInfo.outputText), "\(info.errorText)")
        #expect(info.outputText.contains("\"path\":\"http:\\/\\/127.0.0.1") || info.outputText.contains("\"path\":\"http://127.0.0.1"),
                "info names the URL: \(info.outputText)")
        // Played backwards from the URL: areverse's samples.
        let played = try TemporaryDirectory()
        let rendered = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, ["play", remote, "--reverse", "--to-file", played.file("p.wav").path])
        #expect(rendered.status == 0, "\(rendered.errorText)")
        #expect(try await FFmpegOracle.samples(of: played.file("p.wav")) == FFmpegOracle.reversedSamples(of: folder.file(fixture)), "\(fixture)")
    }

    @Test("the last 5 s of a 300-s VBR MP3 reversed from a URL, and 3 s from its last third, equal the file's output; the end fetches under half the file")
    func mp3Tail() async throws {
        let folder = try TemporaryDirectory()
        let file = try await MP3Classes.make(MP3Classes.main[1], seconds: 300, in: folder.url)   // lame -V5
        let server = try await FixtureHTTPServer(serving: folder.url)
        let remote = server.url("range", file.lastPathComponent)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        for (range, share) in [(["--start", "295"], 0.5), (["--start", "200", "--end", "203"], 1.0)] {
            _ = try await server.bytesSent()
            let (fromURL, status, errors) = try await Self.output(["convert", "IN", "OUT", "--reverse"] + range, input: remote, named: "r.wav")
            let sent = try await server.bytesSent()
            let (fromFile, _, _) = try await Self.output(["convert", "IN", "OUT", "--reverse"] + range, input: file.path, named: "r.wav")
            #expect(status == 0, "\(errors)")
            #expect(fromURL != nil && fromURL == fromFile, "\(range): the URL's output differs from the file's")
            // Reading every packet header first (as a file is read) fetches it all, and more.
            #expect(Double(sent) < share * Double(size), "\(range): fetched \(sent) of \(size) bytes")
        }
    }

    @Test("reverse (the batch) takes URLs, named and in --files-from: each output named from the URL's last segment, equal to the file's")
    func batch() async throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.copyItem(at: Fixtures.url("flac-s16-2ch-44100.flac"), to: folder.file("My Song.flac"))
        try FileManager.default.copyItem(at: Fixtures.url("mp3-cbr128-xing-2ch-44100.mp3"), to: folder.file("b.mp3"))
        let server = try await FixtureHTTPServer(serving: folder.url)
        let out = try TemporaryDirectory()
        let list = out.file("list.txt")
        try (server.url("range", "b.mp3") + "\n").write(to: list, atomically: true, encoding: .utf8)
        let result = try await ProcessRunner.run(BuiltProducts.reverseAudio.path,
                                           ["reverse", server.url("range", "My%20Song.flac"), "--files-from", list.path, "-o", out.file("o").path, "-q"])
        #expect(result.status == 0, "\(result.errorText)")
        let local = try TemporaryDirectory()
        let made = try await ProcessRunner.run(BuiltProducts.reverseAudio.path,
                                         ["reverse", folder.file("My Song.flac").path, folder.file("b.mp3").path, "-o", local.url.path, "-q"])
        #expect(made.status == 0, "\(made.errorText)")
        for name in ["My Song-REVERSED.wav", "b-REVERSED.wav"] {
            let fromURL = try? Data(contentsOf: out.file("o/\(name)"))
            #expect(fromURL != nil && fromURL == (try? Data(contentsOf: local.file(name))), "\(name): \(out.contents)")
        }
        let refused = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, ["reverse", "rtmp://127.0.0.1/live", "-o", out.file("p").path])
        #expect(refused.status == 64 && refused.errorText.contains("http:// and https://"), "\(refused.errorText)")
    }

    @Test("video reads a URL: the reversed movie's frames are those made from the file")
    func video() async throws {
        let folder = try TemporaryDirectory()
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=2",
                                                    "-f", "lavfi", "-i", "sine=f=440:d=2", "-c:v", "libx264", "-g", "10", "-c:a", "aac",
                                                    "-shortest", folder.file("v.mp4").path])
        try #require(made.status == 0, "\(made.errorText)")
        let server = try await FixtureHTTPServer(serving: folder.url)
        var frames: [String] = []
        for input in [server.url("range", "v.mp4"), folder.file("v.mp4").path] {
            let out = try TemporaryDirectory()
            let result = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, ["video", input, out.file("r.mp4").path, "--crf", "0", "-q"])
            #expect(result.status == 0, "\(input): \(result.errorText)")
            let md5 = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", out.file("r.mp4").path, "-map", "0:v", "-f", "framemd5", "-"])
            frames.append(md5.outputText.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n"))
        }
        #expect(frames[0] == frames[1] && !frames[0].isEmpty)
    }

    @Test("a redirect is followed; a server without ranges, a missing file, a redirect loop, a body cut short and a size stated 1 MiB too long are one-line errors that leave nothing",
          arguments: [("redirect", 0, ""), ("norange", 1, "does not answer byte ranges"), ("missing", 1, "404"),
                      ("loop", 1, "Input/output error"), ("cut", 1, "Input/output error"), ("long", 1, "Input/output error")])
    func serverFaults(_ mode: String, _ status: Int32, _ message: String) async throws {
        let folder = try TemporaryDirectory()
        let fixture = "flac-s16-2ch-44100.flac"
        try FileManager.default.copyItem(at: Fixtures.url(fixture), to: folder.file(fixture))
        let server = try await FixtureHTTPServer(serving: folder.url)
        let out = try TemporaryDirectory()
        let result = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, ["convert", server.url(mode, fixture), out.file("x.wav").path, "--reverse"])
        #expect(result.status == status, "\(mode): exit \(result.status): \(result.errorText)")
        if status != 0 {
            let lines = result.errorText.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("http://127.0.0.1:\(server.port)/\(mode)/"), "\(mode): \(result.errorText)")
            #expect(result.errorText.contains(message), "\(mode): \(result.errorText)")
            #expect(out.contents.isEmpty, "\(mode): left \(out.contents)")
        }
    }

    @Test("a server that stalls: SIGINT ends the command within a second, leaving nothing")
    func stall() async throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.copyItem(at: Fixtures.url("flac-s16-2ch-44100.flac"), to: folder.file("a.flac"))
        let server = try await FixtureHTTPServer(serving: folder.url)
        let out = try TemporaryDirectory()
        let tool = try RunningTool(["convert", server.url("slow", "a.flac"), out.file("x.wav").path])
        try await Task.sleep(for: .milliseconds(600))
        try #require(tool.process.isRunning, "it ended before the signal: \(tool.errorText)")
        let seconds = await tool.stop(with: SIGINT)
        #expect(seconds != nil && seconds! < 1, "\(String(describing: seconds))")
        #expect(tool.process.terminationStatus == 130, "\(tool.errorText)")
        #expect(out.contents.isEmpty)
    }

    @Test("schemes other than http and https are refused with exit 64; file: names a file; concat: is a file name",
          arguments: ["ftp://127.0.0.1/a.mp3", "rtmp://x/y", "data://x", "concat://a.mp3|b.mp3"])
    func otherSchemes(_ input: String) async throws {
        let out = try TemporaryDirectory()
        for arguments in [["convert", input, out.file("x.wav").path], ["info", input], ["trim", input, out.file("t.wav").path, "--start", "0.1"]] {
            let result = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, arguments)
            #expect(result.status == 64, "\(arguments): exit \(result.status): \(result.errorText)")
            #expect(result.errorText.contains("http:// and https://"), "\(result.errorText)")
        }
        let fileURL = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, ["info", "file://" + Fixtures.url("flac-s16-2ch-44100.flac").path])
        #expect(fileURL.status == 0, "\(fileURL.errorText)")
        let concat = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, ["info", "concat:a.mp3|b.mp3"])
        #expect(concat.status == 1 && concat.errorText.contains("no such file"), "\(concat.errorText)")
    }
}
