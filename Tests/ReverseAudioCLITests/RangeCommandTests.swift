import Foundation
import Testing
import TestSupport

/// `convert --start/--end/--duration`, against `ffmpeg -af atrim=start_sample=A:end_sample=B`.
@Suite(.runsProcesses) struct RangeCommandTests {
    @Test("a range, forwards or reversed, in any time form, equals atrim (and areverse)",
          arguments: ["mp3-vbrq4-xing-2ch-44100.mp3", "flac-s24-2ch-96000.flac", "m4a-alac-2ch-44100.m4a", "wav-pcm_u8-2ch-22050.wav"])
    func range(_ name: String) async throws {
        let input = Fixtures.url(name)
        let rate = await Int(try FFmpegOracle.probe(input).stream["sample_rate"] as? String ?? "") ?? 0
        let directory = try TemporaryDirectory()
        // 0.05 s to 0.15 s, written three ways; a frame is round(seconds × rate).
        let start = Int((0.05 * Double(rate)).rounded())
        let end = start + Int((0.1 * Double(rate)).rounded())
        let forms: [[String]] = [["--start", "\(start)s", "--end", "\(end)s"], ["--start", "0.05", "--duration", "0.1"],
                                 ["--start", "0:00.05", "--end", "00:00:00.15"]]
        for (index, form) in forms.enumerated() {
            for reverse in [false, true] {
                let output = directory.file("out\(index)\(reverse).wav")
                let result = try await CLI.convert(input, output, reverse: reverse, form)
                #expect(result.status == 0, "\(form): \(result.errorText)")
                // A complete file's range decodes to what it should hold: nothing to warn about
                // (but that the default 16 bits narrow a 24-bit input, which is said).
                #expect(result.warningReports.allSatisfy { $0.contains("--sample-format native") }, "\(form): \(result.errorText)")
                let filter = "atrim=start_sample=\(start):end_sample=\(end)" + (reverse ? ",areverse" : "")
                #expect(try await FFmpegOracle.samples(of: output) == FFmpegOracle.samples(of: input, ["-af", filter]),
                        "\(name) \(form) reverse=\(reverse)")
            }
        }
    }

    @Test("an empty range, one past the end, or --end with --duration is a one-line error; nothing is written")
    func badRanges() async throws {
        let input = Fixtures.url("flac-s16-2ch-44100.flac")  // 0.5 s
        let directory = try TemporaryDirectory()
        for options in [["--start", "0.3", "--end", "0.2"], ["--start", "2"], ["--start", "0.1", "--end", "0.2", "--duration", "1"],
                        ["--start", "-1"], ["--start", "1:75"]] {
            let result = try await CLI.convert(input, directory.file("out.wav"), reverse: false, options)
            #expect(result.status != 0, "\(options)")
            #expect(result.errorLines.first?.hasPrefix("reverse-audio: error: ") == true, "\(options): \(result.errorText)")
        }
        #expect(directory.contents.isEmpty)
    }
}
