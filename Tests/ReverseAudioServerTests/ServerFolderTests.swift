import Foundation
import Hummingbird
import NIOCore
import ReverseAudio
import ReverseAudioPlayback
import Testing
import TestSupport
@testable import ReverseAudioServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A served folder's files in process, on copies of the committed fixtures in a temporary
/// folder: every name that reaches outside the folder, or to no regular file, is refused with
/// the answer the API promises (404 telling nothing of the outside, 403 for a FIFO); a file
/// opened is read through its descriptor whatever its name becomes; the catalog's rows, the
/// uploads, the results and the jobs; and the virtual WAV, whose bytes are checked against the
/// fixtures' own (a canonical 16-bit WAV's header and data are exactly what it must give).
@Suite struct ServerFolderTests {
    /// A temporary folder holding `files` (a name in it → a fixture's name), subfolders made as needed.
    static func folder(_ files: [String: String]) throws -> TemporaryDirectory { try .holding(files) }

    static func media(_ folder: TemporaryDirectory) throws -> MediaFolder {
        try MediaFolder(root: folder.url, output: folder.file("Reversed"))
    }

    /// The status and message `work` is refused with; nil when it is not refused with an `HTTPError`.
    static func refusal(_ work: () throws -> Void) -> (status: Int, message: String)? {
        do {
            try work()
            return nil
        } catch let error as HTTPError {
            return (error.status.code, error.body ?? "")
        } catch {
            return nil
        }
    }

