import Foundation
import Testing
import TestSupport
@testable import ReverseAudio

/// `.dat`/`.json` waveform data: byte for byte what BBC's audiowaveform writes (goldens made by
/// scripts/make-waveform-goldens), and every level equal to min/max computed here from the
/// ffmpeg CLI's 16-bit decode.
@Suite(.runsProcesses) struct WaveformDataTests {
    static let goldens = Fixtures.directory.appendingPathComponent("waveform-data")
    static let goldenInputs = ["wav-pcm_s16le-1ch-8000", "wav-pcm_s16le-2ch-44100", "wav-pcm_s16le-6ch-48000",
                               "wav-pcm_s24le-2ch-48000", "wav-pcm_u8-2ch-22050"]
    /// The golden zooms by file-name prefix: 1024 is built from 256's pixels in the same pass.
    static let goldenZooms: [(name: String, zoom: WaveformData.Zoom)] =
        [("z256", .samplesPerPixel(256)), ("z1024", .samplesPerPixel(1024)), ("pps50", .pixelsPerSecond(50))]

    @Test("equal to audiowaveform's own files, every zoom, 8 and 16 bits, mixed and split, .dat and .json",
          arguments: goldenInputs)
    func equalToAudiowaveform(_ input: String) throws {
        let directory = try TemporaryDirectory()
        for bits in [8, 16] {
            for split in [false, true] {
                for format in WaveformData.Format.allCases {
                    let names = Self.goldenZooms.map { "\($0.name)-b\(bits)-\(split ? "split" : "mixed").\(format.rawValue)" }
                    let outputs = zip(names, Self.goldenZooms).map { WaveformData.Output(directory.file($0), zoom: $1.zoom) }
                    try WaveformData.write(Fixtures.url("\(input).wav"), to: outputs, bits: bits, splitChannels: split)
                    for name in names {
                        let ours = try Data(contentsOf: directory.file(name))
                        let golden = try Data(contentsOf: Self.goldens.appendingPathComponent("\(input)/\(name)"))
                        #expect(ours == golden, "\(input)/\(name): \(ours.count) bytes, audiowaveform \(golden.count)")
                    }
                }
            }
        }
    }

    /// A `.dat` file read back: its header and its values (per pixel, per channel: min, max).
    struct DatFile {
        let version: Int32, flags: UInt32, sampleRate: Int32, samplesPerPixel: Int32, length: UInt32, channels: Int32
        let values: [Int]

        init(_ data: Data) throws {
            let bytes = [UInt8](data)
            func int32(_ offset: Int) -> UInt32 {
                UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
            }
            version = Int32(bitPattern: int32(0))
            flags = int32(4)
            sampleRate = Int32(bitPattern: int32(8))
            samplesPerPixel = Int32(bitPattern: int32(12))
            length = int32(16)
            channels = version == 2 ? Int32(bitPattern: int32(20)) : 1
            let body = bytes[(version == 2 ? 24 : 20)...]
            if flags & 1 != 0 {
                values = body.map { Int(Int8(bitPattern: $0)) }
            } else {
                values = stride(from: body.startIndex, to: body.endIndex, by: 2).map { Int(Int16(bitPattern: UInt16(body[$0]) | UInt16(body[$0 + 1]) << 8)) }
            }
        }
    }

    /// Min/max per pixel of `samplesPerPixel` frames, per output channel, computed the plain way.
    static func expected(_ samples: [Int16], channels: Int, samplesPerPixel: Int, split: Bool, bits: Int) -> [Int] {
        let frames = samples.count / channels
        var values: [Int] = []
        for start in stride(from: 0, to: frames, by: samplesPerPixel) {
            let end = min(frames, start + samplesPerPixel)
            let lanes = split ? Array(0..<channels).map { channel in (start..<end).map { Int(samples[$0 * channels + channel]) } }
                              : [(start..<end).map { frame in (0..<channels).reduce(0) { $0 + Int(samples[frame * channels + $1]) } / channels }]
            for lane in lanes {
                values += [lane.min()!, lane.max()!].map { bits == 8 ? $0 / 256 : $0 }
            }
        }
        return values
    }

