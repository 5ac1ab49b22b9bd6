import Foundation
import ReverseAudioCore

extension Waveform {
    /// The picture formats, chosen by the output's extension.
    public enum PictureFormat: String, Sendable, CaseIterable {
        /// Lossless raster, through libavcodec's PNG encoder.
        case png
        /// Raster, through libavcodec's MJPEG encoder (`.jpg` or `.jpeg`).
        case jpeg
        /// Vector: paths for the waves, text for the labels.
        case svg

        /// Every extension a picture may have.
        package static let extensions = ["png", "jpg", "jpeg", "svg"]

        /// `url`'s extension, lowercased; `png` for one of this process's open descriptors named
        /// without one (`/dev/stdout`, `/dev/fd/3`), whose format no name can tell.
        package static func extensionOf(_ url: URL) -> String {
            url.pathExtension.isEmpty && OutputFile.namesOpenDescriptor(url) ? "png" : url.pathExtension.lowercased()
        }

        /// The format `url`'s extension names, if any (PNG for an open descriptor without one).
        package init?(url: URL) {
            switch Self.extensionOf(url) {
            case "png": self = .png
            case "jpg", "jpeg": self = .jpeg
            case "svg": self = .svg
            default: return nil
            }
        }
    }
}
