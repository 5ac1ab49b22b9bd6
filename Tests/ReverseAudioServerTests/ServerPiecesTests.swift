import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import ReverseAudio
import Testing
@testable import ReverseAudioServer

/// The small pieces of `serve` that need no folder and no decode: output names, the byte
/// budget of its caches, its limit on work at once, a connection's limits on an embedded
/// channel (virtual time, no socket), a job request's parsing and an upload's names. Each is
/// a promise the API makes (a name never overwrites, memory stays bounded, a slow client is
/// cut off), checked on the values a client really sends.
@Suite struct ServerPiecesTests {
    // MARK: - JobOutputName

    @Test("default output names: NAME-REVERSED.wav, NAME-trimmed in the file's own format, -converted.wav, the video names")
    func outputNames() {
        let free = { (_: String) in false }
        #expect(JobOutputName.make(for: .reverse, title: "song.mp3", isTaken: free) == "song-REVERSED.wav")
        #expect(JobOutputName.make(for: .trim, title: "song.flac", isTaken: free) == "song-trimmed.flac")
        #expect(JobOutputName.make(for: .trim, title: "song.mp3", isTaken: free) == "song-trimmed.mp3")
        // A format that cannot be written (or none at all) is trimmed to WAV.
        #expect(JobOutputName.make(for: .trim, title: "notes.xyz", isTaken: free) == "notes-trimmed.wav")
        #expect(JobOutputName.make(for: .trim, title: "bare", isTaken: free) == "bare-trimmed.wav")
        #expect(JobOutputName.make(for: .convert, title: "a.b.ogg", isTaken: free) == "a.b-converted.wav")
        #expect(JobOutputName.make(for: .reverseVideo, title: "clip.mov", isTaken: free) == "clip-REVERSED.mp4")
        #expect(JobOutputName.make(for: .boomerang, title: "clip.mov", isTaken: free) == "clip-boomerang.mp4")
    }

    @Test("a taken name gets the first free number from 2, the extension kept")
    func outputNamesCountUp() {
        let taken: Set = ["song-REVERSED.wav", "song-REVERSED-2.wav", "song-REVERSED-3.wav", "song-REVERSED-5.wav"]
        #expect(JobOutputName.make(for: .reverse, title: "song.mp3", isTaken: taken.contains) == "song-REVERSED-4.wav")
        #expect(JobOutputName.make(for: .trim, title: "x.flac", isTaken: { $0 == "x-trimmed.flac" }) == "x-trimmed-2.flac")
    }

    // MARK: - BudgetedCache

    @Test("beyond its budget the least recently used goes; a value read is recent again")
    func budgetEvictsLeastRecent() {
        var cache = BudgetedCache<String, Int>(budget: 100)
        for (index, key) in ["a", "b", "c", "d", "e"].enumerated() { cache.keep(index, size: 20, for: key) }
        #expect(cache.bytes == 100)
        #expect(cache.value(for: "a") == 0)  // a is now the most recent
        cache.keep(5, size: 20, for: "f")
        #expect(cache.bytes == 100)
        #expect(cache.value(for: "b") == nil, "the least recently used stayed")
        #expect(cache.value(for: "a") == 0 && cache.value(for: "f") == 5 && cache.value(for: "c") == 2)
        // Two more push out d and e (c was read after them).
        cache.keep(6, size: 20, for: "g")
        cache.keep(7, size: 20, for: "h")
        #expect(cache.value(for: "d") == nil && cache.value(for: "e") == nil)
        #expect(cache.value(for: "c") == 2 && cache.bytes == 100)
    }

    @Test("a value over a quarter of the budget is not kept, and a kept key is not replaced")
    func budgetRefusesLargeValues() {
        var cache = BudgetedCache<String, String>(budget: 100)
        cache.keep("big", size: 26, for: "big")
        #expect(cache.value(for: "big") == nil && cache.bytes == 0)
        cache.keep("quarter", size: 25, for: "q")
        #expect(cache.value(for: "q") == "quarter" && cache.bytes == 25)
        cache.keep("other", size: 10, for: "q")
        #expect(cache.value(for: "q") == "quarter" && cache.bytes == 25)
    }

    // MARK: - AsyncLimit

    /// Pieces of work parked until released, counting how many run at once.
    actor Gate {
        private(set) var running = 0
        private(set) var started = 0
        private(set) var most = 0
        private var parked: [CheckedContinuation<Void, Never>] = []

        func enter() async {
            running += 1
            started += 1
            most = max(most, running)
            await withCheckedContinuation { parked.append($0) }
            running -= 1
        }

        /// Releases the oldest parked piece; false when none is parked.
        func releaseOne() -> Bool {
            guard !parked.isEmpty else { return false }
            parked.removeFirst().resume()
            return true
        }
    }

