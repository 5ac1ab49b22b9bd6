import FFmpeg
import Foundation
import ReverseAudioCore

/// Pictures written through libavcodec's image encoders (a waveform's PNG).
package enum PictureFile {
    /// Encodes `pixels` (`height` rows of `width` RGB triplets, top row first) as a PNG at `path`.
    /// - Parameter name: the output as the user named it, for messages.
    package static func writePNG(_ pixels: [UInt8], width: Int, height: Int, to path: String, name: String) throws {
        do {
            try PictureWriter.writePNG(pixels, width: width, height: height, to: path)
        } catch {
            throw error.reportedAsWrite(path: name)
        }
    }
}
