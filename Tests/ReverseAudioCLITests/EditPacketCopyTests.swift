import Foundation
import Testing
import TestSupport

/// Cuts of AAC in MP4 without re-encoding, checked with ffmpeg and by reading the edit list, and
/// what happens to lossy inputs that cannot be cut that way (re-encoded once, and said so).
@Suite(.runsProcesses) struct EditPacketCopyTests {
    /// What an MP4's movie header and single track say about time.
    struct EditList {
        let movieTimescale: Int64
        /// (segment_duration, media_time) of each edit.
        let edits: [(duration: Int64, mediaTime: Int64)]
    }

    /// Reads `moov/mvhd` and `moov/trak/edts/elst` of `url` straight from its boxes.
    static func editList(_ url: URL) throws -> EditList {
        let data = [UInt8](try Data(contentsOf: url))
        func integer(_ offset: Int, _ width: Int) -> Int64 {
            data[offset..<(offset + width)].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        }
        func boxes(_ range: Range<Int>) -> [(type: String, payload: Range<Int>)] {
            var found: [(type: String, payload: Range<Int>)] = []
            var position = range.lowerBound
            while position + 8 <= range.upperBound {
                var size = Int(integer(position, 4))
                var header = 8
                if size == 1 { size = Int(integer(position + 8, 8)); header = 16 }
                if size == 0 { size = range.upperBound - position }
                guard size >= header, position + size <= range.upperBound else { break }
                found.append((String(decoding: data[(position + 4)..<(position + 8)], as: UTF8.self), (position + header)..<(position + size)))
                position += size
            }
            return found
        }
        func child(_ type: String, in range: Range<Int>) throws -> Range<Int> {
            try #require(boxes(range).first { $0.type == type }?.payload, "no \(type) box in \(url.lastPathComponent)")
        }
        let moov = try child("moov", in: 0..<data.count)
        let mvhd = try child("mvhd", in: moov)
        let timescale = integer(mvhd.lowerBound + (data[mvhd.lowerBound] == 1 ? 20 : 12), 4)
        let elst = try child("elst", in: child("edts", in: child("trak", in: moov)))
        let version = data[elst.lowerBound]
        let count = Int(integer(elst.lowerBound + 4, 4))
        let width = version == 1 ? 8 : 4
        let edits = (0..<count).map { index in
            let entry = elst.lowerBound + 8 + index * (2 * width + 4)
            return (integer(entry, width), integer(entry + width, width))
        }
        return EditList(movieTimescale: timescale, edits: edits)
    }

    /// The largest difference between `ours` and `slice` over the slice, with `ours` shifted by `shift` frames.
    static func difference(_ ours: [Int16], _ slice: [Int16], channels: Int, shift: Int = 0) -> Int {
        var largest = 0
        for index in slice.indices {
            let other = index + shift * channels
            guard other >= 0 && other < ours.count else { continue }
            largest = max(largest, abs(Int(ours[other]) - Int(slice[index])))
        }
        return largest
    }

