import FFmpeg
import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// Turns decoded pictures into what the H.264 encoder takes, changing as little as possible.
///
/// - A pixel format libx264 takes (yuv420p, yuv422p, yuv444p, their 10-bit and full-range
///   forms, nv12, gray) passes through untouched: no copy, no conversion.
/// - Another format (RGB, 12-bit, palette) is converted by libswscale to the format FFmpeg
///   judges closest among libx264's (as the `ffmpeg` CLI chooses), and said.
/// - An odd width or height with chroma subsampling (4:2:0 needs both even, 4:2:2 an even
///   width) cannot be coded in H.264: its cropping works in units of two pixels there. The
///   picture gets one more column or row that repeats its last one, so every input pixel is
///   kept (exactly, with `--lossless`) and the edge looks as it did; the output is one pixel
///   larger, and said. Cropping a pixel away would lose picture, and scaling would soften
///   every pixel.
/// - A picture whose size or format changes mid-stream is converted to the first one's shape.
final class PictureAdapter {
    let sourceFormat: PixelFormat
    let sourceWidth: Int
    let sourceHeight: Int
    /// What the encoder gets.
    let format: PixelFormat
    let width: Int
    let height: Int
    private var converter: PictureConverter?
    private var resizer: PictureConverter?
    /// Pictures of another size or format than the first, converted to its shape.
    private(set) var reshapedPictures = 0

    /// Chooses the encoder's picture from the first decoded frame.
    /// - Throws: when the encoder takes no format this one converts to.
    init(first frame: Frame, encoderFormats: [PixelFormat], path: String) throws {
        sourceFormat = frame.pixelFormat
        sourceWidth = frame.width
        sourceHeight = frame.height
        if encoderFormats.contains(sourceFormat) {
            format = sourceFormat
        } else if let closest = sourceFormat.closest(in: encoderFormats) {
            format = closest
        } else {
            throw ReverseAudioError.input(.videoStreamFailed(path: path, stream: "video", reason: "the H.264 encoder takes no pixel format that \(sourceFormat.name) converts to"))
        }
        let shift = format.chromaShift
        width = shift.width > 0 && sourceWidth % 2 == 1 ? sourceWidth + 1 : sourceWidth
        height = shift.height > 0 && sourceHeight % 2 == 1 ? sourceHeight + 1 : sourceHeight
        if format != sourceFormat {
            converter = try PictureConverter(width: sourceWidth, height: sourceHeight, from: sourceFormat, to: format)
        }
    }

    var isPadded: Bool { width != sourceWidth || height != sourceHeight }
    var isConverted: Bool { format != sourceFormat }

    /// What the adapter changes, one phrase each (empty when pictures pass through).
    var changes: [String] {
        var result: [String] = []
        if isConverted { result.append("pixel format \(sourceFormat.name) → \(format.name) (libswscale; not bit-exact)") }
        if isPadded {
            result.append("\(sourceWidth)×\(sourceHeight) is odd and H.264 \(format.name) needs even sizes: written as \(width)×\(height), the last column/row repeated (every input pixel kept)")
        }
        return result
    }

    /// The encoder's picture for `frame`: `frame` itself (taken over into a new frame) when it
    /// already is one, else a converted or padded copy. `frame` is left empty either way.
    func adapt(_ frame: Frame) throws -> Frame {
        let output = try Frame()
        var current = frame
        if frame.pixelFormat != sourceFormat || frame.width != sourceWidth || frame.height != sourceHeight {
            // A mid-stream change: back to the first picture's shape, so the encoder can go on.
            if resizer == nil || resizer!.source != frame.pixelFormat || resizer!.width != frame.width || resizer!.height != frame.height {
                resizer = try PictureConverter(width: frame.width, height: frame.height, from: frame.pixelFormat,
                                               to: sourceFormat, targetWidth: sourceWidth, targetHeight: sourceHeight)
            }
            let reshaped = try Frame()
            try resizer!.convert(frame, into: reshaped)
            reshapedPictures += 1
            current = reshaped
        }
        if let converter {
            let converted = try Frame()
            try converter.convert(current, into: converted)
            current = converted
        }
        if isPadded {
            try output.preparePicture(format: format, width: width, height: height, like: current)
            try output.copyPadded(from: current)
            frame.unreference()
            return output
        }
        output.take(current)
        frame.unreference()
        return output
    }
}
