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

    /// Holds the packets the encoder's callback collects.
    private final class PacketBox {
        var packets: [[UInt8]] = []
    }
}
