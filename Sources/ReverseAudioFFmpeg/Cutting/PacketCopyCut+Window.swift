import FFmpeg
import Foundation
import ReverseAudioCore

extension PacketCopyCut {
    /// The packets around the cut's start, read once: the frames whose main-data areas may
    /// hold the reservoir the first kept frames need, those frames, and the ones a check decodes.
    struct Window {
        let source: AudioInput
        let packets: [Int: Packet]
        let frames: [Int: MPEGAudioFrame]
        /// Where a decode as exact as the continuous one can start for each frame: the
        /// worst-case reservoir reach before it (a seek's rule), for the check.
        let restart: (Int) -> Int

        /// The bit rate of frames encoded like these: their own when they all have one.
        var rate: MP3FadeFrames.Rate { MP3FadeFrames.rate(like: frames.values.map(\.header)) }

        init(_ source: AudioInput, index: PacketIndex, holding: Int, last: Int, cancellation: CancellationFlag) throws {
            let entries = index.entries
            let traits = source.traits
            let restart = { (holding: Int) in traits.restartPacket(holding: holding) { entries[$0].size } }
            // Back: the reference decode for the earliest first frame a retry may try, and 64
            // frames (the reservoir reaches at most 511 bytes back: 10 frames of the smallest kind).
            let earliest = max(0, holding - 2 - PacketCopyCut.retries - 2)
            let low = max(0, min(restart(earliest), holding - 64))
            // Forward: a frame's data can begin at most 511 bytes before it, so 32 frames on
            // are past any reach into the first frames; and the frames a check decodes.
            let high = min(last, holding + 32)
            var packets: [Int: Packet] = [:]
            var frames: [Int: MPEGAudioFrame] = [:]
            try mappingFFmpegErrors(path: source.path) {
                try source.demuxer.seek(toByte: entries[low].position)
                let reader = PacketReader(demuxer: source.demuxer, streamIndex: source.streamIndex, endsOnReadError: false)
                var next = low
                let packet = try Packet()
                while next <= high, try reader.next(into: packet) {
                    if cancellation.isCancelled { throw CancellationError() }
                    guard let position = packet.filePosition, position >= entries[next].position else { continue }
                    guard position == entries[next].position else {
                        throw ReverseAudioError.input(.decodingFailed(path: source.path, reason: "the frames moved while reading them"))
                    }
                    let kept = try Packet()
                    try kept.reference(packet)
                    try kept.setSkipSamples(start: 0, end: 0)
                    packets[next] = kept
                    if let frame = kept.withBytes({ MPEGAudioFrame(bytes: $0) }), frame.header.frameSize == kept.size {
                        frames[next] = frame
                    }
                    next += 1
                }
            }
            self.source = source
            self.packets = packets
            self.frames = frames
            self.restart = restart
        }
    }
}

extension PacketCopyCut.Window {
    /// Decodes `packets` in order with a fresh decoder of the stream (no gapless trimming):
    /// each channel's samples as bytes.
    func decode(_ packets: [Packet]) throws -> (channels: [[UInt8]], bytesPerSample: Int) {
        try mappingFFmpegErrors(path: source.path) {
            let decoder = try Decoder(demuxer: source.demuxer, streamIndex: source.streamIndex)
            let loop = try FrameDecoder(decoder: decoder, reader: PacketReader(demuxer: source.demuxer, streamIndex: source.streamIndex))
            let frame = try Frame()
            var channels: [[UInt8]] = []
            var size = 0
            let collect = { (decoded: Frame) in
                size = decoded.bytesPerSample
                decoded.appendSamples(to: &channels)
            }
            // FFmpeg's errors are mapped to the file's by mappingFFmpegErrors; any other passes as it is.
            for packet in packets { try loop.decode(packet, into: frame, deliver: collect) }
            try loop.drain(into: frame, deliver: collect)
            return (channels, size)
        }
    }
}