    /// Yields until `condition` holds, at most `attempts` times (a bound on work, not on time).
    static func yieldUntil(attempts: Int = 100_000, _ condition: () async -> Bool) async -> Bool {
        for _ in 0..<attempts {
            if await condition() { return true }
            await Task.yield()
        }
        return await condition()
    }

    @Test("at most its width run at once; a waiting piece starts when one ends", .timeLimit(.minutes(1)))
    func asyncLimitWidth() async throws {
        let limit = AsyncLimit(2)
        let gate = Gate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { try await limit.run { await gate.enter() } } }
            #expect(await Self.yieldUntil { await gate.started == 2 })
            // The three others wait however long the two take.
            for _ in 0..<1000 { await Task.yield() }
            #expect(await gate.started == 2)
            var released = 0
            while released < 5 {
                if await gate.releaseOne() { released += 1 } else { await Task.yield() }
            }
            try await group.waitForAll()
        }
        #expect(await gate.started == 5)
        #expect(await gate.most == 2)
    }

    @Test("a piece that throws gives its slot back and its error to its caller", .timeLimit(.minutes(1)))
    func asyncLimitReleasesOnError() async throws {
        struct Boom: Error {}
        let limit = AsyncLimit(1)
        await #expect(throws: Boom.self) { try await limit.run { throw Boom() } }
        #expect(try await limit.run { 42 } == 42)
    }

    // MARK: - ConnectionLimits (an embedded channel: virtual time, no socket)

    static func limitedChannel(_ settings: ConnectionLimits.Settings = .init(), count: ConnectionLimits.Count = .init()) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 1), promise: nil)
        try channel.pipeline.syncOperations.addHandler(ConnectionLimits(settings: settings, count: count))
        return channel
    }

    static let head = HTTPRequestPart.head(HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/api/files"))

    @Test("the count of connections: at most the limit enter, one leaving lets another in")
    func connectionCount() {
        let count = ConnectionLimits.Count()
        #expect(count.enter(limit: 2) && count.enter(limit: 2))
        #expect(!count.enter(limit: 2))
        #expect(count.current == 2)
        count.leave()
        #expect(count.enter(limit: 2) && count.current == 2)
    }

    @Test("a connection over the maximum is closed at once and not counted")
    func connectionOverMaximum() throws {
        let count = ConnectionLimits.Count()
        var settings = ConnectionLimits.Settings()
        settings.maximumConnections = 1
        let first = try Self.limitedChannel(settings, count: count)
        #expect(first.isActive && count.current == 1)
        let second = try Self.limitedChannel(settings, count: count)
        #expect(!second.isActive, "a connection over the maximum stayed open")
        #expect(count.current == 1, "the refused connection changed the count")
        first.close(promise: nil)
        first.embeddedEventLoop.run()  // the pipeline's handlers are removed on the loop
        #expect(count.current == 0)
    }

    @Test("a head that does not come within the header timeout closes the connection (10 s, virtual time)")
    func connectionHeaderTimeout() throws {
        let count = ConnectionLimits.Count()
        let channel = try Self.limitedChannel(count: count)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(9_999))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
        #expect(count.current == 0)
    }

    @Test("a whole request stops the clock; after the answer the idle timeout (60 s) runs")
    func connectionIdleTimeout() throws {
        let channel = try Self.limitedChannel()
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .seconds(300))
        #expect(channel.isActive, "a request being answered was cut off")
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .seconds(59))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test("a body that pauses longer than the body timeout closes the connection; each part restarts the clock")
    func connectionBodyTimeout() throws {
        var settings = ConnectionLimits.Settings()
        settings.bodyTimeout = .seconds(5)
        let channel = try Self.limitedChannel(settings)
        try channel.writeInbound(Self.head)
        for _ in 0..<3 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(4))
            try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "x")))
        }
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(!channel.isActive)
    }

    @Test("an answer of 413 closes the connection once written (the rest of the body is not read)")
    func connectionClosesAfter413() throws {
        let channel = try Self.limitedChannel()
        try channel.writeInbound(Self.head)
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .contentTooLarge)))
        #expect(channel.isActive)
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        #expect(!channel.isActive)
    }

    @Test("a head over the decoder's limit is answered 431, another malformed request 400, each closing the connection",
          arguments: [(HTTPParserError.headerOverflow, 431), (HTTPParserError.invalidMethod, 400)])
    func connectionParserErrors(_ error: HTTPParserError, _ status: Int) throws {
        let channel = try Self.limitedChannel()
        channel.pipeline.fireErrorCaught(error)
        guard case .head(let response)? = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no answer's head")
            return
        }
        #expect(response.status.code == status)
        #expect(response.headerFields[.connection] == "close")
        #expect(!channel.isActive)
    }

    // MARK: - JobRequest

    static func job(_ json: String) throws -> JobRequest {
        try JSONDecoder().decode(JobRequest.self, from: Data(json.utf8))
    }

    @Test("a job names exactly one input: file, upload, result or url")
    func jobInputs() throws {
        guard case .file("sub/a.flac") = try Self.job(#"{"file":"sub/a.flac","operation":"reverse"}"#).input() else {
            Issue.record("not a file")
            return
        }
        guard case .upload("0a1b2c3d-x.mp3") = try Self.job(#"{"upload":"0a1b2c3d-x.mp3","operation":"convert"}"#).input() else {
            Issue.record("not an upload")
            return
        }
        guard case .result("r.wav") = try Self.job(#"{"result":"r.wav","operation":"trim","end":1}"#).input() else {
            Issue.record("not a result")
            return
        }
        for json in [#"{"operation":"reverse"}"#, #"{"file":"a","url":"http://h/x","operation":"reverse"}"#,
                     #"{"file":"a","result":"b","operation":"reverse"}"#, #"{"upload":"a","file":"b","operation":"reverse"}"#] {
            let error = #expect(throws: HTTPError.self, "\(json)") { try Self.job(json).input() }
            #expect(error?.status == .badRequest)
            #expect(error?.body?.contains("one input") == true)
        }
    }

    @Test("operations by their API names; an unknown one, or none, does not decode")
    func jobOperations() throws {
        #expect(try Self.job(#"{"file":"a","operation":"reverse-video"}"#).operation == .reverseVideo)
        #expect(try Self.job(#"{"file":"a","operation":"boomerang"}"#).operation.isVideo)
        #expect(!(try Self.job(#"{"file":"a","operation":"trim"}"#).operation.isVideo))
        #expect(throws: DecodingError.self) { try Self.job(#"{"file":"a","operation":"explode"}"#) }
        #expect(throws: DecodingError.self) { try Self.job(#"{"file":"a"}"#) }
        #expect(throws: DecodingError.self) { try Self.job(#"{"file":"a","operation":"reverse","crf":"high"}"#) }
    }

    @Test("times: seconds as a number or any text the command line takes; negative or malformed ones do not decode")
    func jobTimes() throws {
        let range = try #require(try Self.job(#"{"file":"a","operation":"trim","start":1.5,"end":"1:02.5"}"#).range())
        #expect(range.start == .seconds(1.5))
        #expect(range.end == .seconds(62.5))
        let frames = try #require(try Self.job(#"{"file":"a","operation":"trim","start":"66150s"}"#).range())
        #expect(frames.start == .frames(66150) && frames.end == nil)
        #expect(try Self.job(#"{"file":"a","operation":"reverse"}"#).range() == nil)
        for bad in ["-1", #""-1""#, #""soon""#, #""1:xx""#] {
            #expect(throws: DecodingError.self, "\(bad)") { try Self.job(#"{"file":"a","operation":"trim","start":\#(bad)}"#) }
        }
        let backwards = #expect(throws: HTTPError.self) { try Self.job(#"{"file":"a","operation":"trim","start":5,"end":2}"#).range() }
        #expect(backwards?.status == .badRequest)
        #expect(backwards?.body?.hasPrefix("start and end: ") == true, "\(backwards?.body ?? "")")
    }

    @Test("an input's title, for its output's name: a file's last component, an upload without its prefix, a URL's last component decoded")
    func jobInputTitles() {
        #expect(JobRequest.Input.file("sub/dir/x.flac").title == "x.flac")
        #expect(JobRequest.Input.result("r.wav").title == "r.wav")
        #expect(JobRequest.Input.upload("0a1b2c3d-my song.mp3").title == "my song.mp3")
        #expect(JobRequest.Input.upload("not-a-prefix.mp3").title == "not-a-prefix.mp3")
        #expect(JobRequest.Input.url("https://media.example.org/a/b%20c.mp3?x=1").title == "b c.mp3")
        #expect(JobRequest.Input.url("https://media.example.org/a/b.mp3").name == "https://media.example.org/a/b.mp3")
    }

    @Test("a job's status names every field, error as null until there is one")
    func jobStatusJSON() throws {
        let status = JobStatus(id: "1-abc", file: "a.wav", operation: "reverse", output: "a-REVERSED.wav", status: .running, fraction: 0.5, error: nil)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(status)) as? [String: Any])
        #expect(Set(object.keys) == ["id", "file", "operation", "output", "status", "fraction", "error"])
        #expect(object["error"] is NSNull)
        #expect(object["status"] as? String == "running" && object["fraction"] as? Double == 0.5)
    }

    // MARK: - UploadStore's names

    @Test("an upload's name made safe: its last component, odd characters as _, no leading dot, at most 100 bytes with its extension")
    func uploadSafeNames() {
        #expect(UploadStore.safeName("../../etc/passwd") == "passwd")
        #expect(UploadStore.safeName("C:\\music\\song.mp3") == "song.mp3")
        #expect(UploadStore.safeName(".hidden.wav") == "hidden.wav")
        #expect(UploadStore.safeName("a<b>|c.mp3") == "a_b__c.mp3")
        #expect(UploadStore.safeName("tab\there.mp3") == "tab_here.mp3")
        #expect(UploadStore.safeName("Été (live) & more.flac") == "Été (live) & more.flac")
        #expect(UploadStore.safeName("") == "upload")
        #expect(UploadStore.safeName("...") == "upload")
        #expect(UploadStore.safeName("dir/") == "dir")
        let long = UploadStore.safeName(String(repeating: "a", count: 300) + ".flac")
        #expect(long.utf8.count <= 100 && long.hasSuffix(".flac") && long.hasPrefix("aaa"))
    }

    @Test("an upload's title drops only the 8-hex-digit prefix the server adds")
    func uploadTitles() {
        #expect(UploadStore.title(of: "0a1b2c3d-song.mp3") == "song.mp3")
        #expect(UploadStore.title(of: "0a1b2c3g-song.mp3") == "0a1b2c3g-song.mp3")
        #expect(UploadStore.title(of: "0a1b2c3d_song.mp3") == "0a1b2c3d_song.mp3")
        #expect(UploadStore.title(of: "short") == "short")
    }

    @Test("a form's boundary and a part's file name, as browsers and curl write them")
    func uploadFormHeaders() {
        #expect(UploadStore.boundary(of: "multipart/form-data; boundary=----WebKitFormBoundaryX") == "----WebKitFormBoundaryX")
        #expect(UploadStore.boundary(of: "Multipart/Form-Data; charset=utf-8; boundary=\"a b\"") == "a b")
        #expect(UploadStore.boundary(of: "application/octet-stream") == nil)
        #expect(UploadStore.boundary(of: nil) == nil)
        #expect(UploadStore.fileName(inDisposition: #"form-data; name="file"; filename="my song.mp3""#) == "my song.mp3")
        #expect(UploadStore.fileName(inDisposition: #"form-data; name="file"; filename="x.mp3"; filename*=UTF-8''%C3%A9t%C3%A9.mp3"#) == "été.mp3")
        #expect(UploadStore.fileName(inDisposition: #"form-data; name="comment""#) == nil)
    }

    // MARK: - Page.mediaType and RequestGuard's address classes

    @Test("media types by extension, whatever its case; anything else is octet-stream")
    func mediaTypes() {
        let cases = ["x.html": "text/html; charset=utf-8", "x.MJS": "text/javascript; charset=utf-8", "x.css": "text/css; charset=utf-8",
                     "x.wav": "audio/wav", "x.Mp3": "audio/mpeg", "x.m4a": "audio/mp4", "x.opus": "audio/ogg", "x.mp4": "video/mp4",
                     "x.mkv": "video/x-matroska", "x.exe": "application/octet-stream", "noext": "application/octet-stream"]
        for (name, type) in cases { #expect(Page.mediaType(of: URL(fileURLWithPath: name)) == type, "\(name)") }
    }

    @Test("loopback and wildcard addresses as the guard classes them")
    func addressClasses() {
        for host in ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"] { #expect(RequestGuard.isLoopback(host), "\(host)") }
        for host in ["0.0.0.0", "::", "192.168.1.2", "example.org", "128.0.0.1"] { #expect(!RequestGuard.isLoopback(host), "\(host)") }
        for host in ["0.0.0.0", "::", "[::]"] { #expect(RequestGuard.isWildcard(host), "\(host)") }
        #expect(!RequestGuard.isWildcard("127.0.0.1"))
        let guarding = RequestGuard(host: "::1", port: 9000, token: nil)
        #expect(guarding.hosts == ["[::1]:9000", "localhost:9000", "127.0.0.1:9000"])
        #expect(RequestGuard(host: "0.0.0.0", port: 80, token: "t").hosts == nil)
        #expect(RequestGuard(host: "Box.Local", port: 80, token: nil).hosts == ["box.local:80"])
        #expect(RequestGuard(host: "127.0.0.1", port: 1234, token: nil).cookieName == "reverse_audio_token_1234")
    }
}
