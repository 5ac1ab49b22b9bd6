import FFmpeg
import Foundation
import ReverseAudioCore

/// The samples a copy of an AAC stream's packets decodes to when it starts at one packet with
/// a fresh decoder: what a faded cut's copied packets must give. The decoder's noise generator
/// (noise substitution) starts there in its first state, as in the cut, whose packets encoded
/// again before use none; so noise-substituted bands match too, which a decode of the input
/// from a restart before them (drawing noise for the pre-roll) would not.
final class CopiedPacketSamples {
    private let source: AudioInput
    private let loop: FrameDecoder
    private let reader: PacketReader
    private let frame: Frame
    private let packet: Packet
    private let channels: Int
    private let first: Int64
    private let cutStart: Int64
    /// Decoded and not yet taken: interleaved, from frame `pendingStart` of the cut.
    private var pending: [Float] = []
    private var pendingStart: Int64
    private var ended = false

    /// The packets of `input` from the one at timestamp `first`, as frames of a cut starting at
    /// timestamp `cutStart`.
    init(_ input: URL, first: Int64, cutStart: Int64, cancellation: CancellationFlag) throws {
        let source = try AudioInput(url: input, isCancelled: cancellation.check)
        self.source = source
        (loop, reader, frame, packet) = try mappingFFmpegErrors(path: source.path) {
            try source.demuxer.seek(stream: source.streamIndex, toTimestamp: first)
            let decoder = try Decoder(demuxer: source.demuxer, streamIndex: source.streamIndex)
            let reader = PacketReader(demuxer: source.demuxer, streamIndex: source.streamIndex, endsOnReadError: false)
            return (try FrameDecoder(decoder: decoder, reader: reader), reader, try Frame(), try Packet())
        }
        channels = source.parameters.channelCount
        self.first = first
        self.cutStart = cutStart
        pendingStart = first - cutStart
    }

    /// The interleaved samples of frames `frames` of the cut, which must follow the last asked for.
    func samples(_ frames: Range<Int64>) throws -> [Float] {
        while !ended && pendingStart + Int64(pending.count / channels) < frames.upperBound { try decodeNext() }
        let from = Int(max(0, frames.lowerBound - pendingStart)) * channels
        let to = min(pending.count, Int(max(0, frames.upperBound - pendingStart)) * channels)
        var result = from < to ? Array(pending[from..<to]) : []
        result += [Float](repeating: .nan, count: frames.count * channels - result.count)
        // Keep only what a later call may ask for.
        pending.removeFirst(min(pending.count, Int(max(0, frames.upperBound - pendingStart)) * channels))
        pendingStart = max(pendingStart, frames.upperBound)
        return result
    }

    private func decodeNext() throws {
        try mappingFFmpegErrors(path: source.path) {
            guard try reader.next(into: packet) else {
                ended = true
                return
            }
            guard let pts = packet.presentationTimestamp, pts >= first else { return }
            // All of each packet: no gapless trimming, and not the mark the MP4 demuxer puts on
            // packets wholly before the edit's start, whose decode the decoder would drop.
            packet.clearForCopy()
            try loop.decode(packet, into: frame) { decoded in
                var planes: [[UInt8]] = []
                decoded.appendSamples(to: &planes)
                let count = decoded.sampleCount
                    guard decoded.bytesPerSample == 4, planes.count == channels else { return }
                var interleaved = [Float](repeating: 0, count: count * channels)
                for (channel, plane) in planes.enumerated() {
                    plane.withUnsafeBytes { bytes in
                        let samples = bytes.bindMemory(to: Float.self)
                        for index in 0..<count { interleaved[index * channels + channel] = samples[index] }
                    }
                }
                pending += interleaved
            }
        }
    }
}
