import Foundation
import Testing
import TestSupport

/// What the page needs to treat results and uploads as it treats the folder's files (issue 46):
/// names as `reverse` makes them, the output folder listed after a restart, the same audio and
/// waveform routes, unreadable files listed with the reason.
@Suite("serve: results and uploads as first-class files", .runsProcesses)
struct ServeResultsTests {
    @Test("a job without an output is named as reverse names it (NAME-REVERSED.wav), a number only on a collision")
    func outputNames() async throws {
        let folder = try ServeTests.folder(["Melody.flac": "flac-s16-2ch-44100.flac", "sub/Melody.mp3": "mp3-cbr64-xing-1ch-22050.mp3"])
        let server = try await RunningServer(folder.url)
        var names: [String] = []
        for job in [["file": "Melody.flac", "operation": "reverse"], ["file": "Melody.flac", "operation": "reverse"],
                    ["file": "sub/Melody.mp3", "operation": "reverse"], ["file": "sub/Melody.mp3", "operation": "trim", "start": 0.1, "end": 0.4] as [String: Any]] {
            let id = try await ServeJobTests.start(server, job)
            let events = try await ServeJobTests.events(server, id)
            #expect(events.last?.0 == "done", "\(job): \(events)")
            names.append("\(events.last?.1["output"] ?? "")")
        }
        #expect(names == ["Melody-REVERSED.wav", "Melody-REVERSED-2.wav", "Melody-REVERSED-3.wav", "Melody-trimmed.mp3"], "\(names)")
        let upload = try await server.request("POST", "/api/uploads?name=Song.wav", headers: [("Content-Type", "application/octet-stream")],
                                        body: try Data(contentsOf: Fixtures.url("wav-pcm_s16le-1ch-8000.wav")))
        let uploaded = try #require(try JSONSerialization.jsonObject(with: upload.body) as? [String: Any])
        #expect(uploaded["title"] as? String == "Song.wav", "\(uploaded)")
        let id = try await ServeJobTests.start(server, ["upload": try #require(uploaded["name"] as? String), "operation": "reverse"])
        await #expect(try ServeJobTests.events(server, id).last?.1["output"] as? String == "Song-REVERSED.wav", "the upload's prefix shows")
    }

    @Test("results: listed from the output folder after a restart; their audio both ways is the decode and areverse; a waveform; trim on one")
    func resultsAreFiles() async throws {
        let folder = try ServeTests.folder(["tone.flac": "flac-s16-2ch-44100.flac"])
        let first = try await RunningServer(folder.url)
        let id = try await ServeJobTests.start(first, ["file": "tone.flac", "operation": "reverse"])
        await #expect(try ServeJobTests.events(first, id).last?.0 == "done")
        #expect(await first.stop())

        let server = try await RunningServer(folder.url)
        let (status, value) = try await server.json("GET", "/api/results")
        let rows = try #require(value as? [[String: Any]], "\(status)")
        #expect(rows.count == 1 && rows.first?["name"] as? String == "tone-REVERSED.wav", "\(rows)")
        #expect(rows.first?["kind"] as? String == "audio" && rows.first?["frames"] as? Int == 44100, "\(rows)")
        let reversed = try await FFmpegOracle.reversedSamples(of: Fixtures.url("flac-s16-2ch-44100.flac"))
        let forwards = try await server.request("GET", "/api/results/tone-REVERSED.wav/audio")
        #expect(forwards.status == 200 && ServeTests.int16s(forwards.body.dropFirst(44)) == reversed)
        let backwards = try await server.request("GET", "/api/results/tone-REVERSED.wav/audio?direction=reverse")
        await #expect(ServeTests.int16s(backwards.body.dropFirst(44)) == (try FFmpegOracle.samples(of: Fixtures.url("flac-s16-2ch-44100.flac"))),
                "the result backwards is not the original")
        await #expect(try server.request("GET", "/api/results/tone-REVERSED.wav/waveform.json?samples-per-pixel=256").status == 200)
        let download = try await server.request("GET", "/api/results/tone-REVERSED.wav/download")
        #expect(download.headers["content-disposition"]?.contains("tone-REVERSED.wav") == true)
        #expect(download.body == (try Data(contentsOf: folder.file("Reversed/tone-REVERSED.wav"))))
        let trim = try await ServeJobTests.start(server, ["result": "tone-REVERSED.wav", "operation": "trim", "start": 0.25, "end": 0.75])
        let events = try await ServeJobTests.events(server, trim)
        #expect(events.last?.1["output"] as? String == "tone-REVERSED-trimmed.wav", "\(events)")
        await #expect(try server.request("GET", "/api/results/..%2Ftone.flac/audio").status == 404)
        await #expect(try server.request("GET", "/api/results/.uploads/audio").status == 404)
    }

    @Test("the list shows a file FFmpeg cannot read, with the reason; /api/settings names the URL hosts")
    func unreadableAndSettings() async throws {
        let folder = try ServeTests.folder(["good.wav": "wav-pcm_s16le-1ch-8000.wav", "bad.mp3": "bad-text.mp3"])
        let server = try await RunningServer(folder.url, ["--allow-url-hosts", "media.example.org"])
        let rows = try await #require(try server.json("GET", "/api/files").value as? [[String: Any]])
        let bad = try #require(rows.first { $0["name"] as? String == "bad.mp3" }, "\(rows)")
        #expect((bad["error"] as? String)?.isEmpty == false && bad["frames"] == nil, "\(bad)")
        #expect(rows.first { $0["name"] as? String == "good.wav" }?["error"] == nil)
        let settings = try await #require(try server.json("GET", "/api/settings").value as? [String: Any])
        #expect(settings["urlHosts"] as? [String] == ["media.example.org"], "\(settings)")
    }

    @Test("a waveform in parts (the page draws a long file's as they come): the parts end to end are the whole, at every level of the ladder",
          arguments: ["flac", "mp3"])
    func waveformParts(_ format: String) async throws {
        let folder = try TemporaryDirectory()
        let name = "long.\(format)"
        let made = try await ProcessRunner.run("ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i", "sine=300:d=50:sample_rate=44100", "-af", "volume=0.5",
                                                    "-c:a", format == "mp3" ? "libmp3lame" : "flac", folder.file(name).path])
        #expect(made.status == 0, "\(made.errorText)")
        let server = try await RunningServer(folder.url)
        for level in [2048, 256, 16] {
            // The whole on a server of its own, which reads the file afresh: the parts (each a
            // reopen taking the first open's length and seek index) must agree with it.
            let fresh = try await RunningServer(folder.url)
            let whole = try await #require(try fresh.json("GET", "/api/files/\(name)/waveform.json?samples-per-pixel=\(level)").value as? [String: Any])
            var joined: [Int] = []
            for part in 0..<8 {
                let piece = try await #require(try server.json("GET", "/api/files/\(name)/waveform.json?samples-per-pixel=\(level)&part=\(part)&parts=8").value
                                         as? [String: Any], "part \(part)")
                joined += piece["data"] as? [Int] ?? []
            }
            let data = whole["data"] as? [Int] ?? []
            #expect(!data.isEmpty && joined == data, "\(format) level \(level): \(joined.count) values in parts, \(data.count) whole")
            // The page's pieces: the first part alone, then runs of parts in one pass each.
            var pieces: [Int] = []
            for run in ["0", "1-3", "4-7"] {
                let piece = try await #require(try server.json("GET", "/api/files/\(name)/waveform.json?samples-per-pixel=\(level)&part=\(run)&parts=8").value
                                         as? [String: Any], "parts \(run)")
                pieces += piece["data"] as? [Int] ?? []
            }
            #expect(pieces == data, "\(format) level \(level): \(pieces.count) values in runs of parts, \(data.count) whole")
        }
        for bad in ["part=8&parts=8", "part=3-2&parts=8", "part=1-&parts=8", "part=-1&parts=8"] {
            await #expect(try server.request("GET", "/api/files/\(name)/waveform.json?\(bad)").status == 400, "\(bad)")
        }
    }

    @Test("the whole-file loop is one stream: lap after lap the file's frames, the last followed at once by the first, both ways",
          arguments: ["mp3-cbr128-xing-2ch-44100.mp3", "flac-s16-2ch-44100.flac"])
    func seamlessLoop(_ fixture: String) async throws {
        let name = "in." + (fixture as NSString).pathExtension
        let folder = try ServeTests.folder([name: fixture])
        let server = try await RunningServer(folder.url)
        for reversed in [false, true] {
            let expected = await reversed ? try FFmpegOracle.reversedSamples(of: folder.file(name)) : try FFmpegOracle.samples(of: folder.file(name))
            let lapBytes = expected.count * 2
            let path = "/api/files/\(name)/audio?loop=whole" + (reversed ? "&direction=reverse" : "")
            let header = try await server.request("GET", path, headers: [("Range", "bytes=0-43")])
            #expect(header.status == 206)
            let dataBytes = header.body.suffix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            let laps = dataBytes / lapBytes
            #expect(laps > 1 && dataBytes == laps * lapBytes, "\(fixture): \(dataBytes) data bytes for laps of \(lapBytes)")
            #expect(header.headers["content-range"] == "bytes 0-43/\(44 + dataBytes)")
            // Across the seams after the first lap and before the last: the end, then the start.
            let edge = 4096
            for seam in [1, laps - 1] {
                let first = 44 + seam * lapBytes - edge
                let across = try await server.request("GET", path, headers: [("Range", "bytes=\(first)-\(first + 2 * edge - 1)")])
                #expect(across.status == 206)
                let samples = ServeTests.int16s(across.body)
                let wanted = Array(expected.suffix(edge / 2) + expected.prefix(edge / 2))
                #expect(samples == wanted, "\(fixture) reversed \(reversed): the seam after lap \(seam)")
            }
        }
        await #expect(try server.request("GET", "/api/files/\(name)/audio?loop=sometimes").status == 400)
    }

    @Test("the list at once (`details=known`): names first, pending until described; one file described alone, then known")
    func listAtOnce() async throws {
        let folder = try ServeTests.folder(["a.wav": "wav-pcm_s16le-1ch-8000.wav", "b.mp3": "mp3-cbr128-xing-2ch-44100.mp3",
                                            "bad.mp3": "bad-text.mp3"])
        let server = try await RunningServer(folder.url)
        let first = try await #require(try server.json("GET", "/api/files?details=known").value as? [[String: Any]])
        #expect(first.map { $0["name"] as? String } == ["a.wav", "b.mp3", "bad.mp3"])
        #expect(first.allSatisfy { $0["pending"] as? Bool == true && $0["frames"] == nil && $0["format"] as? String != nil }, "\(first)")
        let one = try await #require(try server.json("GET", "/api/files/b.mp3").value as? [String: Any])
        let samples = try await FFmpegOracle.samples(of: folder.file("b.mp3"))
        #expect(one["frames"] as? Int == samples.count / 2, "\(one)")
        let bad = try await server.request("GET", "/api/files/bad.mp3")
        #expect(bad.status >= 400 && bad.status < 500 && bad.text.contains("bad.mp3"), "\(bad.status) \(bad.text)")
        await #expect(try server.request("GET", "/api/files/none.mp3").status == 404)
        let then = try await #require(try server.json("GET", "/api/files?details=known").value as? [[String: Any]])
        #expect(then.first { $0["name"] as? String == "b.mp3" }?["frames"] as? Int == samples.count / 2, "\(then)")
        #expect(then.first { $0["name"] as? String == "a.wav" }?["pending"] as? Bool == true, "\(then)")
        let whole = try await #require(try server.json("GET", "/api/files").value as? [[String: Any]])
        #expect(whole.allSatisfy { $0["pending"] == nil }, "\(whole)")
    }
}