    @Test("AAC in MP4: the packets are copied byte for byte, the edit list states exactly [A, B) in samples, and the decode starts at A",
          arguments: ["m4a-aac-nopns-2ch-44100.m4a", "m4a-aac-2ch-44100.m4a", "m4a-aac-faststart-2ch-44100.m4a",
                      "m4a-aac-1ch-22050.m4a", "m4a-aac-6ch-48000.m4a", "m4r-aac-2ch-48000.m4r"])
    func m4aPacketCopy(_ name: String) async throws {
        let input = Fixtures.url(name)
        let stream = try await FFmpegOracle.probe(input).stream
        let channels = stream["channels"] as? Int ?? 1
        let rate = Int64(stream["sample_rate"] as? String ?? "") ?? 0
        let full = try await FFmpegOracle.samples(of: input)
        let frames = full.count / channels
        let source = try await EditCommandTests.packetHashes(input)
        let directory = try TemporaryDirectory()
        // The start (the encoder's priming is in the pre-roll), 1 frame at a packet's start, the middle, the end.
        let packetStart = (frames / 3) / 1024 * 1024
        for (a, b) in [(0, 2000), (packetStart, packetStart + 1), (frames / 2 - 5000, frames / 2 + 5000), (frames - 3000, frames)] {
            let output = directory.file("cut-\(a).\(input.pathExtension)")
            let result = try await CLI.run(["trim", input.path, output.path, "--start", "\(a)s", "--end", "\(b)s", "--verbose"])
            #expect(result.status == 0 && result.warningReports.isEmpty, "\(name) \(a)..<\(b): \(result.errorText)")
            #expect(result.errorText.contains("copied") && result.errorText.contains("edit list"), "\(name) \(a)..<\(b): \(result.errorText)")

            // The edit: one entry of exactly B − A samples, in a movie timescale of the sample rate.
            let edit = try Self.editList(output)
            #expect(edit.movieTimescale == rate && edit.edits.count == 1 && edit.edits.first?.duration == Int64(b - a),
                    "\(name) \(a)..<\(b): \(edit)")
            #expect(try await FFmpegOracle.probe(output).stream["duration_ts"] as? Int == b - a, "\(name) \(a)..<\(b): ffprobe's duration")

            // Byte for byte the input's packets, in order.
            await #expect(EditCommandTests.holds(source, try EditCommandTests.packetHashes(output)),
                    "\(name) \(a)..<\(b): the packets are the input's, byte for byte")

