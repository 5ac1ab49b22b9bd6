import FFmpeg
import Foundation
import ReverseAudioCore

/// Pictures written through libavcodec's image encoders (a waveform's PNG or JPEG).
package enum PictureFile {
    /// The raster formats.
    package enum Format: Sendable {
        /// PNG, lossless.
        case png
        /// JPEG, through the MJPEG encoder.
        case jpeg
    }

    /// Encodes `pixels` (`height` rows of `width` RGB triplets, top row first) as `format` at `path`.
    /// - Parameter name: the output as the user named it, for messages.
    package static func write(_ pixels: [UInt8], width: Int, height: Int, format: Format, to path: String, name: String) throws {
        do {
            try PictureWriter.write(pixels, width: width, height: height, codec: format == .png ? .png : .jpeg, to: path)
        } catch {
            throw error.reportedAsWrite(path: name)
        }
    }
}
