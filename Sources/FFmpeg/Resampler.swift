import CFFmpeg

/// Owns one `SwrContext`: converts decoded frames to interleaved signed 16-bit samples.
///
/// Uses swresample's default options, exactly as the `ffmpeg` CLI's automatic conversion does, so
/// the samples equal `ffmpeg -i X -f s16le -acodec pcm_s16le -` byte for byte (and equal
/// `ffmpeg -ac 1` when mixing down). The output rate and layout are fixed by the first frame; a
/// later change in the input is converted back to them, as the CLI does.
public final class Resampler {
    /// What the output channels are.
    public enum Channels: Sendable {
        /// The input's channels, unchanged.
        case unchanged
        /// All channels mixed to one with swresample's rematrixing (`ffmpeg -ac 1`).
        case mixedToMono
    }

    private let channels: Channels
    private var context: OpaquePointer?
    private var inputFormat: AudioFormat?
    private var outputLayout: ChannelLayout?
    private var outputRate: Int32 = 0
    private var output: UnsafeMutablePointer<Int16>?
    private var outputCapacity = 0  // in samples (frames × channels)

    /// The most channels swresample converts (`SWR_CH_MAX`); more pass only when no conversion is needed.
    public static let maximumChannelCount = 64

    public init(channels: Channels) {
        self.channels = channels
    }

    deinit {
        swr_free(&context)
        output?.deallocate()
    }

    /// Channels per output frame; known after the first conversion.
    public var outputChannelCount: Int { outputLayout?.channelCount ?? 0 }
    /// Output sample rate; known after the first conversion.
    public var outputSampleRate: Int { Int(outputRate) }
    /// The output's channel layout; known after the first conversion.
    public var outputChannelLayout: ChannelLayout? { outputLayout }

    /// Converts `frame`; the returned samples stay valid until the next call, and until `frame`
    /// is reused (samples already in the output format are handed back in place).
    public func convert(_ frame: Frame) throws(FFmpegError) -> UnsafeBufferPointer<Int16> {
        var pending = UnsafeBufferPointer<Int16>(start: nil, count: 0)
        let format = frame.audioFormat
        if outputLayout == nil { chooseOutput(for: format) }
        // Interleaved s16 in the output layout already is the output: swresample would only copy.
        if context == nil, format.sampleFormat == AV_SAMPLE_FMT_S16, format.sampleRate == outputRate,
           format.channelLayout.resolvedForMixing().isSame(as: outputLayout!),
           let data = frame.pointer.pointee.extended_data[0] {
            let samples = UnsafeRawPointer(data).assumingMemoryBound(to: Int16.self)
            return UnsafeBufferPointer(start: samples, count: frame.sampleCount * outputChannelCount)
        }
        if let current = inputFormat, !current.isSame(as: format) {
            // Keep what the old configuration still holds (only a rate conversion holds any).
            pending = try drain(appendingTo: 0)
        }
        if inputFormat == nil || !inputFormat!.isSame(as: format) {
            try configure(for: format)
        }
        return try run(input: frame.pointer.pointee.extended_data, count: frame.sampleCount,
                       after: pending.count)
    }

    /// Returns what swresample still holds at the end of the stream.
    public func flush() throws(FFmpegError) -> UnsafeBufferPointer<Int16> {
        guard context != nil else { return UnsafeBufferPointer(start: nil, count: 0) }
        return try drain(appendingTo: 0)
    }

    private func drain(appendingTo offset: Int) throws(FFmpegError) -> UnsafeBufferPointer<Int16> {
        try run(input: nil, count: 0, after: offset)
    }

    /// The first frame fixes the output's rate and layout.
    private func chooseOutput(for format: AudioFormat) {
        switch channels {
        case .unchanged: outputLayout = format.channelLayout.resolvedForMixing()
        case .mixedToMono: outputLayout = ChannelLayout.mono()
        }
        outputRate = format.sampleRate
    }

    private func configure(for format: AudioFormat) throws(FFmpegError) {
        swr_free(&context)
        var inputLayout = format.channelLayout.resolvedForMixing().layout
        var target = outputLayout!.layout
        try FFmpegError.check(
            swr_alloc_set_opts2(&context, &target, AV_SAMPLE_FMT_S16, outputRate,
                                &inputLayout, format.sampleFormat, format.sampleRate, 0, nil),
            "configuring the sample converter for \(format.channelLayout.channelCount) channels of \(AudioFormat.name(of: format.sampleFormat) ?? "?")")
        try FFmpegError.check(swr_init(context), "starting the sample converter")
        inputFormat = format
    }

    /// Converts `count` input frames (nil input drains) into the output buffer after `offset`
    /// samples that are already there.
    private func run(input: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, count: Int,
                     after offset: Int) throws(FFmpegError) -> UnsafeBufferPointer<Int16> {
        let channelCount = outputChannelCount
        let room = Int(swr_get_out_samples(context, Int32(count)))
        try reserve(samples: offset + max(room, 0) * channelCount)
        var destination: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(output! + offset)
            .assumingMemoryBound(to: UInt8.self)
        let source = UnsafeMutableRawPointer(input).map {
            $0.assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        }
        let converted = swr_convert(context, &destination, Int32(max(room, 0)), source, Int32(count))
        try FFmpegError.check(converted, "converting samples")
        return UnsafeBufferPointer(start: output, count: offset + Int(converted) * channelCount)
    }

    private func reserve(samples: Int) throws(FFmpegError) {
        guard samples > outputCapacity else { return }
        let capacity = max(samples, outputCapacity * 2, 4096)
        let grown = UnsafeMutablePointer<Int16>.allocate(capacity: capacity)
        if let output {
            grown.update(from: output, count: outputCapacity)
            output.deallocate()
        }
        output = grown
        outputCapacity = capacity
    }
}