    /// The bytes of a RIFF file's `data` chunk.
    static func dataChunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var at = 12
        while at + 8 <= bytes.count {
            let size = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
            if bytes[at..<(at + 4)].elementsEqual("data".utf8) { return Array(bytes[(at + 8)..<min(bytes.count, at + 8 + size)]) }
            at += 8 + size + (size & 1)
        }
        throw ServerError.folder("no data chunk")
    }

    /// Frames of `bytesPerFrame` bytes in the opposite order.
    static func reversedFrames(_ data: [UInt8], bytesPerFrame: Int) -> [UInt8] {
        stride(from: data.count - bytesPerFrame, through: 0, by: -bytesPerFrame).flatMap { data[$0..<($0 + bytesPerFrame)] }
    }

    static func fixtureBytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Fixtures.url(name)))
    }

    // MARK: - MediaFolder and FolderFile

    @Test("a folder that is not one, or an output folder that is the folder itself, is refused with ServerError")
    func folderSettings() throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        #expect {
            try MediaFolder(root: folder.file("in.wav"), output: folder.file("out"))
        } throws: { error in
            guard case ServerError.folder(let reason) = error else { return false }
            return reason.hasSuffix("in.wav: not a folder")
        }
        #expect {
            try MediaFolder(root: folder.file("nowhere"), output: folder.file("out"))
        } throws: { error in
            if case ServerError.folder = error { return true }
            return false
        }
        #expect {
            try MediaFolder(root: folder.url, output: folder.url.appendingPathComponent("."))
        } throws: { error in
            guard case ServerError.setting(let reason) = error else { return false }
            return reason.contains("is the served folder itself")
        }
    }

    @Test("names with .. or an absolute path never leave the folder: 404, the same words whether the outside file exists or not")
    func folderTraversal() throws {
        let outside = try Self.folder(["secret.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav", "sub/a.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let media = try Self.media(folder)
        let up = "../" + outside.url.lastPathComponent
        for name in ["..", "../", "\(up)/secret.wav", "sub/../../\(outside.url.lastPathComponent)/secret.wav", "sub/../..",
                     outside.file("secret.wav").path, "/etc/passwd", "//in.wav", "./../in.wav"] {
            let refused = Self.refusal { _ = try media.open(name) }
            #expect(refused?.status == 404, "\(name): \(String(describing: refused))")
            #expect(refused?.message == "\(name): no such file", "\(name)")
        }
        let existing = Self.refusal { _ = try media.open("\(up)/secret.wav") }?.message
        let missing = Self.refusal { _ = try media.open("\(up)/nowhere.wav") }?.message
        #expect(existing?.replacingOccurrences(of: "secret", with: "X") == missing?.replacingOccurrences(of: "nowhere", with: "X"))
        // Inside, `..` and `.` are plain steps.
        #expect(try media.open("sub/../in.wav").name == "sub/../in.wav")
        #expect(try media.open("./sub//a.wav").key.size == 16044)
    }

    @Test("an empty name or one holding NUL is a bad request")
    func folderBadNames() throws {
        let media = try Self.media(try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"]))
        for name in ["", "in.wav\0.txt"] {
            let refused = Self.refusal { _ = try media.open(name) }
            #expect(refused?.status == 400 && refused?.message == "no file name", "\(String(describing: refused))")
        }
    }

    @Test("links: out of the folder (absolute, relative, to a device) refused as missing, inside followed, a loop refused")
    func folderLinks() throws {
        let outside = try Self.folder(["secret.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav", "sub/a.wav": "wav-pcm_s16le-2ch-44100.wav"])
        let links = [("abs-out.wav", outside.file("secret.wav").path),
                     ("rel-out.wav", "../\(outside.url.lastPathComponent)/secret.wav"),
                     ("outdir", outside.url.path),
                     ("null.wav", "/dev/null"),
                     ("loop-a.wav", "loop-b.wav"), ("loop-b.wav", "loop-a.wav"),
                     ("inside.wav", "in.wav"), ("abs-inside.wav", folder.file("sub/a.wav").path), ("subdir", "sub"),
                     ("sub/up.wav", "../in.wav")]
        for (name, target) in links {
            try FileManager.default.createSymbolicLink(atPath: folder.file(name).path, withDestinationPath: target)
        }
        let media = try Self.media(folder)
        for name in ["abs-out.wav", "rel-out.wav", "outdir/secret.wav", "null.wav", "loop-a.wav"] {
            let refused = Self.refusal { _ = try media.open(name) }
            #expect(refused?.status == 404 && refused?.message == "\(name): no such file", "\(name): \(String(describing: refused))")
        }
        #expect(try media.open("inside.wav").key.size == 16044)
        #expect(try media.open("abs-inside.wav").key.size == 88244)
        #expect(try media.open("subdir/a.wav").key.size == 88244)
        #expect(try media.open("sub/up.wav").key.size == 16044)
    }

    @Test("a FIFO is refused (403) without being opened for long; a folder given as a file is missing (404)")
    func folderNonRegularFiles() throws {
        let folder = try Self.folder(["sub/a.wav": "wav-pcm_s16le-1ch-8000.wav"])
        #expect(mkfifo(folder.file("pipe.wav").path, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder.file("to-pipe.wav").path, withDestinationPath: "pipe.wav")
        let media = try Self.media(folder)
        for name in ["pipe.wav", "to-pipe.wav"] {
            let refused = Self.refusal { _ = try media.open(name) }
            #expect(refused?.status == 403 && refused?.message == "\(name): not a regular file", "\(String(describing: refused))")
        }
        let folderAsFile = Self.refusal { _ = try media.open("sub") }
        #expect(folderAsFile?.status == 404 && folderAsFile?.message == "sub: no such file")
        // A path through a file, as if it were a folder.
        let throughFile = Self.refusal { _ = try media.open("sub/a.wav/x.wav") }
        #expect(throughFile?.status == 404)
    }

    @Test("the output folder's files are never folder files, nor listed; the list is the audio files by relative name")
    func folderOutputAndList() throws {
        let folder = try Self.folder(["b.wav": "wav-pcm_s16le-1ch-8000.wav", "sub/a c.flac": "flac-s16-2ch-44100.flac",
                                      "Reversed/done.wav": "wav-pcm_s16le-1ch-8000.wav", "notes.txt": "bad-empty.wav"])
        let media = try Self.media(folder)
        #expect(Set(media.names()) == ["b.wav", "sub/a c.flac"])
        let refused = Self.refusal { _ = try media.open("Reversed/done.wav") }
        #expect(refused?.status == 404)
        // A link to the output folder does not reach it either.
        try FileManager.default.createSymbolicLink(atPath: folder.file("out").path, withDestinationPath: "Reversed")
        #expect(Self.refusal { _ = try media.open("out/done.wav") }?.status == 404)
    }

    @Test("a file opened is read through its descriptor: replacing or moving its name afterwards changes nothing read")
    func folderFileKeepsItsFile() throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav", "other.wav": "wav-pcm_s16le-2ch-44100.wav"])
        let media = try Self.media(folder)
        let file = try media.open("in.wav")
        #expect(rename(folder.file("other.wav").path, folder.file("in.wav").path) == 0)
        let link = try file.url()
        #expect(link.lastPathComponent == "in.wav", "the link keeps the name's extension")
        #expect(link.path.hasPrefix(folder.url.path) == false)
        #expect(try [UInt8](Data(contentsOf: link)) == Self.fixtureBytes("wav-pcm_s16le-1ch-8000.wav"))
        #expect(try file.url() == link, "one link per file")
        #expect(file.naming("\(link.path): cannot read") == "in.wav: cannot read")
        // Opened again, the name is the new file.
        #expect(try media.open("in.wav").key.size == 88244 && file.key.size == 16044)
    }

    @Test("messages lose the server's own paths; statuses say what went wrong")
    func errorAnswers() throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let media = try Self.media(folder)
        let cases: [(ReverseAudioError, Int, String)] = [
            (.input(.fileNotFound(path: folder.file("sub/x.wav").path)), 404, "sub/x.wav: no such file"),
            (.input(.emptyFile(path: folder.file("e.wav").path)), 400, "e.wav: file is empty (0 bytes)"),
            (.output(.outputExists(path: folder.file("Reversed/o.wav").path)), 409, "o.wav: output already exists"),
            (.output(.outputIsInput(path: folder.file("Reversed/o.wav").path)), 409, "o.wav: output is an input of this command; refusing to overwrite it"),
            (.output(.writeFailed(path: folder.file("Reversed/o.wav").path, reason: "disk full")), 500, ""),
            (.range(.invalidRange(reason: "no")), 400, ""),
        ]
        for (error, status, message) in cases {
            let answer = try #require(media.answer(for: error) as? HTTPError)
            #expect(answer.status.code == status, "\(error)")
            #expect(!(answer.body ?? "").contains(folder.url.path), "\(answer.body ?? "")")
            if !message.isEmpty { #expect(answer.body == message) }
        }
        struct Unknown: Error {}
        let unknown = try #require(media.answer(for: Unknown()) as? HTTPError)
        #expect(unknown.status == .internalServerError && unknown.body == "the server could not do that")
        let given = HTTPError(HTTPResponse.Status(code: 418), message: "as it is")
        #expect((media.answer(for: given) as? HTTPError)?.status.code == 418)
    }

    // MARK: - VirtualWAV

    @Test("forwards, a canonical 16-bit WAV's virtual WAV is the file itself, byte for byte, read in any pieces",
          arguments: ["wav-pcm_s16le-1ch-8000.wav", "wav-pcm_s16le-2ch-44100.wav"])
    func virtualWAVIsTheFile(_ fixture: String) throws {
        let expected = try Self.fixtureBytes(fixture)
        let wav = try VirtualWAV(frames: DecodedFrames(url: Fixtures.url(fixture)), direction: .forward)
        #expect(wav.size == expected.count && wav.laps == 1)
        #expect(wav.header == Array(expected.prefix(44)))
        var read: [UInt8] = []
        // Pieces that cut the header and frames anywhere.
        let widths = [1, 43, 3, 1000, 7, VirtualWAV.pieceBytes]
        var turn = 0
        while read.count < expected.count {
            let end = min(read.count + widths[turn % widths.count], expected.count) - 1
            read += Array(buffer: try wav.bytes(read.count...end))
            turn += 1
        }
        #expect(read == expected)
    }

    @Test("backwards, the data is the file's frames last to first; the header is the same")
    func virtualWAVReversed() throws {
        let fixture = "wav-pcm_s16le-2ch-44100.wav"
        let file = try Self.fixtureBytes(fixture)
        let wav = try VirtualWAV(frames: DecodedFrames(url: Fixtures.url(fixture)), direction: .reverse)
        #expect(wav.header == Array(file.prefix(44)))
        let data = Array(buffer: try wav.bytes(44...(wav.size - 1)))
        #expect(data == Self.reversedFrames(Array(file.dropFirst(44)), bytesPerFrame: 4))
        // A range from the middle, not on a frame's edge.
        let middle = Array(buffer: try wav.bytes(1001...2002))
        #expect(middle == Array(data[(1001 - 44)...(2002 - 44)]))
    }

    @Test("an 8-bit file is served as 16-bit: the header's fields say so, the sizes are of 16-bit frames")
    func virtualWAVHeaderFields() throws {
        let wav = try VirtualWAV(frames: DecodedFrames(url: Fixtures.url("wav-pcm_u8-1ch-8000.wav")), direction: .forward)
        let header = wav.header
        func u32(_ at: Int) -> Int { Int(header[at]) | Int(header[at + 1]) << 8 | Int(header[at + 2]) << 16 | Int(header[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(header[at]) | Int(header[at + 1]) << 8 }
        #expect(header.count == 44)
        #expect(String(decoding: header[0..<4], as: UTF8.self) == "RIFF" && String(decoding: header[8..<16], as: UTF8.self) == "WAVEfmt ")
        #expect(u32(16) == 16 && u16(20) == 1)  // PCM
        #expect(u16(22) == 1 && u32(24) == 8000)  // channels, rate
        #expect(u32(28) == 16000 && u16(32) == 2 && u16(34) == 16)  // byte rate, block align, bits
        #expect(String(decoding: header[36..<40], as: UTF8.self) == "data")
        #expect(u32(40) == 8000 && u32(4) == 36 + 8000)  // 4000 frames of 2 bytes
        #expect(wav.size == 44 + 8000)
        // The first sample: u8 0x7f is -1 in 8 bits, -256 in 16.
        #expect(Array(buffer: try wav.bytes(44...45)) == [0x00, 0xff])
    }

    @Test("one frame: forwards and backwards alike; a range past the header only")
    func virtualWAVOneFrame() throws {
        let file = try Self.fixtureBytes("edge-one-frame.wav")
        for direction in [PlaybackDirection.forward, .reverse] {
            let wav = try VirtualWAV(frames: DecodedFrames(url: Fixtures.url("edge-one-frame.wav")), direction: direction)
            #expect(wav.size == 48)
            #expect(Array(buffer: try wav.bytes(0...47)) == file)
            #expect(Array(buffer: try wav.bytes(46...47)) == Array(file[46...47]))
            #expect(Array(buffer: try wav.bytes(0...43)) == Array(file[0...43]))
        }
    }

    @Test("looping: as many whole laps as a signed 32-bit size holds (the 2 GiB limit), the last frame followed by the first")
    func virtualWAVLooping() throws {
        let fixture = "wav-pcm_s16le-1ch-8000.wav"
        let file = try Self.fixtureBytes(fixture)
        let lap = file.count - 44
        let wav = try VirtualWAV(frames: DecodedFrames(url: Fixtures.url(fixture)), direction: .forward, looping: true)
        let header = wav.header
        let riff = Int(header[4]) | Int(header[5]) << 8 | Int(header[6]) << 16 | Int(header[7]) << 24
        let data = Int(header[40]) | Int(header[41]) << 8 | Int(header[42]) << 16 | Int(header[43]) << 24
        #expect(data % lap == 0 && data == wav.laps * lap && wav.size == 44 + data)
        #expect(riff == data + 36 && riff <= Int(Int32.max), "RIFF size \(riff) over a signed 32-bit size")
        #expect(riff + lap > Int(Int32.max), "one more lap would still have fitted")
        // Across the first lap's end: its last frames, then the first ones again.
        let seam = 44 + lap
        #expect(Array(buffer: try wav.bytes((seam - 4)...(seam + 3))) == Array(file.suffix(4)) + Array(file[44..<48]))
        // The very last bytes are the last lap's end.
        #expect(Array(buffer: try wav.bytes((wav.size - 6)...(wav.size - 1))) == Array(file.suffix(6)))
    }

    // MARK: - FileCatalog

    @Test("a row: the name asked by, the length, rate, channels, format by extension and codec; known only once described")
    func catalogRows() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav", "two.WAV": "wav-pcm_s16le-2ch-44100.wav"])
        try FileManager.default.createSymbolicLink(atPath: folder.file("alias.wav").path, withDestinationPath: "in.wav")
        let media = try Self.media(folder)
        let catalog = FileCatalog()
        let file = try media.open("in.wav")
        #expect(await catalog.known(file) == nil)
        let row = try await catalog.describe(file).get()
        #expect(row.name == "in.wav" && row.frames == 8000 && row.sampleRate == 8000 && row.channels == 1)
        #expect(row.duration == 1.0 && row.format == "wav" && row.codec == "pcm_s16le")
        #expect(await catalog.known(file)?.frames == 8000)
        // The same file by another name: the row under that name.
        #expect(await catalog.known(try media.open("alias.wav"))?.name == "alias.wav")
        let two = try await catalog.describe(try media.open("two.WAV")).get()
        #expect(two.frames == 22050 && two.channels == 2 && two.format == "wav" && two.duration == 0.5)
    }

    @Test("a file that is not audio is a failure with the library's reason, not a row")
    func catalogUnreadable() async throws {
        let folder = try Self.folder(["text.mp3": "bad-text.mp3", "empty.wav": "bad-empty.wav"])
        let media = try Self.media(folder)
        let catalog = FileCatalog()
        for name in ["text.mp3", "empty.wav"] {
            let file = try media.open(name)
            guard case .failure(let error) = await catalog.describe(file) else {
                Issue.record("\(name) was described")
                continue
            }
            let answer = try #require(media.answer(for: error, file: file) as? HTTPError)
            #expect(answer.status == .badRequest, "\(name): \(answer)")
            #expect(answer.body?.hasPrefix("\(name): ") == true, "\(answer.body ?? "")")
            #expect(await catalog.known(file) == nil)
        }
    }

    @Test("list rows as JSON: a row's fields; unreadable with the reason; pending; the format from the name")
    func catalogListJSON() throws {
        func object(_ row: FileCatalog.ListRow) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(row)) as? [String: Any])
        }
        let unreadable = try object(.unreadable(name: "sub/x.MP3", reason: "x: not audio"))
        #expect(unreadable["name"] as? String == "sub/x.MP3" && unreadable["format"] as? String == "mp3")
        #expect(unreadable["error"] as? String == "x: not audio" && unreadable.count == 3)
        let pending = try object(.pending(name: "y.flac"))
        #expect(pending["pending"] as? Bool == true && pending["format"] as? String == "flac" && pending.count == 3)
        let row = FileCatalog.Row(name: "a.wav", duration: 0.5, frames: 4000, sampleRate: 8000, channels: 1, format: "wav", codec: "pcm_s16le")
        let readable = try object(.readable(row))
        #expect(Set(readable.keys) == ["name", "duration", "frames", "sampleRate", "channels", "format", "codec"])
        #expect(readable["frames"] as? Int == 4000)
    }

    @Test("waveform levels: the floor keeps a waveform within 2^20 points; the ladder runs in powers of two to about 256 points")
    func catalogLevels() {
        let most = Int64(FileCatalog.maximumPixels)
        #expect(FileCatalog.minimumSamplesPerPixel(frames: 0) == 2)
        #expect(FileCatalog.minimumSamplesPerPixel(frames: 2 * most) == 2)
        #expect(FileCatalog.minimumSamplesPerPixel(frames: 2 * most + 1) == 3)
        #expect(FileCatalog.minimumSamplesPerPixel(frames: 60 * 44100) == 3)
        #expect(FileCatalog.ladder(frames: 8000) == [2, 4, 8, 16])
        #expect(FileCatalog.ladder(frames: 100) == [2])
        for frames: Int64 in [8000, 44100 * 60, 48000 * 3600] {
            let ladder = FileCatalog.ladder(frames: frames)
            #expect(ladder.allSatisfy { $0.nonzeroBitCount == 1 })
            let least = FileCatalog.minimumSamplesPerPixel(frames: frames)
            #expect(ladder.first! >= least && (ladder.first! == 2 || ladder.first! / 2 < least), "\(frames): \(ladder)")
            #expect(frames / Int64(ladder.last!) >= 256 && frames / Int64(ladder.last! * 2) < 256, "\(frames): \(ladder)")
        }
    }

    @Test("a waveform is audiowaveform's own bytes (the committed goldens), .dat and .json")
    func catalogWaveformGolden() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let media = try Self.media(folder)
        let catalog = FileCatalog()
        let golden = Fixtures.directory.appendingPathComponent("waveform-data/wav-pcm_s16le-1ch-8000")
        for format in [WaveformData.Format.dat, .json] {
            let bytes = try await catalog.waveform(of: try media.open("in.wav"), samplesPerPixel: 256, format: format)
            #expect(bytes == [UInt8](try Data(contentsOf: golden.appendingPathComponent("z256-b16-mixed.\(format.rawValue)"))), "\(format)")
        }
    }

    @Test("a waveform's parts start on the coarsest level's multiples and end at the file's end")
    func catalogParts() throws {
        #expect(try FileCatalog.Part.whole.range(frames: 8000, coarsest: 16) == nil)
        #expect(try FileCatalog.Part(index: 0, through: 3, count: 4).range(frames: 8000, coarsest: 16) == nil)
        let first = try #require(try FileCatalog.Part(index: 0, count: 3).range(frames: 8000, coarsest: 16))
        #expect(first.start == .frames(0) && first.end == .frames(2656))  // 8000/3 = 2666 → 2656
        let last = try #require(try FileCatalog.Part(index: 1, through: 2, count: 3).range(frames: 8000, coarsest: 16))
        #expect(last.start == .frames(2656) && last.end == .frames(8000))
    }

    // MARK: - UploadStore

    static func request(_ path: String, body: [UInt8], headers: HTTPFields = [:]) -> Request {
        var fields = headers
        fields[.contentLength] = "\(body.count)"
        return Request(head: HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:8080", path: path, headerFields: fields),
                       body: RequestBody(buffer: ByteBuffer(bytes: body)))
    }

    @Test("an upload is kept under a prefixed safe name, described, and opened by that name")
    func uploadReceived() async throws {
        let output = try TemporaryDirectory()
        let store = UploadStore(output: output.url, limit: 1 << 20, maximumAge: 3600)
        let bytes = try Self.fixtureBytes("wav-pcm_s16le-1ch-8000.wav")
        let upload = try await store.receive(Self.request("/api/uploads?name=../my%20song.wav", body: bytes))
        #expect(upload.title == "my song.wav" && upload.size == bytes.count && upload.kind == "audio" && upload.duration == 1.0)
        #expect(UploadStore.title(of: upload.name) == "my song.wav" && upload.name.count == 9 + "my song.wav".count)
        #expect(try [UInt8](Data(contentsOf: store.folder.appendingPathComponent(upload.name))) == bytes)
        #expect(try store.open(upload.name).key.size == Int64(bytes.count))
        // Nothing else is left in the uploads folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder.path) == [upload.name])
    }

    @Test("an upload refused leaves nothing: no name (400), empty (400), over the limit (413), not media (415)")
    func uploadRefused() async throws {
        let output = try TemporaryDirectory()
        let store = UploadStore(output: output.url, limit: 1000, maximumAge: 3600)
        let cases: [(Request, Int, String)] = [
            (Self.request("/api/uploads", body: [1, 2, 3]), 400, "an upload names its file"),
            (Self.request("/api/uploads?name=a.wav", body: []), 400, "the upload is empty (0 bytes)"),
            (Self.request("/api/uploads?name=a.wav", body: [UInt8](repeating: 0, count: 1001)), 413, "an upload may hold"),
            (Self.request("/api/uploads?name=a.mp3", body: Array("just some words, not audio at all".utf8)), 415, "a.mp3: not audio or video this tool reads"),
        ]
        for (request, status, start) in cases {
            do {
                _ = try await store.receive(request)
                Issue.record("\(request.uri) was taken")
            } catch let error as HTTPError {
                #expect(error.status.code == status, "\(request.uri): \(error)")
                #expect(error.body?.hasPrefix(start) == true, "\(error.body ?? "")")
            }
            let left = (try? FileManager.default.contentsOfDirectory(atPath: store.folder.path)) ?? []
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test("an upload's name never leaves the uploads folder: a slash, a dot, a link or a folder is no upload (404)")
    func uploadOpen() throws {
        let output = try TemporaryDirectory()
        let store = UploadStore(output: output.url, limit: 1 << 20, maximumAge: 1800)
        try FileManager.default.createDirectory(at: store.folder.appendingPathComponent("dir"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.url("wav-pcm_s16le-1ch-8000.wav"), to: store.folder.appendingPathComponent("0a1b2c3d-a.wav"))
        try FileManager.default.copyItem(at: Fixtures.url("wav-pcm_s16le-1ch-8000.wav"), to: output.file("beside.wav"))
        try FileManager.default.createSymbolicLink(atPath: store.folder.appendingPathComponent("link.wav").path, withDestinationPath: "0a1b2c3d-a.wav")
        #expect(try store.open("0a1b2c3d-a.wav").key.size == 16044)
        for name in ["", "../beside.wav", ".partial-x", "link.wav", "dir", "missing.wav", "a\0b"] {
            let refused = Self.refusal { _ = try store.open(name) }
            #expect(refused?.status == 404, "\(name): \(String(describing: refused))")
            #expect(refused?.message == "no upload \(name) (uploads are kept 30 minutes)")
        }
    }

    @Test("expiry removes the uploads older than the maximum age, and nothing else")
    func uploadExpiry() throws {
        let output = try TemporaryDirectory()
        let store = UploadStore(output: output.url, limit: 1 << 20, maximumAge: 3600)
        try FileManager.default.createDirectory(at: store.folder, withIntermediateDirectories: true)
        let now = Date()
        for (name, age) in [("old", 3700.0), ("fresh", 100.0), (".partial-old", 7200.0)] {
            let url = store.folder.appendingPathComponent(name)
            try Data([1]).write(to: url)
            try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-age)], ofItemAtPath: url.path)
        }
        try FileManager.default.createDirectory(at: store.folder.appendingPathComponent("keep-dir"), withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-9999)], ofItemAtPath: store.folder.appendingPathComponent("keep-dir").path)
        store.removeExpired(now: now)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder.path).sorted() == ["fresh", "keep-dir"])
    }

    // MARK: - ResultShelf

    @Test("results: none before the output folder exists; newest first, audio described, video by its name; hidden and non-media left out")
    func resultShelf() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let output = folder.file("Reversed")
        let shelf = ResultShelf(output: output)
        let catalog = FileCatalog()
        #expect(try await shelf.list(catalog: catalog).isEmpty)
        #expect(Self.refusal { _ = try shelf.open("a.wav") }?.message == "a.wav: no such result")
        try FileManager.default.createDirectory(at: output.appendingPathComponent(UploadStore.folderName), withIntermediateDirectories: true)
        let now = Date()
        for (name, fixture, age) in [("old.wav", "wav-pcm_s16le-1ch-8000.wav", 300.0), ("new.wav", "wav-pcm_s16le-2ch-44100.wav", 10.0),
                                     ("clip.mp4", "bad-text.mp3", 100.0), ("notes.txt", "bad-text.mp3", 1.0),
                                     (".partial.wav", "wav-pcm_s16le-1ch-8000.wav", 0.0),
                                     (".uploads/0a1b2c3d-u.wav", "wav-pcm_s16le-1ch-8000.wav", 0.0)] {
            let url = output.appendingPathComponent(name)
            try FileManager.default.copyItem(at: Fixtures.url(fixture), to: url)
            try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-age)], ofItemAtPath: url.path)
        }
        let rows = try await shelf.list(catalog: catalog)
        #expect(rows.map(\.name) == ["new.wav", "clip.mp4", "old.wav"])
        #expect(rows.map(\.kind) == ["audio", "video", "audio"])
        #expect(rows[0].frames == 22050 && rows[0].channels == 2 && rows[0].size == 88244 && rows[0].codec == "pcm_s16le")
        #expect(rows[1].duration == nil && rows[1].format == "mp4")
        #expect(try shelf.open("new.wav").key.size == 88244)
        for name in ["../in.wav", ".partial.wav", ".uploads/0a1b2c3d-u.wav", "sub/x.wav"] {
            #expect(Self.refusal { _ = try shelf.open(name) }?.status == 404, "\(name)")
        }
    }

    // MARK: - JobTable

    static func jobRequest(_ fields: [String: Any]) throws -> JobRequest {
        try JSONDecoder().decode(JobRequest.self, from: JSONSerialization.data(withJSONObject: fields))
    }

    @Test("a job refused before it starts: bad output names, settings, ranges, formats; nothing made in the output folder")
    func jobsRefused() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let media = try Self.media(folder)
        let jobs = JobTable(folder: media)
        let length = JobTable.AudioLength(frames: 8000, sampleRate: 8000)
        let cases: [([String: Any], Int, String)] = [
            (["operation": "reverse", "output": "../x.wav"], 400, "output: a plain file name"),
            (["operation": "reverse", "output": ".x.wav"], 400, "output: a plain file name"),
            (["operation": "reverse", "output": String(repeating: "x", count: 252) + ".wav"], 400, "output: a plain file name"),
            (["operation": "trim", "output": "t.wav"], 400, "trim needs start or end"),
            (["operation": "reverse", "output": "c.wav", "crf": 20], 400, "crf: 0 to 51, for the video jobs only"),
            (["operation": "boomerang", "output": "b.mp4", "crf": 52], 400, "crf: 0 to 51"),
            (["operation": "reverse-video", "output": "v.mp4", "start": 1], 400, "reverse-video takes the whole video"),
            (["operation": "reverse", "output": "x.xyz"], 400, "x.xyz"),
            (["operation": "trim", "output": "p.wav", "start": 0.5, "end": 3], 400, "in.wav"),
        ]
        for (fields, status, start) in cases {
            let request = try Self.jobRequest(fields.merging(["file": "in.wav"]) { a, _ in a })
            do {
                _ = try await jobs.start(request, input: .file(try media.open("in.wav")), inputName: "in.wav", title: "in.wav", length: length)
                Issue.record("\(fields) was started")
            } catch let error as HTTPError {
                #expect(error.status.code == status, "\(fields): \(error)")
                #expect(error.body?.hasPrefix(start) == true, "\(fields): \(error.body ?? "")")
                #expect(error.body?.contains(folder.url.path) == false, "\(error.body ?? "")")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: media.output.path), "a refused job made the output folder")
        for id in ["nope", "1-00000000"] {
            await #expect(throws: HTTPError.self) { try await jobs.status(of: id) }
            await #expect(throws: HTTPError.self) { try await jobs.result(of: id) }
            await #expect(throws: HTTPError.self) { try await jobs.cancel(id) }
            await #expect(throws: HTTPError.self) { try await jobs.events(of: id) }
        }
    }

    @Test("with no room for another unfinished job, a job is refused with 503")
    func jobsFull() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let media = try Self.media(folder)
        let jobs = JobTable(folder: media, unfinishedAtMost: 0)
        let request = try Self.jobRequest(["file": "in.wav", "operation": "reverse"])
        let error = await #expect(throws: HTTPError.self) {
            try await jobs.start(request, input: .file(try media.open("in.wav")), inputName: "in.wav", title: "in.wav", length: nil)
        }
        #expect(error?.status == .serviceUnavailable && error?.body == "0 jobs are unfinished already; try again when one ends")
    }

    @Test("a reverse job runs in process: progress never goes back, it ends done, the output is the frames reversed; names are not reused",
          .timeLimit(.minutes(2)))
    func jobRuns() async throws {
        let folder = try Self.folder(["in.wav": "wav-pcm_s16le-1ch-8000.wav"])
        let media = try Self.media(folder)
        let jobs = JobTable(folder: media)
        let request = try Self.jobRequest(["file": "in.wav", "operation": "reverse"])
        let started = try await jobs.start(request, input: .file(try media.open("in.wav")), inputName: "in.wav", title: "in.wav",
                                           length: .init(frames: 8000, sampleRate: 8000))
        #expect(started.status == .running && started.output == "in-REVERSED.wav" && started.file == "in.wav" && started.error == nil)
        var updates: [JobStatus] = []
        for await status in try await jobs.events(of: started.id) { updates.append(status) }
        let fractions = updates.map(\.fraction)
        #expect(fractions == fractions.sorted(), "\(fractions)")
        #expect(updates.last?.status == .done && updates.last?.fraction == 1, "\(updates)")
        #expect(try await jobs.status(of: started.id).status == .done)
        let output = try await jobs.result(of: started.id)
        #expect(output.path == media.output.appendingPathComponent("in-REVERSED.wav").path)
        let input = try Self.dataChunk(Self.fixtureBytes("wav-pcm_s16le-1ch-8000.wav"))
        #expect(try Self.dataChunk([UInt8](Data(contentsOf: output))) == Self.reversedFrames(input, bytesPerFrame: 2))
        // The same output again: taken; a request naming none gets the next free name.
        let again = try Self.jobRequest(["file": "in.wav", "operation": "reverse", "output": "in-REVERSED.wav"])
        let conflict = await #expect(throws: HTTPError.self) {
            try await jobs.start(again, input: .file(try media.open("in.wav")), inputName: "in.wav", title: "in.wav", length: nil)
        }
        #expect(conflict?.status == .conflict && conflict?.body == "in-REVERSED.wav: exists already in the output folder")
        let next = try await jobs.start(request, input: .file(try media.open("in.wav")), inputName: "in.wav", title: "in.wav", length: nil)
        #expect(next.output == "in-REVERSED-2.wav")
        await jobs.stopAll()
        // Events of a finished job: its status once, then the end.
        var finished: [JobStatus] = []
        for await status in try await jobs.events(of: started.id) { finished.append(status) }
        #expect(finished.count == 1 && finished.first?.status == .done)
    }
}
