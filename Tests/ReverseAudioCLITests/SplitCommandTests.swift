import Foundation
import Testing
import TestSupport

/// Issue 31, item 2 (first part): `split` by times, by a length and by a cue sheet. The gapless
/// test from the MP3-cutting literature: the pieces, decoded one after another, are exactly the
/// whole file's decode (ffmpeg's, each piece ending where its container says), for MP3 from lame
/// (CBR, VBR) and ffmpeg, M4A (AAC without noise substitution), FLAC and WAV; the manifest beside
/// them lists each piece's frames as ffmpeg decodes it.
@Suite("split", .runsProcesses)
struct SplitCommandTests {
    /// Twelve seconds of a noisy, music-like signal, in each format a split must keep gapless.
    static let kinds = ["lame -b 128", "lame -V5", "ffmpeg -q:a 5", "m4a", "flac", "wav"]

    /// `kind`'s file of 12 seconds in `folder`.
    static func make(_ kind: String, in folder: URL) async throws -> URL {
        if let mp3 = (MP3Classes.main + MP3Classes.more).first(where: { $0.name == kind }) {
            return try await MP3Classes.make(mp3, seconds: 12, in: folder)
        }
        let output = folder.appendingPathComponent("input.\(kind)")
        let codec: [String] = switch kind {
        case "m4a": ["-c:a", "aac", "-aac_pns", "0", "-b:a", "128k"]
        case "flac": ["-c:a", "flac"]
        default: ["-c:a", "pcm_s16le"]
        }
        let signal = "aevalsrc=exprs='0.3*sin(2*PI*(200*t+60*t*t))+0.1*(2*random(0)-1)|0.3*sin(2*PI*(700*t+20*t*t))':s=44100:d=12"
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", signal] + codec + [output.path])
        guard made.status == 0 else { throw FFmpegOracle.Failure(description: made.errorText) }
        return output
    }

    /// The pieces `split` wrote in `folder` (sorted by name), and its manifest.
    static func pieces(in folder: URL, extension ext: String) throws -> (files: [URL], manifest: [String: Any]) {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let files = names.filter { $0.hasSuffix("." + ext) }.map { folder.appendingPathComponent($0) }
        let manifestName = try #require(names.first { $0.hasSuffix("-pieces.json") }, "a manifest beside the pieces: \(names)")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(manifestName))) as? [String: Any])
        #expect(names.count == files.count + 1, "only the pieces and the manifest: \(names)")
        return (files, manifest)
    }

