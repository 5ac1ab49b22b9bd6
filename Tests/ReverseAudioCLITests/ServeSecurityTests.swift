import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `serve` against what an attacker on the same machine, or a web page in the user's browser,
/// would try (issue 43): each test was written to fail on the server before it.
@Suite("serve under attack", .runsProcesses)
struct ServeSecurityTests {
    /// An HLS playlist whose one entry is `target`: 115 bytes that FFmpeg's probe takes for HLS.
    static func playlist(naming target: String) -> Data {
        Data("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:1.0,\n\(target)\n#EXT-X-ENDLIST\n".utf8)
    }

    @Test("a playlist is never media: an upload is refused (415), a folder file is listed as unreadable, not served, a job on it refused")
    func playlistsAreNotMedia() async throws {
        let outside = try ServeTests.folder(["secret.mp3": "mp3-cbr64-xing-1ch-22050.mp3"])
        let folder = try ServeTests.folder(["real.wav": "wav-pcm_s16le-1ch-8000.wav"])
        try Self.playlist(naming: outside.file("secret.mp3").path).write(to: folder.file("innocent.mp3"))
        try Self.playlist(naming: "../" + outside.url.lastPathComponent + "/secret.mp3").write(to: folder.file("relative.mp3"))
        try Data("ffconcat version 1.0\nfile '\(outside.file("secret.mp3").path)'\n".utf8).write(to: folder.file("concat.mp3"))
        let output = folder.file("out")
        let server = try await RunningServer(folder.url, ["-o", output.path])

        let upload = try await server.request("POST", "/api/uploads?name=song.mp3", headers: [("Content-Type", "application/octet-stream")],
                                        body: Self.playlist(naming: outside.file("secret.mp3").path))
        #expect(upload.status == 415, "\(upload.status) \(upload.text)")
        #expect(upload.text.contains("playlist"), "\(upload.text)")

        // Listed as unreadable, with the reason, beside the one real file.
        let rows = try await #require(try server.json("GET", "/api/files").value as? [[String: Any]])
        #expect(rows.filter { $0["error"] == nil }.compactMap { $0["name"] as? String } == ["real.wav"], "\(rows)")
        for row in rows where row["error"] != nil {
            #expect((row["error"] as? String)?.contains("playlist") == true && row["frames"] == nil, "\(row)")
        }
        for name in ["innocent.mp3", "relative.mp3", "concat.mp3"] {
            let audio = try await server.request("GET", "/api/files/\(name)/audio")
            #expect(audio.status == 400 && audio.text.contains("playlist"), "\(name): \(audio.status) \(audio.text)")
            let job = try await server.json("POST", "/api/jobs", body: ["file": name, "operation": "convert", "output": "\(name).wav"])
            #expect(job.status == 400, "\(name): \(String(describing: job.value))")
        }
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("innocent.mp3.wav").path))
    }

    @Test("the command line reads a playlist only when asked (--allow-playlists), and never one a folder walk finds")
    func playlistsOnTheCommandLine() async throws {
        let outside = try ServeTests.folder(["secret.mp3": "mp3-cbr64-xing-1ch-22050.mp3"])
        let folder = try TemporaryDirectory()
        try Self.playlist(naming: outside.file("secret.mp3").path).write(to: folder.file("list.mp3"))
        try Data("ffconcat version 1.0\nfile '\(outside.file("secret.mp3").path)'\n".utf8).write(to: folder.file("list.ffconcat"))
        let tool = BuiltProducts.reverseAudio.path
        for name in ["list.mp3", "list.ffconcat"] {
            let refused = try await ProcessRunner.run(tool, ["convert", folder.file(name).path, folder.file("\(name).wav").path])
            #expect(refused.status == 1 && refused.errorText.contains("playlist"), "\(name): \(refused.status) \(refused.errorText)")
            #expect(refused.errorText.split(separator: "\n").count == 1, "\(refused.errorText)")
            let allowed = try await ProcessRunner.run(tool, ["convert", folder.file(name).path, folder.file("\(name).wav").path, "--allow-playlists", "-q"])
            #expect(allowed.status == 0, "\(name): \(allowed.errorText)")
            // The oracle: ffmpeg's decode of the playlist (HLS does not trim the entry's LAME
            // delay), and of the entry for ffconcat (whose oracle needs -safe 0 for its path).
            let expected = try await FFmpegOracle.samples(of: name.hasSuffix(".mp3") ? folder.file(name) : outside.file("secret.mp3"))
            #expect(try await FFmpegOracle.samples(of: folder.file("\(name).wav")) == expected, "\(name): not ffmpeg's decode")
        }
        // A folder walk never opens a playlist, asked or not.
        let batch = try await ProcessRunner.run(tool, ["reverse", folder.url.path, "-o", folder.file("walked").path, "--allow-playlists", "--all-formats"])
        #expect(!((try? FileManager.default.contentsOfDirectory(atPath: folder.file("walked").path)) ?? []).contains { $0.hasSuffix(".mp3") },
                "\(batch.errorText)")
        let serve = try await ProcessRunner.run(tool, ["serve", folder.url.path, "--port", "0", "--allow-playlists"])
        #expect(serve.status == 64 && serve.errorText.contains("never opens playlists"), "\(serve.status) \(serve.errorText)")
    }

    @Test("a name is opened once: swapping a folder for a link out of it, again and again, never serves the outside file")
    func swapRace() async throws {
        let folder = try ServeTests.folder(["race/x.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let outside = try ServeTests.folder(["x.wav": "wav-pcm_s16le-2ch-44100.wav"])
        let server = try await RunningServer(folder.url)
        let inside = try await server.request("GET", "/api/files/race%2Fx.wav/audio")
        #expect(inside.status == 200)
        let race = folder.file("race").path
        let parked = folder.file("parked").path
        let stop = StopFlag()
        let swapper = Thread {
            // Bounded: at most 20,000 swaps, or until the requests are done.
            for _ in 0..<20_000 where !stop.isSet {
                rename(race, parked)
                symlink(outside.url.path, race)
                unlink(race)
                rename(parked, race)
            }
        }
        swapper.start()
        var leaked = 0
        var answered = 0
        for _ in 0..<600 {
            let answer = try await server.request("GET", "/api/files/race%2Fx.wav/audio")
            guard answer.status == 200 else { continue }
            answered += 1
            if answer.body != inside.body { leaked += 1 }
        }
        stop.set()
        while swapper.isExecuting { try? await Task.sleep(for: .microseconds(1000)) }
        if FileManager.default.fileExists(atPath: parked) { unlink(race); rename(parked, race) }
        #expect(leaked == 0, "\(leaked) of \(answered) answers were not the folder's file")
        #expect(answered > 0)
    }

    @Test("a job opens its input when accepted: a swap while it waits for a slot does not change what it reads")
    func jobKeepsItsInput() async throws {
        let folder = try ServeTests.folder(["race/x.wav": "wav-pcm_s16le-1ch-8000.wav"])
        try await FileManager.default.copyItem(at: try LongInputs.mp3FourMinutes(), to: folder.file("long.mp3"))
        let outside = try ServeTests.folder(["x.wav": "wav-pcm_s16le-2ch-44100.wav"])
        let server = try await RunningServer(folder.url)
        // Both slots busy: the job on race/x.wav waits.
        let busy = try await ["a.m4a", "b.m4a"].asyncMap { try await ServeJobTests.start(server, ["file": "long.mp3", "operation": "reverse", "output": $0]) }
        let id = try await ServeJobTests.start(server, ["file": "race/x.wav", "operation": "reverse", "output": "x.wav"])
        #expect(rename(folder.file("race").path, folder.file("parked").path) == 0)
        #expect(symlink(outside.url.path, folder.file("race").path) == 0)
        for other in busy { await #expect(try server.request("DELETE", "/api/jobs/\(other)").status == 200) }
        let events = try await ServeJobTests.events(server, id)
        #expect(events.last?.0 == "done", "\(events.last.map { "\($0.1)" } ?? "no events")")
        let expected = try await ServeJobTests.commandOutput(["convert", Fixtures.url("wav-pcm_s16le-1ch-8000.wav").path, "OUT", "--reverse"], named: "x.wav")
        await #expect(try server.request("GET", "/api/jobs/\(id)/result").body == expected, "the job read another file than the one accepted")
    }

    @Test("outside the folder, existing or not, is one answer (404); the output folder's files are never folder files")
    func noExistenceOracle() async throws {
        let folder = try ServeTests.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav", "Reversed/done.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let outside = try ServeTests.folder(["there.wav": "wav-pcm_s16le-1ch-8000.wav"])
        try FileManager.default.createSymbolicLink(atPath: folder.file("out-link.wav").path, withDestinationPath: outside.file("there.wav").path)
        let server = try await RunningServer(folder.url)
        let up = "..%2F" + outside.url.lastPathComponent
        let existing = try await server.request("GET", "/api/files/\(up)%2Fthere.wav/audio")
        let missing = try await server.request("GET", "/api/files/\(up)%2Fnowhere.wav/audio")
        let linked = try await server.request("GET", "/api/files/out-link.wav/audio")
        #expect(existing.status == 404 && missing.status == 404 && linked.status == 404, "\(existing.status) \(missing.status) \(linked.status)")
        #expect(existing.text.replacingOccurrences(of: "there", with: "X") == missing.text.replacingOccurrences(of: "nowhere", with: "X"),
                "\(existing.text) / \(missing.text)")
        await #expect(try server.request("GET", "/api/files/Reversed%2Fdone.wav/audio").status == 404)
        await #expect(try server.request("GET", "/api/files/in.wav/audio").status == 200)
        // The output folder may not be the folder itself.
        let same = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, ["serve", folder.url.path, "-o", folder.url.path, "--port", "0"])
        #expect(same.status == 64 && same.errorText.contains("served folder itself"), "\(same.status) \(same.errorText)")
    }

    @Test("waveforms: samples-per-pixel has a floor scaled to the length (400 naming it); a page on another site cannot start one")
    func waveformBounds() async throws {
        let folder = try TemporaryDirectory()
        // 60 s at 44.1 kHz: 2,646,000 frames, so at least 3 samples a pixel (2^20 points at most).
        let made = try await ProcessRunner.run("ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i", "sine=440:d=60:sample_rate=44100",
                                                    "-c:a", "pcm_s16le", folder.file("long.wav").path])
        #expect(made.status == 0, "\(made.errorText)")
        let server = try await RunningServer(folder.url)
        let tooFine = try await server.request("GET", "/api/files/long.wav/waveform.json?samples-per-pixel=2")
        #expect(tooFine.status == 400 && tooFine.text.contains("at least 3") && tooFine.text.contains("1048576"), "\(tooFine.status) \(tooFine.text)")
        // The finest levels a file allows, each kept: the server's memory stays bounded (a 2-spp
        // waveform of a 30-minute file took 415 MB before, four of them 1.9 GB).
        for level in 3...8 {
            await #expect(try server.request("GET", "/api/files/long.wav/waveform.json?samples-per-pixel=\(level)").status == 200)
        }
        let resident = try Self.residentMiB(of: server.process.processIdentifier)
        #expect(resident < 250, "the server holds \(resident) MiB after six fine waveforms")
        for site in ["cross-site", "same-site"] {
            let foreign = try await server.request("GET", "/api/files/long.wav/waveform.json?samples-per-pixel=256",
                                             headers: [("Sec-Fetch-Site", site), ("Sec-Fetch-Mode", "no-cors"), ("Sec-Fetch-Dest", "image")])
            #expect(foreign.status == 403, "\(site): \(foreign.status)")
        }
        await #expect(try server.request("GET", "/api/files/long.wav/waveform.json", headers: [("Sec-Fetch-Site", "same-origin")]).status == 200)
        // A link from another site to the page itself still opens it.
        await #expect(try server.request("GET", "/", headers: [("Sec-Fetch-Site", "cross-site"), ("Sec-Fetch-Mode", "navigate")]).status == 200)
    }

    /// A process's resident memory, from `/proc/PID/status`.
    static func residentMiB(of process: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }

    @Test("--allow-url-hosts is host[:port], checked on redirects and a playlist's entries; failures say the same whatever the cause")
    func urlAllowlist() async throws {
        let media = try ServeTests.folder(["in.flac": "flac-s16-2ch-44100.flac"])
        let allowed = try await FixtureHTTPServer(serving: media.url)
        let other = try await FixtureHTTPServer(serving: media.url)
        let folder = try ServeTests.folder([:])
        let server = try await RunningServer(folder.url, ["--allow-url-hosts", "127.0.0.1:\(allowed.port),127.0.0.1:1"])
        // Another port of the allowed host: refused at once.
        let port = try await server.json("POST", "/api/jobs", body: ["url": other.url("range", "in.flac"), "operation": "reverse", "output": "p.wav"])
        #expect(port.status == 403, "\(String(describing: port.value))")
        var texts: [String] = []
        for (address, output) in [(allowed.url("away/127.0.0.1:\(other.port)", "in.flac"), "redirect.wav"),
                                  (allowed.url("playlist/127.0.0.1:\(other.port)", "in.flac"), "playlist.wav"),
                                  (allowed.url("playlist/127.0.0.1:\(allowed.port)", "in.flac"), "own-playlist.wav"),
                                  (allowed.url("missing", "in.flac"), "missing.wav"),
                                  ("http://127.0.0.1:1/range/in.flac", "closed.wav")] {
            _ = try await other.bytesSent()
            let id = try await ServeJobTests.start(server, ["url": address, "operation": "reverse", "output": output])
            let events = try await ServeJobTests.events(server, id)
            #expect(events.last?.0 == "failed", "\(address): \(events)")
            let text = "\(events.last?.1["error"] ?? "")".replacingOccurrences(of: address, with: "URL")
            texts.append(text)
            #expect(!FileManager.default.fileExists(atPath: folder.file("Reversed/\(output)").path))
            // A playlist's entry on the other server is never asked for.
            if output == "playlist.wav" { #expect(try await other.bytesSent() == 0, "the playlist's entry was fetched") }
        }
        #expect(Set(texts).count == 1, "the failures tell causes apart: \(texts)")
    }

    @Test("a stalled remote holds no request: 20 jobs on it are answered at once, the list answers within 200 ms, local jobs still start")
    func stalledRemotes() async throws {
        let media = try ServeTests.folder(["in.flac": "flac-s16-2ch-44100.flac"])
        let http = try await FixtureHTTPServer(serving: media.url)
        let folder = try ServeTests.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let server = try await RunningServer(folder.url, ["--allow-url-hosts", "127.0.0.1:\(http.port)", "--url-timeout", "3"])
        var accepted: [String] = []
        for index in 0..<20 {
            let started = Date()
            let (status, value) = try await server.json("POST", "/api/jobs", body: ["url": http.url("slow", "in.flac"), "operation": "reverse", "output": "s\(index).wav"])
            #expect(Date().timeIntervalSince(started) < 1, "POST \(index) waited on the remote")
            #expect(status == 202 || status == 503, "\(status)")
            if status == 202, let id = (value as? [String: Any])?["id"] as? String { accepted.append(id) }
        }
        #expect(accepted.count == 8, "remote jobs accepted: \(accepted.count)")
        for _ in 0..<5 {
            let started = Date()
            await #expect(try server.request("GET", "/api/files").status == 200)
            #expect(Date().timeIntervalSince(started) < 0.2, "the list waited behind the remotes")
            try? await Task.sleep(for: .microseconds(100_000))
        }
        let local = try await server.json("POST", "/api/jobs", body: ["file": "in.wav", "operation": "reverse", "output": "local.wav"])
        #expect(local.status == 202, "\(String(describing: local.value))")
        // --url-timeout (3 s) ends each stalled one: eight, two at a time, well within 30 s.
        let deadline = Date().addingTimeInterval(30)
        var running = accepted
        while !running.isEmpty, Date() < deadline {
            try? await Task.sleep(for: .microseconds(200_000))
            var stillRunning: [String] = []
            for id in running where ((try await server.json("GET", "/api/jobs/\(id)").value as? [String: Any])?["status"] as? String) == "running" {
                stillRunning.append(id)
            }
            running = stillRunning
        }
        #expect(running.isEmpty, "\(running.count) stalled jobs outlived --url-timeout")
    }

    @Test("HTTP limits: a slow header is cut after 10 s, a 10 MB header is 431, a 413 closes the connection")
    func httpLimits() async throws {
        let folder = try ServeTests.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let server = try await RunningServer(folder.url)
        // 50 connections that never finish their header.
        var slow: [Int32] = []
        for _ in 0..<50 {
            let socket = try RawConnection.open(port: server.port)
            _ = RawConnection.transmit(socket, Data("GET /api/files HTTP/1.1\r\nHost: \(server.host)\r\n".utf8))
            slow.append(socket)
        }
        defer { slow.forEach { close($0) } }
        let started = Date()
        for socket in slow { #expect(await RawConnection.waitedClosed(socket, timeout: 20)) }
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 9 && waited < 15, "closed after \(waited) s")
        await #expect(try server.request("GET", "/api/files").status == 200)

        let big = try RawConnection.open(port: server.port)
        defer { close(big) }
        _ = RawConnection.transmit(big, Data("GET /api/files HTTP/1.1\r\nHost: \(server.host)\r\nX-Big: ".utf8) + Data(repeating: 97, count: 10 << 20) + Data("\r\n\r\n".utf8))
        let answer = await RawConnection.answer(big, timeout: 10)
        #expect(answer.hasPrefix("HTTP/1.1 431"), "\(answer.prefix(60))")

        let declared = try RawConnection.open(port: server.port)
        defer { close(declared) }
        _ = RawConnection.transmit(declared, Data("POST /api/jobs HTTP/1.1\r\nHost: \(server.host)\r\nContent-Type: application/json\r\nContent-Length: 5000000000\r\n\r\n".utf8)
                               + Data(repeating: 32, count: 100_000))
        let refused = await RawConnection.answer(declared, timeout: 10)
        #expect(refused.hasPrefix("HTTP/1.1 413"), "\(refused.prefix(60))")
        #expect(await RawConnection.waitedClosed(declared, timeout: 5), "the connection stayed open to read 5 GB")
    }

    @Test("the token: 16 characters at least; from a file or REVERSE_AUDIO_TOKEN; made and printed for another host; the page cannot be framed")
    func tokenHygiene() async throws {
        let folder = try ServeTests.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let tool = BuiltProducts.reverseAudio.path
        let short = try await ProcessRunner.run(tool, ["serve", folder.url.path, "--port", "0", "--token", "a"])
        #expect(short.status == 64 && short.errorText.contains("16 characters"), "\(short.status) \(short.errorText)")
        let file = folder.file("token.txt")
        try Data("from-a-file-0123456789\n".utf8).write(to: file)
        let fromFile = try await RunningServer(folder.url, ["--token-file", file.path])
        #expect(fromFile.token == "from-a-file-0123456789")
        await #expect(try fromFile.request("GET", "/api/files").status == 403)
        await #expect(try fromFile.request("GET", "/api/files", headers: [("X-ReverseAudio-Token", "from-a-file-0123456789")]).status == 200)
        let page = try await fromFile.request("GET", "/", headers: [("X-ReverseAudio-Token", "from-a-file-0123456789")])
        #expect(page.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true, "\(page.headers)")
        let fromEnvironment = try await RunningServer(folder.url, [], environment: ["REVERSE_AUDIO_TOKEN": "from-the-environment-01"])
        #expect(fromEnvironment.token == "from-the-environment-01")
        // Every address: a token is made (32 characters) and printed once, in the URL.
        let everywhere = try await RunningServer(folder.url, ["--host", "0.0.0.0"], shownHost: "0.0.0.0")
        #expect(everywhere.token?.count == 32, "\(String(describing: everywhere.token))")
        await #expect(try everywhere.request("GET", "/api/files").status == 403)
        await #expect(try everywhere.request("GET", "/api/files", headers: [("X-ReverseAudio-Token", everywhere.token ?? "")]).status == 200)
    }
}

