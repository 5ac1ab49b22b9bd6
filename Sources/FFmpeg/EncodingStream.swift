import CFFmpeg

/// One encoded audio stream: interleaved samples in, packets out (to a muxer's stream, or to
/// whoever takes them: a cut that re-encodes only the frames under a fade).
///
/// Samples are converted to the encoder's own format (planar, or another sample type) by
/// swresample when they differ, queued until the encoder has a whole frame, encoded, and the
/// packets written to the muxer. The last frame may be short (every encoder we use accepts it).
package final class EncodingStream {
    package let encoder: Encoder
    private let settings: Encoder.Settings
    private let globalHeader: Bool
    /// Takes each packet the encoder gives, in order.
    private var deliver: (Packet) throws(FFmpegError) -> Void = { _ throws(FFmpegError) in }
    private let path: String
    private let inputFormat: AudioFormat
    private let fifo: AudioFIFO
    private let frame: Frame
    private let packet: Packet
    private var converter: OpaquePointer?
    private var conversionBuffer: Frame?
    private var samplesSent: Int64 = 0
    /// libmp3lame's last packet, held back until the end: FFmpeg's MP3 muxer takes the LAME tag's
    /// end padding from its skip-samples side data, which FFmpeg 5.1's wrapper gets wrong for a
    /// stream shorter than its delay and a frame (1168 samples decode to 1199, with the ffmpeg
    /// CLI too); it is restated from the packets made and the samples sent.
    private var heldBack: Packet?
    private var packetsMade: Int64 = 0

    /// Opens `settings`' encoder for `muxer` and adds its stream.
    /// - Parameter inputType: the type of the interleaved samples ``append(_:frames:)`` takes
    ///   (at the settings' rate and layout).
    package convenience init(muxer: Muxer, settings: Encoder.Settings, inputType: SampleType, path: String) throws(FFmpegError) {
        try self.init(settings: settings, inputType: inputType, globalHeader: muxer.needsGlobalHeader, path: path)
        let streamIndex = try muxer.addStream(for: encoder)
        deliver = { packet throws(FFmpegError) in try muxer.write(packet, stream: streamIndex) }
    }

    /// Opens `settings`' encoder, its packets handed to `deliver` (each valid only during the call).
    /// - Parameter options: the encoder's private options (libmp3lame's `["reservoir": "0"]`).
    package convenience init(settings: Encoder.Settings, inputType: SampleType, options: [String: String], path: String,
                             deliver: @escaping (Packet) throws(FFmpegError) -> Void) throws(FFmpegError) {
        try self.init(settings: settings, inputType: inputType, globalHeader: false, options: options, path: path)
        self.deliver = deliver
    }

    private init(settings: Encoder.Settings, inputType: SampleType, globalHeader: Bool, options: [String: String] = [:],
                 path: String) throws(FFmpegError) {
        self.path = path
        self.settings = settings
        self.globalHeader = globalHeader
        encoder = try Encoder(settings, globalHeader: globalHeader, path: path, options: options)
        inputFormat = AudioFormat(sampleFormat: inputType.packed, sampleRate: Int32(settings.sampleRate),
                                  channelLayout: settings.channelLayout)
        let target = encoder.frameFormat
        fifo = try AudioFIFO(format: target.sampleFormat, channelCount: target.channelLayout.channelCount)
        frame = try Frame()
        packet = try Packet()
        if target.sampleFormat != inputFormat.sampleFormat {
            // Only the sample format changes: the same layout on both sides, so nothing is remixed.
            var inLayout = target.channelLayout.layout
            var outLayout = target.channelLayout.layout
            var allocated: OpaquePointer?
            let made = swr_alloc_set_opts2(&allocated, &outLayout, target.sampleFormat, target.sampleRate,
                                           &inLayout, inputFormat.sampleFormat, inputFormat.sampleRate, 0, nil)
            if made < 0 || swr_init(allocated) < 0 {
                swr_free(&allocated)
                throw FFmpegError(code: made < 0 ? made : ra_averror_einval(),
                                  operation: "preparing samples for the \(settings.codecName) encoder", path: path)
            }
            converter = allocated
            conversionBuffer = try Frame()
        }
    }

    deinit { swr_free(&converter) }

    /// Encodes `frames` interleaved frames and writes whatever packets are ready.
    package func append(_ bytes: UnsafeRawPointer, frames: Int) throws(FFmpegError) {
        guard frames > 0 else { return }
        var planes: [UnsafeMutablePointer<UInt8>?] = [UnsafeMutablePointer(mutating: bytes.assumingMemoryBound(to: UInt8.self))]
        if let converter, let buffer = conversionBuffer {
            try buffer.allocate(format: encoder.frameFormat, samples: frames)
            let converted = planes.withUnsafeMutableBufferPointer { input in
                input.baseAddress!.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 1) { source in
                    swr_convert(converter, buffer.pointer.pointee.extended_data, Int32(frames), source, Int32(frames))
                }
            }
            try FFmpegError.check(converted, "preparing samples for the encoder", path: path)
            try fifo.write(buffer.pointer.pointee.extended_data, frames: Int(converted))
        } else {
            try planes.withUnsafeMutableBufferPointer { input throws(FFmpegError) in
                try fifo.write(input.baseAddress!, frames: frames)
            }
        }
        try encodeQueued(final: false)
    }

    /// Encodes what is queued (a short last frame included), drains the encoder, and writes
    /// the packets. The muxer's trailer is the caller's.
    package func finish() throws(FFmpegError) {
        try encodeQueued(final: true)
        try encoder.send(nil)
        try writeReadyPackets()
        if let last = heldBack {
            let padding = packetsMade * Int64(encoder.frameSize) - Int64(encoder.initialPadding) - samplesSent
            if padding >= 0 { try last.setSkipSamples(start: last.skipSamples.start, end: Int(padding)) }
            heldBack = nil
            try deliver(last)
        }
    }

    private func encodeQueued(final: Bool) throws(FFmpegError) {
        let size = encoder.frameSize
        while fifo.count > 0 && (size == 0 || fifo.count >= size || final) {
            let count = size == 0 ? fifo.count : min(size, fifo.count)
            try frame.allocate(format: encoder.frameFormat, samples: count)
            _ = try fifo.read(into: frame, frames: count)
            frame.pointer.pointee.pts = samplesSent
            samplesSent += Int64(count)
            if final && count < Self.smallestCompressedALACFrame && encoder.isALAC {
                try encodeVerbatim(frame)
                continue
            }
            try encoder.send(frame)
            try writeReadyPackets()
        }
    }

    /// FFmpeg 5.1's ALAC encoder overflows its packet buffer (and aborts the process) on a last
    /// frame of 1 sample with 4 or more channels: a last frame this short is stored verbatim.
    private static let smallestCompressedALACFrame = 16

    /// Encodes `frame` (the last) with an ALAC encoder of the same settings that stores samples
    /// uncompressed; its packet fits the stream (ALAC frames decode on their own, and the
    /// codec's setup does not depend on the compression).
    private func encodeVerbatim(_ frame: Frame) throws(FFmpegError) {
        let verbatim = try Encoder(settings, globalHeader: globalHeader, path: path, options: ["compression_level": "0"])
        try verbatim.send(frame)
        try verbatim.send(nil)
        try writeReadyPackets(from: verbatim)
    }

    private func writeReadyPackets(from source: Encoder? = nil) throws(FFmpegError) {
        while try (source ?? encoder).receive(into: packet) {
            guard encoder.isLAME else {
                try deliver(packet)
                continue
            }
            packetsMade += 1
            if let previous = heldBack { try deliver(previous) }
            let kept = try Packet()
            try kept.reference(packet)
            heldBack = kept
        }
    }
}