    @Test("--at and --every: the pieces decoded in order are the whole file's decode, sample for sample; each piece's length is ffmpeg's, mpg123's and SoX's",
          arguments: kinds)
    func gapless(_ kind: String) async throws {
        let folder = try TemporaryDirectory()
        let input = try await Self.make(kind, in: folder.url)
        let ext = input.pathExtension
        let whole = try await FFmpegOracle.samples(of: input)
        for (index, ways) in [["--at", "1.3,4.77,4.8,9"], ["--every", "2.5"], ["--at", "20000s"]].enumerated() {
            let out = folder.file("out\(index)")
            let result = try await CLI.run(["split", input.path, "-o", out.path] + ways + ["-q"])
            #expect(result.status == 0, "\(kind) \(ways): \(result.errorText)")
            let (files, manifest) = try Self.pieces(in: out, extension: ext)
            let expectedCount = [5, 5, 2][index]
            #expect(files.count == expectedCount, "\(kind) \(ways): \(files.map(\.lastPathComponent))")
            var joined: [Int16] = []
            let listed = manifest["pieces"] as? [[String: Any]] ?? []
            for (file, entry) in zip(files, listed) {
                let samples = try await FFmpegOracle.samples(of: file)
                #expect(entry["frames"] as? Int == samples.count / 2, "\(kind) \(file.lastPathComponent): the manifest's frames are ffmpeg's")
                // The other decoders agree on each piece's length: mpg123 (LAME tag) for MP3, SoX
                // for FLAC and WAV. (SoX's MP3 reader ignores LAME tags, a whole lame file's too;
                // it has no AAC reader.)
                let other: (String, [String])? = ext == "mp3" ? ("mpg123", ["-q", "-s", "-e", "s16", file.path])
                    : ["flac", "wav"].contains(ext) ? ("sox", [file.path, "-t", "s16", "-"]) : nil
                if let (tool, arguments) = other {
                    let decoded = try await ProcessRunner.run(tool, arguments)
                    #expect(decoded.standardOutput.count / 4 == samples.count / 2,
                            "\(kind) \(file.lastPathComponent): \(tool) decodes \(decoded.standardOutput.count / 4) frames, ffmpeg \(samples.count / 2)")
                }
                #expect(entry["file"] as? String == file.lastPathComponent)
                joined += samples
            }
            #expect(joined.count == whole.count, "\(kind) \(ways): \(joined.count / 2) frames in the pieces, \(whole.count / 2) in the file")
            #expect(joined == whole, "\(kind) \(ways): the pieces together differ from the whole")
        }
    }

    /// A sheet of three tracks, the second starting at 2 s (frame 150 of 75 a second), the third at 7.5 s.
    static let sheet = """
        REM GENRE Test
        PERFORMER "The Band"
        TITLE "Album"
        FILE "input.wav" WAVE
          TRACK 01 AUDIO
            TITLE "Intro"
            INDEX 01 00:00:00
          TRACK 02 AUDIO
            TITLE "Café Noir"
            PERFORMER "Guest"
            INDEX 00 00:01:50
            INDEX 01 00:02:00
          TRACK 03 AUDIO
            TITLE "Out/ro"
            INDEX 01 00:07:37

        """

    @Test("--cue: pieces named NN - TITLE at each INDEX 01 (UTF-8, with a BOM and CRLF, or Latin-1), gapless, the manifest naming titles and performers",
          arguments: ["utf8", "bom-crlf", "latin1"])
    func cueSheet(_ encoding: String) async throws {
        let folder = try TemporaryDirectory()
        let input = try await Self.make("wav", in: folder.url)
        var data: Data
        switch encoding {
        case "bom-crlf": data = Data([0xEF, 0xBB, 0xBF]) + Data(Self.sheet.replacingOccurrences(of: "\n", with: "\r\n").utf8)
        case "latin1": data = try #require(Self.sheet.data(using: .isoLatin1))
        default: data = Data(Self.sheet.utf8)
        }
        let cue = folder.file("album.cue")
        try data.write(to: cue)
        let out = folder.file("Tracks")
        let result = try await CLI.run(["split", input.path, "-o", out.path, "--cue", cue.path, "-q"])
        #expect(result.status == 0, "\(encoding): \(result.errorText)")
        let (files, manifest) = try Self.pieces(in: out, extension: "wav")
        #expect(files.map(\.lastPathComponent) == ["01 - Intro.wav", "02 - Café Noir.wav", "03 - Out_ro.wav"], "\(encoding)")
        let whole = try await FFmpegOracle.samples(of: input)
        let lengths = try await files.asyncMap { try await FFmpegOracle.samples(of: $0).count / 2 }
        // 2 s and 7 s + 37/75 s at 44.1 kHz: frames 88200 and 330456.
        #expect(lengths == [88200, 330456 - 88200, whole.count / 2 - 330456], "\(encoding): \(lengths)")
        let listed = manifest["pieces"] as? [[String: Any]] ?? []
        #expect(listed.map { $0["title"] as? String } == ["Intro", "Café Noir", "Out/ro"])
        #expect(listed.map { $0["performer"] as? String } == ["The Band", "Guest", "The Band"])
    }

    @Test("every piece keeps the input's tags and gets its track number, and a cue sheet's title, performer and album: copied MP3, edit-listed M4A, encoded FLAC",
          arguments: ["mp3", "m4a", "flac"])
    func tags(_ ext: String) async throws {
        let folder = try TemporaryDirectory()
        let input = folder.file("tagged.\(ext)")
        let codec: [String] = switch ext {
        case "mp3": ["-c:a", "libmp3lame", "-b:a", "128k"]
        case "m4a": ["-c:a", "aac", "-aac_pns", "0"]
        default: ["-c:a", "flac"]
        }
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=9",
                                                    "-metadata", "comment=kept", "-metadata", "album=Original", "-metadata", "title=Whole"]
                                         + codec + [input.path])
        #expect(made.status == 0, "\(made.errorText)")
        let cue = folder.file("album.cue")
        try Data(Self.sheet.utf8).write(to: cue)
        let out = folder.file("Tracks")
        let result = try await CLI.run(["split", input.path, "-o", out.path, "--cue", cue.path, "-q", "--verbose"].filter { $0 != "-q" })
        #expect(result.status == 0, "\(ext): \(result.errorText)")
        if ext != "flac" { #expect(result.outputText.contains("copied"), "\(ext): the pieces are copied: \(result.outputText)") }
        let (files, _) = try Self.pieces(in: out, extension: ext)
        #expect(files.count == 3)
        for (index, file) in files.enumerated() {
            let format = try await FFmpegOracle.probe(file).format
            var tags: [String: String] = [:]
            for (key, value) in format["tags"] as? [String: String] ?? [:] { tags[key.lowercased()] = value }
            let track = tags["track"] ?? tags["tracknumber"] ?? ""
            #expect(track.hasPrefix("\(index + 1)"), "\(ext) piece \(index + 1): track \(track) in \(tags)")
            #expect(tags["title"] == ["Intro", "Café Noir", "Out/ro"][index], "\(ext) piece \(index + 1): \(tags)")
            #expect(tags["artist"] == ["The Band", "Guest", "The Band"][index], "\(ext) piece \(index + 1): \(tags)")
            #expect(tags["album"] == "Album", "\(ext): the sheet's album title: \(tags)")
            #expect((tags["comment"] ?? tags["description"]) == "kept", "\(ext): the input's other tags are kept: \(tags)")
        }
    }

    /// `wav` encoded as `book.EXT` (M4B and MP3: AAC and MP3; Matroska: FLAC) with three chapters:
    /// One (0 to 3 s), Two (3 s to 7.25 s), Three (7.25 s to 12 s).
    static func book(_ ext: String, from wav: URL, in folder: TemporaryDirectory) async throws -> URL {
        let metadata = folder.file("chapters.txt")
        try Data(";FFMETADATA1\ntitle=Book\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=3000\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=3000\nEND=7250\ntitle=Two\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=7250\nEND=12000\ntitle=Three\n".utf8)
            .write(to: metadata)
        let input = folder.file("book.\(ext)")
        let codec: [String] = switch ext {
        case "m4b": ["-c:a", "aac", "-aac_pns", "0"]
        case "mp3": ["-c:a", "libmp3lame", "-b:a", "128k"]
        default: ["-c:a", "flac"]
        }
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", wav.path, "-i", metadata.path, "-map_metadata", "1",
                                                    "-map_chapters", "1", "-map", "0:a"] + codec + [input.path])
        guard made.status == 0 else { throw FFmpegOracle.Failure(description: made.errorText) }
        return input
    }

    @Test("--chapters: pieces at each chapter (M4B, MP3 with ID3v2 CHAP frames, FLAC in Matroska into .flac), named NN - TITLE, titled and numbered, gapless",
          arguments: ["m4b", "mp3", "mka"])
    func chapters(_ ext: String) async throws {
        let folder = try TemporaryDirectory()
        let wav = try await Self.make("wav", in: folder.url)
        let input = try await Self.book(ext, from: wav, in: folder)
        let out = folder.file("Chapters")
        let result = try await CLI.run(["split", input.path, "-o", out.path, "--chapters", "-q"])
        #expect(result.status == 0, "\(ext): \(result.errorText)")
        let pieceExtension = ext == "mka" ? "flac" : ext
        let (files, _) = try Self.pieces(in: out, extension: pieceExtension)
        #expect(files.map(\.lastPathComponent) == ["01 - One", "02 - Two", "03 - Three"].map { $0 + "." + pieceExtension }, "\(ext)")
        let whole = try await FFmpegOracle.samples(of: input)
        var joined: [Int16] = []
        for (index, file) in files.enumerated() {
            let samples = try await FFmpegOracle.samples(of: file)
            joined += samples
            if ext != "mp3" || index == 0 {
                // The chapters' starts (ms): the pieces' lengths, where the decode's output starts at the file's start.
                let expected = [132300, 187425, 209475][index]
                if index < 2 { #expect(samples.count / 2 == expected, "\(ext) piece \(index + 1): \(samples.count / 2) frames") }
            }
            var tags: [String: String] = [:]
            for (key, value) in try await FFmpegOracle.probe(file).format["tags"] as? [String: String] ?? [:] { tags[key.lowercased()] = value }
            #expect(tags["title"] == ["One", "Two", "Three"][index], "\(ext): \(tags)")
            #expect((tags["track"] ?? tags["tracknumber"] ?? "").hasPrefix("\(index + 1)"), "\(ext): \(tags)")
        }
        #expect(joined == whole, "\(ext): the pieces together differ from the whole (\(joined.count / 2) and \(whole.count / 2) frames)")
        let none = try await CLI.run(["split", wav.path, "-o", folder.file("none").path, "--chapters"])
        #expect(none.status != 0 && none.errorText.contains("has no chapters"), "\(none.errorText)")
    }

    @Test("trim keeps the chapters inside its range, cut to it and shifted to its start (MP3's ID3v2 CHAP, MP4's chapters; copied and re-encoded)",
          arguments: [("m4b", false), ("mp3", false), ("mp3", true)])
    func trimKeepsChapters(_ ext: String, _ reencode: Bool) async throws {
        let folder = try TemporaryDirectory()
        let input = try await Self.book(ext, from: try Self.make("wav", in: folder.url), in: folder)
        let cut = folder.file("cut.\(ext)")
        let result = try await CLI.run(["trim", input.path, cut.path, "--start", "4", "--end", "9", "-q"] + (reencode ? ["--reencode"] : []))
        #expect(result.status == 0, "\(result.errorText)")
        let probe = try await ProcessRunner.run("ffprobe", ["-v", "error", "-show_chapters", "-print_format", "json", cut.path])
        let chapters = (try JSONSerialization.jsonObject(with: probe.standardOutput) as? [String: Any])?["chapters"] as? [[String: Any]] ?? []
        let found = chapters.map { chapter in
            ((chapter["tags"] as? [String: String])?["title"] ?? "", Double(chapter["start_time"] as? String ?? "") ?? -1,
             Double(chapter["end_time"] as? String ?? "") ?? -1)
        }
        // Chapter Two (3 s to 7.25 s) and Three (7.25 s to 12 s) overlap 4 s to 9 s: 0 to 3.25 s and 3.25 s to 5 s.
        #expect(found.map(\.0) == ["Two", "Three"], "\(ext): \(found)")
        if found.count == 2 {
            #expect(abs(found[0].1) < 0.002 && abs(found[0].2 - 3.25) < 0.002 && abs(found[1].1 - 3.25) < 0.002 && abs(found[1].2 - 5) < 0.002,
                    "\(ext): \(found)")
        }
    }

    /// The chapters ffprobe reads in `url`: title, start and end in seconds.
    static func probedChapters(_ url: URL) async throws -> [(title: String, start: Double, end: Double)] {
        let probe = try await ProcessRunner.run("ffprobe", ["-v", "error", "-show_chapters", "-print_format", "json", url.path])
        let chapters = (try JSONSerialization.jsonObject(with: probe.standardOutput) as? [String: Any])?["chapters"] as? [[String: Any]] ?? []
        return chapters.map { chapter in
            ((chapter["tags"] as? [String: String])?["title"] ?? "", Double(chapter["start_time"] as? String ?? "") ?? -1,
             Double(chapter["end_time"] as? String ?? "") ?? -1)
        }
    }

    @Test("join and compose --chapters: one chapter per file piece (M4B, MP3 with ID3v2 CHAP), at its place, titled by its title tag or name; silence in none; a container without chapters refused, nothing written",
          arguments: ["m4b", "mp3"])
    func chaptersPerPiece(_ ext: String) async throws {
        let folder = try TemporaryDirectory()
        // 2 s titled "Opening" (a tag), 1.5 s untitled (its name), joined with a 0.5 s gap.
        let first = folder.file("first.wav")
        let second = folder.file("Second Part.wav")
        for (file, seconds, title) in [(first, 2.0, "Opening"), (second, 1.5, "")] {
            let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=\(seconds):r=44100"]
                                             + (title.isEmpty ? [] : ["-metadata", "title=\(title)"]) + ["-c:a", "pcm_s16le", file.path])
            try #require(made.status == 0, "\(made.errorText)")
        }
        let joined = folder.file("book.\(ext)")
        let join = try await CLI.run(["join", first.path, second.path, "-o", joined.path, "--gap", "0.5", "--chapters", "-q"])
        try #require(join.status == 0, "\(ext): \(join.errorText)")
        let found = try await Self.probedChapters(joined)
        #expect(found.map(\.title) == ["Opening", "Second Part"], "\(ext): \(found)")
        // MP4's chapter track has no gaps: there a chapter lasts until the next starts.
        let gapless = ext == "m4b"
        if found.count == 2 {
            #expect(abs(found[0].start) < 0.002 && abs(found[0].end - (gapless ? 2.5 : 2)) < 0.002 && abs(found[1].start - 2.5) < 0.002
                    && abs(found[1].end - 4) < 0.002, "\(ext): \(found)")
        }
        // A plan: a part, silence, a reversed file.
        let plan = folder.file("plan.txt")
        try "first.wav 0.5 1.5\nsilence 1\n\"Second Part.wav\" reverse\n".write(to: plan, atomically: true, encoding: .utf8)
        let composed = folder.file("plan.\(ext)")
        let compose = try await CLI.run(["compose", plan.path, "-o", composed.path, "--chapters", "-q"])
        try #require(compose.status == 0, "\(ext): \(compose.errorText)")
        let planned = try await Self.probedChapters(composed)
        #expect(planned.map(\.title) == ["Opening", "Second Part (reversed)"], "\(ext): \(planned)")
        if planned.count == 2 {
            #expect(abs(planned[0].end - (gapless ? 2 : 1)) < 0.002 && abs(planned[1].start - 2) < 0.002 && abs(planned[1].end - 3.5) < 0.002,
                    "\(ext): \(planned)")
        }
        // Without --chapters, none.
        let plain = folder.file("plain.\(ext)")
        #expect(try await CLI.run(["join", first.path, second.path, "-o", plain.path, "-q"]).status == 0)
        #expect(try await Self.probedChapters(plain).isEmpty, "\(ext)")
        // FLAC holds none FFmpeg writes: refused before anything is written.
        let flac = folder.file("book.flac")
        let refused = try await CLI.run(["join", first.path, second.path, "-o", flac.path, "--chapters"])
        #expect(refused.status != 0 && refused.errorText.contains("holds no chapters") && refused.errorText.contains(".m4b"), "\(refused.errorText)")
        #expect(!FileManager.default.fileExists(atPath: flac.path))
    }

    @Test("a batch: files and a folder split side by side (--jobs 2), each into a folder of its own named after it (subfolders kept), gapless; a bad file fails alone (exit 1); --cue with several files refused")
    func batch() async throws {
        let folder = try TemporaryDirectory()
        let library = folder.file("Library")
        try FileManager.default.createDirectory(at: library.appendingPathComponent("live"), withIntermediateDirectories: true)
        let mp3 = try await Self.make("lame -V5", in: folder.url)
        let flac = try await Self.make("flac", in: folder.url)
        try FileManager.default.moveItem(at: mp3, to: library.appendingPathComponent("song.mp3"))
        try FileManager.default.moveItem(at: flac, to: library.appendingPathComponent("live/take.flac"))
        let wav = try await Self.make("wav", in: folder.url)
        let broken = folder.file("broken.mp3")
        try Data("not audio at all".utf8).write(to: broken)
        let out = folder.file("Pieces")
        let result = try await CLI.run(["split", library.path, wav.path, broken.path, "-o", out.path, "--every", "5", "--jobs", "2", "--json"])
        #expect(result.status == 1, "\(result.status): \(result.errorText)")
        #expect(result.errorText.contains("broken.mp3") && result.errorText.contains("split 3 of 4 files into 9 pieces"), "\(result.errorText)")
        let lines = result.outputText.split(separator: "\n").compactMap { try? jsonObject(String($0)) }
        #expect(lines.count == 9, "\(result.outputText)")
        for (file, subfolder, stem, ext) in [(library.appendingPathComponent("song.mp3"), "song", "song", "mp3"),
                                             (library.appendingPathComponent("live/take.flac"), "live/take", "take", "flac"),
                                             (wav, "input", "input", "wav")] {
            let (pieces, _) = try Self.pieces(in: out.appendingPathComponent(subfolder), extension: ext)
            #expect(pieces.map(\.lastPathComponent) == (1...3).map { "\(stem)-0\($0).\(ext)" }, "\(subfolder): \(pieces)")
            var joined: [Int16] = []
            for piece in pieces { await joined += try FFmpegOracle.samples(of: piece) }
            await #expect(joined == (try FFmpegOracle.samples(of: file)), "\(subfolder): the pieces together differ from the whole")
        }
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("broken").path), "the failed file's folder is removed")
        let cue = folder.file("sheet.cue")
        try "FILE \"x.wav\" WAVE\n  TRACK 01 AUDIO\n    INDEX 01 00:00:00\n".write(to: cue, atomically: true, encoding: .utf8)
        let refused = try await CLI.run(["split", wav.path, library.path, "-o", folder.file("cued").path, "--cue", cue.path])
        #expect(refused.status == 64 && refused.errorText.contains("--cue is one file's sheet"), "\(refused.errorText)")
    }

    @Test("--silence: split in the middle of each silence long and deep enough, as mp3splt -s; none found is an error that leaves nothing")
    func silence() async throws {
        let folder = try TemporaryDirectory()
        let input = folder.file("takes.wav")
        // 2 s tone, 1 s silence, 1.5 s tone, 0.2 s silence, 2 s tone, 0.8 s silence, 1 s tone.
        let graph = "sine=f=300:d=2,apad=pad_dur=1[a];sine=f=500:d=1.5,apad=pad_dur=0.2[b];sine=f=700:d=2,apad=pad_dur=0.8[c];sine=f=900:d=1[d];[a][b][c][d]concat=n=4:v=0:a=1"
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", graph, "-ar", "44100", "-c:a", "pcm_s16le", input.path])
        #expect(made.status == 0, "\(made.errorText)")
        let out = folder.file("out")
        let result = try await CLI.run(["split", input.path, "-o", out.path, "--silence", "-48:0.5", "-q"])
        #expect(result.status == 0, "\(result.errorText)")
        let (files, _) = try Self.pieces(in: out, extension: "wav")
        let lengths = try await files.asyncMap { try await FFmpegOracle.samples(of: $0).count }
        // Silences from 2 s to 3 s and from 6.7 s to 7.5 s: cuts near 2.5 s and 7.1 s (the 0.2 s one is too short).
        #expect(lengths.count == 3, "\(lengths)")
        if lengths.count == 3 {
            #expect(abs(lengths[0] - 110250) < 300, "\(lengths)")
            #expect(abs(lengths[0] + lengths[1] - 313110) < 300, "\(lengths)")
        }
        await #expect(lengths.reduce(0, +) == (try FFmpegOracle.samples(of: input)).count)
        let none = try await CLI.run(["split", input.path, "-o", folder.file("none").path, "--silence", "-48:5"])
        #expect(none.status != 0 && none.errorText.contains("no silence"), "\(none.errorText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("none").path))
        let bad = try await CLI.run(["split", input.path, "-o", folder.file("bad").path, "--silence", "48"])
        #expect(bad.status == 64, "\(bad.errorText)")
    }

    @Test("bad cue sheets and times are one-line errors that leave no piece: a track past the end, tracks out of order, no track, two FILE lines, times that do not increase, two ways at once")
    func refusals() async throws {
        let folder = try TemporaryDirectory()
        let input = try await Self.make("flac", in: folder.url)
        let cases: [(String?, [String], String)] = [
            ("FILE \"a.flac\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nINDEX 01 00:30:00\n", [], "past the end"),
            ("TRACK 01 AUDIO\nINDEX 01 00:05:00\nTRACK 02 AUDIO\nINDEX 01 00:02:00\n", [], "out of order"),
            ("REM nothing here\n", [], "no TRACK"),
            ("FILE a.wav WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\nFILE b.wav WAVE\nTRACK 02 AUDIO\nINDEX 01 00:01:00\n", [], "a second FILE"),
            ("TRACK 01 AUDIO\nINDEX 01 00:00:80\n", [], "not a cue time"),
            (nil, ["--at", "3,2"], "not after"),
            (nil, ["--at", "13"], "not inside"),
            (nil, ["--at", "3", "--every", "2"], "one of --at, --every, --cue, --chapters or --silence"),
        ]
        for (index, (sheet, options, message)) in cases.enumerated() {
            var arguments = ["split", input.path, "-o", folder.file("out\(index)").path] + options
            if let sheet {
                let cue = folder.file("bad\(index).cue")
                try Data(sheet.utf8).write(to: cue)
                arguments += ["--cue", cue.path]
            }
            let result = try await CLI.run(arguments)
            #expect(result.status != 0 && result.errorText.contains(message), "\(message): \(result.status) \(result.errorText)")
            #expect(result.errorText.split(separator: "\n").first?.hasPrefix("reverse-audio: error:") == true, "\(result.errorText)")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.file("out\(index)").path)) ?? []
            #expect(left.isEmpty, "\(message): left \(left)")
        }
    }

    @Test("--name: a template with the number, the title and the performer; names that collide are refused")
    func template() async throws {
        let folder = try TemporaryDirectory()
        let input = try await Self.make("wav", in: folder.url)
        let out = folder.file("parts")
        let result = try await CLI.run(["split", input.path, "-o", out.path, "--every", "5", "--name", "part %n of %t (100%%)", "-q"])
        #expect(result.status == 0, "\(result.errorText)")
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == ["input-pieces.json", "part 01 of input (100%).wav", "part 02 of input (100%).wav", "part 03 of input (100%).wav"], "\(names)")
        let clash = try await CLI.run(["split", input.path, "-o", folder.file("clash").path, "--every", "5", "--name", "same"])
        #expect(clash.status == 64 && clash.errorText.contains("the same name"), "\(clash.status) \(clash.errorText)")
    }
}