/// Set once, read from another thread.
final class StopFlag: @unchecked Sendable {
    // @unchecked: `value` is touched only under `lock`.
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// A raw TCP connection to the server, for requests no client library sends (a header never
/// finished, a body never sent).
enum RawConnection {
    static func open(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw FFmpegOracle.Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw FFmpegOracle.Failure(description: "connect to port \(port): errno \(errno)")
        }
        return descriptor
    }

    /// Sends what the peer takes; false once it has closed.
    static func transmit(_ descriptor: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = send(descriptor, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                if count <= 0 { return false }
                sent += count
            }
            return true
        }
    }

    /// What arrives within `timeout` seconds (until the peer closes), as text.
    static func read(_ descriptor: Int32, timeout: Double) -> String {
        var collected = Data()
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else { if !collected.isEmpty { break } else { continue } }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            collected.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: collected, as: UTF8.self)
    }

    /// True when the peer closes within `timeout` seconds (what it sent before is dropped).
    /// ``read(_:timeout:)`` on a thread of its own.
    static func answer(_ descriptor: Int32, timeout: Double) async -> String {
        (try? await ProcessRunner.onThreadOfItsOwn { read(descriptor, timeout: timeout) }) ?? ""
    }

    /// ``waitClosed(_:timeout:)`` on a thread of its own.
    static func waitedClosed(_ descriptor: Int32, timeout: Double) async -> Bool {
        (try? await ProcessRunner.onThreadOfItsOwn { waitClosed(descriptor, timeout: timeout) }) ?? false
    }

    static func waitClosed(_ descriptor: Int32, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else { continue }
            if recv(descriptor, &buffer, buffer.count, 0) <= 0 { return true }
        }
        return false
    }
}
