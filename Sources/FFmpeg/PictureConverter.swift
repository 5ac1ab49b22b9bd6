import CFFmpeg

/// Owns one `SwsContext`: converts pictures to another pixel format (or, for a stream whose
/// pictures change size midway, back to the first size).
///
/// Used only when the encoder cannot take the decoder's pixel format (libx264 takes the usual
/// YUV formats as they are); the conversion is FFmpeg's, bit-exact and accurately rounded.
package final class PictureConverter {
    private let context: OpaquePointer
    package let width: Int
    package let height: Int
    package let source: PixelFormat
    package let target: PixelFormat
    private let targetWidth: Int
    private let targetHeight: Int

    /// - Parameters:
    ///   - targetWidth: the output's width; nil keeps the input's.
    ///   - targetHeight: the output's height; nil keeps the input's.
    package init(width: Int, height: Int, from source: PixelFormat, to target: PixelFormat,
                 targetWidth: Int? = nil, targetHeight: Int? = nil) throws(FFmpegError) {
        self.targetWidth = targetWidth ?? width
        self.targetHeight = targetHeight ?? height
        guard let made = sws_getContext(Int32(width), Int32(height), source.raw, Int32(self.targetWidth), Int32(self.targetHeight),
                                        target.raw, ra_sws_flags_exact(), nil, nil, nil) else {
            throw .invalidArgument("preparing a conversion from \(source.name) to \(target.name)")
        }
        context = made
        self.width = width
        self.height = height
        self.source = source
        self.target = target
    }

    deinit { sws_freeContext(context) }

    /// Converts `frame` into `output`, which gets a fresh picture and `frame`'s properties.
    package func convert(_ frame: Frame, into output: Frame) throws(FFmpegError) {
        guard frame.width == width, frame.height == height, frame.pixelFormat == source else {
            throw .invalidArgument("converting a \(frame.width)×\(frame.height) \(frame.pixelFormat.name) picture (expected \(width)×\(height) \(source.name))")
        }
        try output.preparePicture(format: target, width: targetWidth, height: targetHeight, like: frame)
        try FFmpegError.check(ra_sws_scale_frame(context, output.pointer, frame.pointer), "converting a picture to \(target.name)")
    }
}
