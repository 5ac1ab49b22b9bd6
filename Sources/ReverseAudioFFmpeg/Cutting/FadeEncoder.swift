import FFmpeg
import Foundation

/// An encoder for the few packets of a copied cut that lie under a fade (``CutFades``): samples
/// in, each packet's bytes out, in order. The packets decode `initialPadding` samples behind
/// the samples fed (LAME's 576 and an MP3 decoder's 529; AAC's 1024), which the cuts use to put
/// them on the input's frame grid.
final class FadeEncoder {
    private let stream: EncodingStream
    private let channels: Int
    private let box = PacketBox()
    /// Samples the decode of the packets runs behind the samples fed.
    let initialPadding: Int

    /// Opens `settings`' encoder with its private `options`, for 32-bit float samples.
    init(_ settings: Encoder.Settings, options: [String: String], path: String) throws(FFmpegError) {
        let box = box
        stream = try EncodingStream(settings: settings, inputType: .float, options: options, path: path) { packet throws(FFmpegError) in
            box.packets.append(packet.bytes)
        }
        channels = settings.channelLayout.channelCount
        initialPadding = stream.encoder.initialPadding
        // Its queue of samples never matches its output at the end: it would say so at warning level.
        stream.encoder.demoteWarnings()
    }

    /// Encodes `samples` (interleaved) and returns the first `count` packets made (fewer only if
    /// the encoder makes fewer). Silence follows the samples until the encoder has made them,
    /// for as long as its padding and four packets more: the encoder is not drained, which
    /// would ask for packets of samples never given.
    func encode(_ samples: [Float], packets count: Int, samplesPerPacket: Int) throws -> [[UInt8]] {
        let given = samples.count / channels
        if given > 0 {
            try samples.withUnsafeBytes { bytes in try stream.append(bytes.baseAddress!, frames: given) }
        }
        let silence = [Float](repeating: 0, count: samplesPerPacket * channels)
        var added = 0
        while box.packets.count < count && added < initialPadding + 4 * samplesPerPacket {
            try silence.withUnsafeBytes { bytes in try stream.append(bytes.baseAddress!, frames: samplesPerPacket) }
            added += samplesPerPacket
        }
        return Array(box.packets.prefix(count))
    }

    /// The packets before a copied one under a fade-in: encoded from `samples` (the faded cut)
    /// so that they end at `boundary` (the first copied packet's start, in frames of the cut, on
    /// the input's packet grid) and their decode reaches back past the encoder's padding before the
    /// cut's start; and where their decode starts (frames of the cut, at most 0).
    func head(of samples: CutSamples, before boundary: Int64, samplesPerPacket: Int) throws -> (packets: [[UInt8]], start: Int64) {
        let size = Int64(samplesPerPacket)
        let padding = Int64(initialPadding)
        let count = (boundary + padding + size - 1) / size
        let start = boundary - count * size
        // Fed on past the boundary: the encoder looks ahead, and the last packet's overlap with the
        // first copied one should hold what follows.
        let fed = try samples.samples((start + padding)..<(boundary + 2 * size))
        return (try encode(fed, packets: Int(count), samplesPerPacket: samplesPerPacket), start)
    }

    /// The packets under a fade-out, from `boundary` (a packet start on the input's grid, in frames
    /// of the cut) to the cut's end, the encoder fed from `warmUp` packets earlier and those left
    /// out, so that the first kept one continues the copied signal; nil when the cut does not
    /// reach back so far.
    func tail(of samples: CutSamples, from boundary: Int64, warmUp: Int, samplesPerPacket: Int) throws -> [[UInt8]]? {
        let size = Int64(samplesPerPacket)
        let fedStart = boundary - Int64(warmUp) * size + Int64(initialPadding)
        guard fedStart >= 0 else { return nil }
        let count = Int((samples.count - boundary + size - 1) / size)
        let made = try encode(try samples.samples(fedStart..<samples.count), packets: warmUp + count, samplesPerPacket: samplesPerPacket)
        return Array(made.dropFirst(warmUp))
    }

    /// Holds the packets the encoder's callback collects.
    private final class PacketBox {
        var packets: [[UInt8]] = []
    }
}
