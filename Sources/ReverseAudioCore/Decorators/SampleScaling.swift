/// Multiplies samples by a factor per frame, in any sample format, as SoX applies its gain and
/// fades: in double precision, rounded to the nearest step of the format and clipped to its
/// range (a 24-bit sample to 24 bits); floating-point samples are neither rounded nor clipped.
/// Written once for every format, generically over the sample type: what every effect that
/// changes levels uses.
package enum SampleScaling {
    /// Writes `frames` interleaved frames of `format` from `source` to `destination` (which
    /// may be the same memory), frame `index` multiplied by `factor(index)`.
    package static func scale(_ source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, frames: Int, format: PCMFormat,
                              factor: (Int) -> Double) {
        let channels = format.channelCount
        switch format.sampleFormat {
        case .u8:
            apply(UInt8.self, source, destination, frames, channels, factor,
                  load: { Double(Int($0) - 128) }, store: { UInt8(clamping: Int(clamped($0, -128, 127)) + 128) })
        case .s16:
            apply(Int16.self, source, destination, frames, channels, factor,
                  load: { Double($0) }, store: { Int16(clamped($0, -32768, 32767)) })
        case .s24:
            // The top 24 bits of 32 carry the sample: scaled as a 24-bit value, stored back there.
            apply(Int32.self, source, destination, frames, channels, factor,
                  load: { Double($0 >> 8) }, store: { Int32(clamped($0, -8_388_608, 8_388_607)) << 8 })
        case .s32:
            apply(Int32.self, source, destination, frames, channels, factor,
                  load: { Double($0) }, store: { Int32(clamped($0, -2_147_483_648, 2_147_483_647)) })
        case .f32:
            apply(Float.self, source, destination, frames, channels, factor, load: { Double($0) }, store: { Float($0) })
        case .f64:
            apply(Double.self, source, destination, frames, channels, factor, load: { $0 }, store: { $0 })
        }
    }

    /// `value` rounded to the nearest integer (halves away from zero) within `low...high`.
    @inline(__always)
    private static func clamped(_ value: Double, _ low: Double, _ high: Double) -> Double {
        min(max(value.rounded(), low), high)
    }

    @inline(__always)
    private static func apply<Sample>(_: Sample.Type, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer,
                                      _ frames: Int, _ channels: Int, _ factor: (Int) -> Double,
                                      load: (Sample) -> Double, store: (Double) -> Sample) {
        let input = source.assumingMemoryBound(to: Sample.self)
        let output = destination.assumingMemoryBound(to: Sample.self)
        for frame in 0..<frames {
            let gain = factor(frame)
            let base = frame * channels
            for channel in 0..<channels {
                output[base + channel] = store(load(input[base + channel]) * gain)
            }
        }
    }
}

/// A decorator that scales its source's samples by a factor per frame (``SampleScaling``),
/// into a buffer of its own: what ``Gain`` and ``Fade`` are made of.
package final class ScaledSource: PCMSource {
    private let source: any PCMSource
    /// The factor for a frame of the source's timeline, given its length when known.
    private let factor: (_ frame: Int64, _ length: Int64?) -> Double
    private var buffer: UnsafeMutableRawBufferPointer

    /// `source` with frame `s` multiplied by `factor(s, length)`.
    package init(_ source: any PCMSource, factor: @escaping (_ frame: Int64, _ length: Int64?) -> Double) {
        self.source = source
        self.factor = factor
        buffer = .allocate(byteCount: 0, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// The source's format.
    package var format: PCMFormat { source.format }
    /// The source's length.
    package var length: PCMLength { source.length }

    /// Lends the source's next frames, scaled.
    package func read(maximumFrames: Int) throws -> PCMChunk? {
        guard let chunk = try source.read(maximumFrames: maximumFrames) else { return nil }
        if buffer.count < chunk.bytes.count {
            buffer.deallocate()
            buffer = .allocate(byteCount: max(chunk.bytes.count, buffer.count * 2), alignment: 16)
        }
        let length = source.length.frames
        let start = chunk.position
        SampleScaling.scale(chunk.bytes.baseAddress!, to: buffer.baseAddress!, frames: chunk.frameCount, format: format) { index in
            factor(start + Int64(index), length)
        }
        return PCMChunk(bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<chunk.bytes.count]), frameCount: chunk.frameCount,
                        position: chunk.position)
    }

    /// Seeks the source.
    @discardableResult
    package func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        try source.seek(to: frame, endingAt: end)
    }
}
