import CFFmpeg

/// Owns one `AVFrame`: decoded audio in the decoder's sample format, or audio for an encoder.
package final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    package init() throws(FFmpegError) {
        guard let frame = av_frame_alloc() else { throw .outOfMemory("allocating a frame") }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    package func unreference() { av_frame_unref(pointer) }

    /// Sample frames (one sample per channel) in this frame.
    package var sampleCount: Int { Int(pointer.pointee.nb_samples) }
    package var sampleRate: Int { Int(pointer.pointee.sample_rate) }
    package var channelCount: Int { Int(pointer.pointee.ch_layout.nb_channels) }
    /// The frame's timestamp in the time base it was made in, when it has one.
    package var presentationTimestamp: Int64? {
        pointer.pointee.pts == ra_av_nopts_value() ? nil : pointer.pointee.pts
    }

    /// The frame's audio format, used to (re)configure a resampler.
    var audioFormat: AudioFormat {
        AudioFormat(
            sampleFormat: AVSampleFormat(rawValue: pointer.pointee.format),
            sampleRate: Int32(sampleRate),
            channelLayout: ChannelLayout(copying: pointer.pointee.ch_layout)
        )
    }

    /// Gives the frame fresh buffers for `samples` frames of `format`.
    func allocate(format: AudioFormat, samples: Int) throws(FFmpegError) {
        av_frame_unref(pointer)
        pointer.pointee.format = format.sampleFormat.rawValue
        pointer.pointee.sample_rate = format.sampleRate
        pointer.pointee.nb_samples = Int32(samples)
        var layout = format.channelLayout.layout
        try FFmpegError.check(av_channel_layout_copy(&pointer.pointee.ch_layout, &layout), "setting a frame's layout")
        try FFmpegError.check(av_frame_get_buffer(pointer, 0), "allocating a frame's samples")
    }
}