    @Test("every zoom level of one pass equals min/max of the ffmpeg CLI's decode",
          arguments: ["mp3-cbr128-xing-2ch-44100.mp3", "flac-s16-6ch-48000.flac", "m4a-aac-1ch-22050.m4a",
                      "wav-pcm_f32le-2ch-44100.wav", "aiff-pcm_s24be-6ch-48000.aiff"])
    func equalToFFmpegDecode(_ input: String) async throws {
        let url = Fixtures.url(input)
        let samples = try await FFmpegOracle.samples(of: url)
        let probe = try await FFmpegOracle.probe(url).stream
        let channels = Int("\(probe["channels"] ?? 1)") ?? 1
        let rate = Int("\(probe["sample_rate"] ?? 0)") ?? 0
        let zooms = [256, 512, 1024, 2048, 4096, 300, 900]
        let directory = try TemporaryDirectory()
        for bits in [8, 16] {
            for split in [false, true] {
                let outputs = zooms.map { WaveformData.Output(directory.file("\($0).dat"), zoom: .samplesPerPixel($0)) }
                    + [WaveformData.Output(directory.file("512.json"), zoom: .samplesPerPixel(512))]
                let written = try WaveformData.write(url, to: outputs, bits: bits, splitChannels: split, overwrite: true, cancellation: nil)
                #expect(written.frames == Int64(samples.count / channels))
                for zoom in zooms {
                    let file = try DatFile(Data(contentsOf: directory.file("\(zoom).dat")))
                    let want = Self.expected(samples, channels: channels, samplesPerPixel: zoom, split: split, bits: bits)
                    let outChannels = split ? channels : 1
                    #expect(file.version == (outChannels == 1 ? 1 : 2) && file.channels == outChannels)
                    #expect(file.flags == (bits == 8 ? 1 : 0) && file.sampleRate == rate && file.samplesPerPixel == zoom)
                    #expect(Int(file.length) * 2 * outChannels == want.count)
                    #expect(file.values == want, "\(input) zoom \(zoom), \(bits) bits, split \(split)")
                }
                let json = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.file("512.json"))) as? [String: Any]
                #expect((json?["data"] as? [Int]) == Self.expected(samples, channels: channels, samplesPerPixel: 512, split: split, bits: bits))
                #expect((json?["bits"] as? Int) == bits && (json?["channels"] as? Int) == (split ? channels : 1))
            }
        }
    }

    @Test("the JSON keys come in audiowaveform's order, with no spaces")
    func jsonLayout() throws {
        let directory = try TemporaryDirectory()
        try WaveformData.write(Fixtures.url("wav-pcm_s16le-1ch-8000.wav"), to: [WaveformData.Output(directory.file("a.json"), zoom: .samplesPerPixel(4000))])
        let text = try String(contentsOf: directory.file("a.json"), encoding: .utf8)
        #expect(text.hasPrefix("{\"version\":2,\"channels\":1,\"sample_rate\":8000,\"samples_per_pixel\":4000,\"bits\":16,\"length\":"))
        #expect(text.hasSuffix("]}\n"))
    }

    @Test("an unknown extension, 12 bits, or fewer than 2 samples per pixel is refused and writes nothing")
    func refusals() throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url("wav-pcm_s16le-1ch-8000.wav")
        #expect(throws: ReverseAudioError.self) { try WaveformData.write(input, to: [WaveformData.Output(directory.file("a.txt"), zoom: .samplesPerPixel(256))]) }
        #expect(throws: ReverseAudioError.self) { try WaveformData.write(input, to: [WaveformData.Output(directory.file("a.dat"), zoom: .samplesPerPixel(256))], bits: 12) }
        #expect(throws: ReverseAudioError.self) { try WaveformData.write(input, to: [WaveformData.Output(directory.file("a.dat"), zoom: .pixelsPerSecond(5000))]) }
        #expect(directory.contents.isEmpty, "\(directory.contents)")
    }
}
