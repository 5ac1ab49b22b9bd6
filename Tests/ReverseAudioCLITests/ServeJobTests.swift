import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 29: `serve`'s jobs and waveform data, each equal to what the command of the same name
/// writes; progress in order; a cancelled job or a stopped server leaves nothing behind.
@Suite("serve: jobs and waveform data", .runsProcesses)
struct ServeJobTests {
    /// The server-sent events of job `id`: (event name, its JSON object), in order.
    static func events(_ server: RunningServer, _ id: String) async throws -> [(String, [String: Any])] {
        let answer = try await server.request("GET", "/api/jobs/\(id)/events")
        #expect(answer.headers["content-type"] == "text/event-stream")
        var events: [(String, [String: Any])] = []
        for block in answer.text.components(separatedBy: "\n\n") where !block.isEmpty {
            var name = ""
            var data = ""
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
            }
            let object = (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
            events.append((name, object))
        }
        return events
    }

    /// Starts a job; its id.
    static func start(_ server: RunningServer, _ job: [String: Any]) async throws -> String {
        let (status, value) = try await server.json("POST", "/api/jobs", body: job)
        #expect(status == 202, "\(job): \(String(describing: value))")
        return try #require((value as? [String: Any])?["id"] as? String)
    }

    /// The tool's own output for `arguments` (with the output's path last substituted for OUT).
    static func commandOutput(_ arguments: [String], named name: String) async throws -> Data {
        let folder = try TemporaryDirectory()
        let output = folder.file(name)
        let result = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, arguments.map { $0 == "OUT" ? output.path : $0 } + ["-q"])
        #expect(result.status == 0, "\(arguments): \(result.errorText)")
        return try Data(contentsOf: output)
    }

    @Test("reverse, convert and trim jobs: progress events in order, then done; the result is the command's output byte for byte",
          arguments: [
            (#"{"operation": "reverse", "output": "r.flac"}"#, ["convert", "IN", "OUT", "--reverse"]),
            (#"{"operation": "convert", "output": "c.m4a"}"#, ["convert", "IN", "OUT"]),
            (#"{"operation": "trim", "output": "t.flac", "start": 0.25, "end": "0:00.75"}"#, ["trim", "IN", "OUT", "--start", "0.25", "--end", "0:00.75"]),
            (#"{"operation": "reverse", "output": "part.wav", "start": 0.5}"#, ["convert", "IN", "OUT", "--reverse", "--start", "0.5"]),
          ])
    func jobs(_ jobJSON: String, _ command: [String]) async throws {
        let job = try #require(try JSONSerialization.jsonObject(with: Data(jobJSON.utf8)) as? [String: Any])
        let folder = try ServeTests.folder(["sub/in.flac": "flac-s16-2ch-44100.flac"])
        let server = try await RunningServer(folder.url)
        var request = job
        request["file"] = "sub/in.flac"
        let id = try await Self.start(server, request)
        let events = try await Self.events(server, id)
        let fractions = events.compactMap { $0.1["fraction"] as? Double }
        #expect(fractions == fractions.sorted(), "progress went back: \(fractions)")
        #expect(events.dropLast().allSatisfy { $0.0 == "progress" } && events.last?.0 == "done", "\(events.map(\.0))")
        #expect(fractions.last == 1)
        let (_, status) = try await server.json("GET", "/api/jobs/\(id)")
        #expect((status as? [String: Any])?["status"] as? String == "done")
        #expect((status as? [String: Any])?["error"] is NSNull, "error is null, not left out: \(String(describing: status))")
        let result = try await server.request("GET", "/api/jobs/\(id)/result")
        #expect(result.status == 200)
        let output = try #require(job["output"] as? String)
        #expect(result.headers["content-disposition"]?.contains("filename=\"\(output)\"") == true)
        let expected = try await Self.commandOutput(command.map { $0 == "IN" ? folder.file("sub/in.flac").path : $0 }, named: output)
        #expect(result.body == expected, "\(output): \(result.body.count) bytes, the command wrote \(expected.count)")
        #expect(try Data(contentsOf: folder.file("Reversed/\(output)")) == expected)
        // Ranges, so that a browser playing the result can seek in it.
        let part = try await server.request("GET", "/api/jobs/\(id)/result", headers: [("Range", "bytes=100-")])
        #expect(part.status == 206 && part.body == expected.dropFirst(100) && part.headers["accept-ranges"] == "bytes")
        #expect(part.headers["content-range"] == "bytes 100-\(expected.count - 1)/\(expected.count)")
        await #expect(try server.request("GET", "/api/jobs/\(id)/result", headers: [("Range", "bytes=\(expected.count)-")]).status == 416)
        // The output exists now: the same name again is a conflict.
        await #expect(try server.json("POST", "/api/jobs", body: request).status == 409)
    }

    @Test("waveform.json and .dat are the bytes `reverse-audio waveform` writes", arguments: ["json", "dat"])
    func waveform(_ format: String) async throws {
        let folder = try ServeTests.folder(["in.mp3": "mp3-cbr128-xing-2ch-44100.mp3"])
        let server = try await RunningServer(folder.url)
        let answer = try await server.request("GET", "/api/files/in.mp3/waveform.\(format)?samples-per-pixel=300")
        #expect(answer.status == 200)
        let expected = try await Self.commandOutput(["waveform", folder.file("in.mp3").path, "OUT", "--samples-per-pixel", "300"], named: "w.\(format)")
        #expect(answer.body == expected)
        await #expect(try server.request("GET", "/api/files/in.mp3/waveform.\(format)?samples-per-pixel=1").status == 400)
    }

    /// A server on a folder holding a 4-minute MP3, with a TMPDIR of its own, running a job
    /// that takes a few seconds (an AAC encode of the MP3 reversed) that has made progress.
    static func serverWithLongJob() async throws -> (folder: TemporaryDirectory, temporary: TemporaryDirectory, server: RunningServer, id: String) {
        let folder = try TemporaryDirectory()
        try await FileManager.default.copyItem(at: try LongInputs.mp3FourMinutes(), to: folder.file("long.mp3"))
        let temporary = try TemporaryDirectory()
        let server = try await RunningServer(folder.url, temporary: temporary.url)
        let id = try await start(server, ["file": "long.mp3", "operation": "reverse", "output": "long.m4a"])
        try await waitForProgress(server, id)
        return (folder, temporary, server, id)
    }

    /// Nothing left in the output folder or the temporary one.
    static func expectNothingLeft(_ folder: TemporaryDirectory, _ temporary: TemporaryDirectory,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.file("Reversed").path)) ?? []
        #expect(left.isEmpty, "left in the output folder: \(left)", sourceLocation: sourceLocation)
        #expect(temporary.contents.isEmpty, "left in TMPDIR: \(temporary.contents)", sourceLocation: sourceLocation)
    }

    /// Waits until job `id` has made progress.
    static func waitForProgress(_ server: RunningServer, _ id: String) async throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let (_, value) = try await server.json("GET", "/api/jobs/\(id)")
            if let fraction = (value as? [String: Any])?["fraction"] as? Double, fraction > 0 { return }
            try? await Task.sleep(for: .microseconds(20_000))
        }
        Issue.record("job \(id) made no progress")
    }

    @Test("DELETE cancels a running job: it fails as cancelled and its partial file is removed")
    func cancel() async throws {
        let (folder, temporary, server, id) = try await Self.serverWithLongJob()
        await #expect(try server.request("DELETE", "/api/jobs/\(id)").status == 200)
        let events = try await Self.events(server, id)
        #expect(events.last?.0 == "failed" && events.last?.1["error"] as? String == "cancelled", "\(events.map(\.0))")
        await #expect(try server.request("GET", "/api/jobs/\(id)/result").status == 409)
        Self.expectNothingLeft(folder, temporary)
    }

    @Test("SIGINT mid-job: the server exits 130 within a second, leaving no partial or temporary file")
    func signalMidJob() async throws {
        let (folder, temporary, server, _) = try await Self.serverWithLongJob()
        let started = Date()
        #expect(await server.stop(with: SIGINT, timeout: 10))
        #expect(Date().timeIntervalSince(started) < 1.5, "took \(Date().timeIntervalSince(started)) s")
        #expect(server.process.terminationStatus == 130, "\(server.errorText)")
        Self.expectNothingLeft(folder, temporary)
        #expect(folder.contents == ["Reversed", "long.mp3"] || folder.contents == ["long.mp3"], "\(folder.contents)")
    }
}
