import Foundation
import Testing
import TestSupport

/// An M4A whose edit list has two edits (a splice: the second second of its media left out).
/// FFmpeg's mov demuxer joins them, so output positions are no longer packet timestamps: a range
/// after the splice was decoded from the wrong place, and a lossless `trim` said "copied" and
/// wrote other audio (issue 28, item 8). The oracle: `ffmpeg -i F -f s16le -`, cut at the
/// stated end (``LengthOracle``), sliced as `atrim` slices it.
@Suite(.runsProcesses) struct EditListSpliceTests {
    static let name = "edge-m4a-two-edits-nopns.m4a"

    /// Ranges before, across and after the splice at 1 s (8000 frames), in frames.
    static let ranges: [Range<Int>] = [1600..<6400, 7200..<8800, 9600..<14400]

    @Test("convert --start --end gives the oracle's slice", arguments: ranges)
    func rangeDecode(_ range: Range<Int>) async throws {
        let oracle = try await LengthOracle(Fixtures.url(Self.name))
        let directory = try TemporaryDirectory()
        let output = directory.file("range.wav")
        let result = try await CLI.run(["convert", Fixtures.url(Self.name).path, output.path, "--start", "\(range.lowerBound)s",
                                  "--end", "\(range.upperBound)s", "--progress", "none"])
        try #require(result.status == 0, "\(result.errorText)")
        let written = try await FFmpegOracle.samples(of: output)
        let expected = oracle.slice(range)
        let same = written == expected
        #expect(same, "\(range): \(written.count) samples, \(expected.count) expected, RMS of the difference \(LengthOracle.rms(difference: written, from: expected))")
    }

    @Test("trim copies a range exactly, or encodes it again and says so: never other audio", arguments: ranges)
    func trimKeepsTheRange(_ range: Range<Int>) async throws {
        let oracle = try await LengthOracle(Fixtures.url(Self.name))
        let directory = try TemporaryDirectory()
        let cut = directory.file("cut.m4a")
        let result = try await CLI.run(["trim", Fixtures.url(Self.name).path, cut.path, "--start", "\(range.lowerBound)s",
                                  "--end", "\(range.upperBound)s", "--verbose"])
        try #require(result.status == 0, "\(result.errorText)")
        let decoded = try await LengthOracle(cut)
        let expected = oracle.slice(range)
        #expect(decoded.frames == range.count, "\(range): the cut decodes to \(decoded.summary)")
        if result.errorText.contains("copied") {
            let same = decoded.samples == expected
            #expect(same, "\(range): a copied cut that is not the range")
        } else {
            #expect(result.warningReports.contains { $0.contains("re-encoded") }, "\(range): \(result.errorText)")
            if decoded.samples.count == expected.count {
                // Encoded again: close to the range (AAC at 24 kb/s), far from any shifted copy of it.
                let rms = LengthOracle.rms(difference: decoded.samples, from: expected)
                #expect(rms.difference <= 0.25 * rms.signal, "\(range): RMS of the difference \(rms.difference), of the signal \(rms.signal)")
            }
        }
    }
}
