import CFFmpeg

/// Owns one `SwrContext`: converts decoded frames to interleaved samples of one type.
///
/// Uses swresample's default options, exactly as the `ffmpeg` CLI's automatic conversion does, so
/// the samples equal `ffmpeg -i X -f s16le -acodec pcm_s16le -` byte for byte (and equal
/// `ffmpeg -ac 1` when mixing down, `-ar N` when resampling). The output rate and layout are
/// fixed by the first frame; a later change in the input is converted back to them, as the CLI
/// does (what a rate conversion still holds at the change is dropped, as there). Frames already
/// in the output format are handed back without conversion.
package final class Resampler {
    /// What the output channels are.
    package enum Channels: Sendable {
        /// The input's channels, unchanged.
        case unchanged
        /// All channels mixed to one with swresample's rematrixing (`ffmpeg -ac 1`).
        case mixedToMono
    }

    /// The most channels swresample converts (`SWR_CH_MAX`); more pass only when no conversion is needed.
    package static let maximumChannelCount = 64

    private let channels: Channels
    /// The output's sample type (interleaved).
    package let outputType: SampleType
    private let requestedRate: Int?
    private var context: OpaquePointer?
    private var inputFormat: AudioFormat?
    private var outputLayout: ChannelLayout?
    private var outputRate: Int32 = 0
    private var output: UnsafeMutableRawPointer?
    private var outputCapacity = 0  // in bytes

    /// - Parameters:
    ///   - type: the sample type to deliver, interleaved.
    ///   - sampleRate: the rate to deliver; nil keeps the input's.
    package init(channels: Channels, type: SampleType = .s16, sampleRate: Int? = nil) {
        self.channels = channels
        outputType = type
        requestedRate = sampleRate
    }

    deinit {
        swr_free(&context)
        output?.deallocate()
    }

    /// Channels per output frame; known after the first conversion.
    package var outputChannelCount: Int { outputLayout?.channelCount ?? 0 }
    /// Output sample rate; known after the first conversion.
    package var outputSampleRate: Int { Int(outputRate) }
    /// The output's channel layout; known after the first conversion.
    package var outputChannelLayout: ChannelLayout? { outputLayout }
    /// Bytes per output frame; known after the first conversion.
    package var outputBytesPerFrame: Int { outputChannelCount * outputType.byteCount }

    /// Converts `frame`; the returned bytes stay valid until the next call, and until `frame`
    /// is reused (samples already in the output format are handed back in place).
    package func convert(_ frame: Frame) throws(FFmpegError) -> UnsafeRawBufferPointer {
        try convert(frame.audioFormat, planes: frame.pointer.pointee.extended_data, count: frame.sampleCount)
    }

    /// Converts `frames` interleaved frames of `type` at `sampleRate` in `layout`; the returned
    /// bytes stay valid until the next call (and are `bytes` itself when nothing changes).
    package func convert(interleaved bytes: UnsafeRawPointer, frames: Int, type: SampleType, sampleRate: Int,
                         layout: ChannelLayout) throws(FFmpegError) -> UnsafeRawBufferPointer {
        var plane: UnsafeMutablePointer<UInt8>? = UnsafeMutablePointer(mutating: bytes.assumingMemoryBound(to: UInt8.self))
        let format = AudioFormat(sampleFormat: type.packed, sampleRate: Int32(sampleRate), channelLayout: layout)
        return try withUnsafeMutablePointer(to: &plane) { planes throws(FFmpegError) in
            try convert(format, planes: planes, count: frames)
        }
    }

    private func convert(_ format: AudioFormat, planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                         count: Int) throws(FFmpegError) -> UnsafeRawBufferPointer {
        if outputLayout == nil { chooseOutput(for: format) }
        // Interleaved samples of the output type, layout and rate already are the output.
        if context == nil, format.sampleFormat == outputType.packed, format.sampleRate == outputRate,
           channels == .unchanged ? format.channelLayout.channelCount == outputChannelCount
                                  : format.channelLayout.resolvedForMixing().isSame(as: outputLayout!),
           let data = planes?[0] {
            return UnsafeRawBufferPointer(start: data, count: count * outputBytesPerFrame)
        }
        // A new configuration for frames of another format drops what the old one still holds
        // (a rate conversion's last few samples), as the ffmpeg CLI does: it builds its filter
        // graph anew for them without draining the old one.
        if inputFormat == nil || !inputFormat!.isSame(as: format) {
            try configure(for: format)
        }
        return try run(input: planes, count: count)
    }

    /// Returns what swresample still holds at the end of the stream.
    package func flush() throws(FFmpegError) -> UnsafeRawBufferPointer {
        guard context != nil else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return try run(input: nil, count: 0)
    }

    /// Forgets buffered samples and history (after a seek), keeping the output format.
    package func reset() {
        swr_free(&context)
        inputFormat = nil
    }

    /// The first frame fixes the output's rate and layout.
    private func chooseOutput(for format: AudioFormat) {
        switch channels {
        case .unchanged: outputLayout = format.channelLayout.resolvedForMixing()
        case .mixedToMono: outputLayout = ChannelLayout.mono()
        }
        outputRate = requestedRate.map { Int32($0) } ?? format.sampleRate
    }

    private func configure(for format: AudioFormat) throws(FFmpegError) {
        swr_free(&context)
        var inputLayout = format.channelLayout.resolvedForMixing().layout
        var target = outputLayout!.layout
        let operation = "configuring the sample converter for \(format.channelLayout.channelCount) channels of \(AudioFormat.name(of: format.sampleFormat) ?? "?")"
        try FFmpegError.check(
            swr_alloc_set_opts2(&context, &target, outputType.packed, outputRate,
                                &inputLayout, format.sampleFormat, format.sampleRate, 0, nil), operation)
        try FFmpegError.check(swr_init(context), operation)
        inputFormat = format
    }

    /// Converts `count` input frames (nil input drains) into the output buffer.
    private func run(input: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, count: Int) throws(FFmpegError) -> UnsafeRawBufferPointer {
        let room = max(Int(swr_get_out_samples(context, Int32(count))), 0)
        reserve(bytes: room * outputBytesPerFrame)
        var destination: UnsafeMutablePointer<UInt8>? = output!.assumingMemoryBound(to: UInt8.self)
        let source = UnsafeMutableRawPointer(input).map {
            $0.assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        }
        let converted = swr_convert(context, &destination, Int32(room), source, Int32(count))
        try FFmpegError.check(converted, "converting samples")
        return UnsafeRawBufferPointer(start: output, count: Int(converted) * outputBytesPerFrame)
    }

    private func reserve(bytes: Int) {
        guard bytes > outputCapacity else { return }
        let capacity = max(bytes, outputCapacity * 2, 8192)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        if let output {
            grown.copyMemory(from: output, byteCount: outputCapacity)
            output.deallocate()
        }
        output = grown
        outputCapacity = capacity
    }
}