            // FFmpeg 5.1 starts at the edit's start exactly but decodes the last packet whole.
            let ours = try await FFmpegOracle.samples(of: output)
            let slice = Array(full[(a * channels)..<(b * channels)])
            try #require(ours.count >= slice.count, "\(name) \(a)..<\(b): \(ours.count / channels) frames decoded")
            let error = Self.difference(ours, slice, channels: channels)
            if name.contains("nopns") {
                #expect(error == 0, "\(name) \(a)..<\(b): differs by \(error)")
            } else {
                // Noise substitution draws from a generator only a continuous decode has: the
                // noise-filled bands differ (measured ≤ 566 of 32768 on these fixtures).
                #expect(error <= 1024, "\(name) \(a)..<\(b): differs by \(error)")
                if b - a >= 2000 {
                    let shifted = min(Self.difference(ours, slice, channels: channels, shift: 1),
                                      Self.difference(ours, slice, channels: channels, shift: -1))
                    #expect(error < shifted, "\(name) \(a)..<\(b): a frame off fits better (\(shifted) < \(error))")
                }
            }
        }
    }

    @Test("AAC in MP4 whose edit list starts with an empty edit: copied cuts are the decode's slices (issue 28, item 2)")
    func m4aEmptyEditFirst() async throws {
        let name = "edge-m4a-empty-edit-first.m4a"
        let input = Fixtures.url(name)
        let full = try await FFmpegOracle.samples(of: input)
        let frames = full.count / 2
        let directory = try TemporaryDirectory()
        // The start in seconds as the issue cut it (`--start 0 --end 1` of a longer file), the
        // start, a packet's start, the middle, the end.
        let packetStart = (frames / 3) / 1024 * 1024
        for (start, end) in [("0", "0.5"), ("0s", "2000s"), ("\(packetStart)s", "\(packetStart + 1)s"),
                             ("\(frames / 2 - 5000)s", "\(frames / 2 + 5000)s"), ("\(frames - 3000)s", "\(frames)s")] {
            let output = directory.file("cut.m4a")
            let label = "\(name) \(start)..<\(end)"
            let result = try await CLI.run(["trim", input.path, output.path, "--start", start, "--end", end, "-y", "--verbose"])
            #expect(directory.contents == ["cut.m4a"], "\(label): left \(directory.contents)")
            try #require(result.status == 0, "\(label): \(result.errorText)")
            #expect(result.errorText.contains("copied") && result.errorText.contains("edit list"), "\(label): \(result.errorText)")
            let a = start == "0" ? 0 : Int(start.dropLast())!
            let b = end == "0.5" ? 22050 : Int(end.dropLast())!
            #expect(try await FFmpegOracle.probe(output).stream["duration_ts"] as? Int == b - a, "\(label): ffprobe's duration")
            // FFmpeg 5.1 starts at the edit's start exactly but decodes the last packet whole.
            let ours = try await FFmpegOracle.samples(of: output, honouringStatedEnd: false)
            let slice = Array(full[(a * 2)..<(b * 2)])
            try #require(ours.count >= slice.count, "\(label): \(ours.count / 2) frames decoded")
            let error = Self.difference(ours, slice, channels: 2)
            #expect(error == 0, "\(label): differs by \(error)")
        }
    }

    @Test("a cut FFmpeg 5.1 would misread (inside one AAC packet, shorter than its offset in it) is re-encoded, and says why",
          arguments: [false, true])
    func m4aInsideOnePacket(_ atTheEnd: Bool) async throws {
        let input = Fixtures.url("m4a-aac-nopns-2ch-44100.m4a")
        let frames = try await FFmpegOracle.samples(of: input).count / 2
        let directory = try TemporaryDirectory()
        let output = directory.file("short.m4a")
        let range = atTheEnd ? ["--start", "\(frames - 1)s"] : ["--start", "\(frames / 2 / 1024 * 1024 + 700)s", "--duration", "100s"]
        let result = try await CLI.run(["trim", input.path, output.path, "--verbose"] + range)
        #expect(result.status == 0, "\(result.errorText)")
        #expect(result.warningReports.first?.contains("re-encoded: generation loss") == true
                    && result.errorText.contains("inside one AAC packet"), "\(result.errorText)")
        #expect(try await FFmpegOracle.probe(output).stream["codec_name"] as? String == "aac")
    }

    @Test("lossy inputs that cannot be copied are re-encoded once, with the warning and the reason",
          arguments: [
            (["trim", "adts-aac-2ch-44100.aac", "out.aac", "--start", "1000s", "--end", "9000s"], "ADTS"),
            (["trim", "m4a-aac-2ch-44100.m4a", "out.m4a", "--start", "1000s", "--end", "9000s", "--reencode"], "re-encoding was asked for"),
            (["trim", "m4a-aac-2ch-44100.m4a", "out.m4a", "--end", "9000s", "--pad-start", "100s"], "silence"),
            (["join", "m4a-aac-2ch-44100.m4a", "m4a-aac-faststart-2ch-44100.m4a", "-o", "out.m4a"], "join"),
            (["join", "mp3-cbr128-xing-2ch-44100.mp3", "mp3-vbrq4-xing-2ch-44100.mp3", "-o", "out.mp3"], "join"),
          ])
    func reencoded(_ arguments: [String], reason: String) async throws {
        let directory = try TemporaryDirectory()
        let resolved = arguments.map { $0.contains("-2ch-") ? Fixtures.url($0).path : $0.hasPrefix("out.") ? directory.file($0).path : $0 }
        let result = try await CLI.run(resolved + ["--verbose"])
        #expect(result.status == 0, "\(arguments): \(result.errorText)")
        #expect(result.warningReports.count == 1 && result.warningReports[0].contains("re-encoded: generation loss")
                    && result.warningReports[0].contains(reason), "\(arguments): \(result.errorText)")
        #expect(result.errorLines.contains { $0.hasPrefix("  piece ") && $0.hasSuffix(": re-encoded: generation loss") },
                "\(arguments): \(result.errorText)")
        let output = URL(fileURLWithPath: try #require(resolved.first { $0.hasPrefix(directory.url.path) }))
        let decoded = try await FFmpegOracle.samples(of: output).count / 2
        var joined = 0
        for piece in resolved.dropFirst().prefix(2) { joined += try await FFmpegOracle.samples(of: URL(fileURLWithPath: piece)).count / 2 }
        let expected = arguments[0] == "join" ? joined : (arguments.contains("--pad-start") ? 9100 : 8000)
        // One encoder's priming and padding: within one AAC/MP3 frame of the pieces' length.
        #expect(abs(decoded - expected) <= 2 * 1152, "\(arguments): \(decoded) frames, expected about \(expected)")
    }
}
