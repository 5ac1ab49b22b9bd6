import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// The file format a reversed video is written in, chosen by the output's extension.
package enum VideoContainer: String, CaseIterable {
    case mp4, mov, mkv

    /// The container for `url`'s extension (any case), or an error naming the ones we write.
    package static func forFile(_ url: URL) throws -> VideoContainer {
        switch url.pathExtension.lowercased() {
        case "mp4", "m4v": return .mp4
        case "mov", "qt": return .mov
        case "mkv": return .mkv
        default:
            let ext = url.pathExtension
            throw ReverseAudioError.output(.unknownOutputFormat(path: url.displayPath, extension: ext, known: ["mp4", "mov", "mkv"]))
        }
    }

    /// libavformat's muxer.
    var muxerName: String {
        switch self {
        case .mp4: return "mp4"
        case .mov: return "mov"
        case .mkv: return "matroska"
        }
    }

    /// Muxer options: MP4 and MOV put their index first so players can start before the end
    /// has downloaded (`+faststart`: the muxer moves it when the file is finished).
    var headerOptions: [String: String] {
        switch self {
        case .mp4, .mov: return ["movflags": "+faststart"]
        case .mkv: return [:]
        }
    }

    /// The audio codecs the container holds as FFmpeg 5.1 writes it (no experimental mappings).
    var audioCodecs: [VideoOptions.AudioCodec] {
        switch self {
        case .mp4: return [.aac, .alac]
        case .mov: return [.aac, .alac, .pcm]
        case .mkv: return [.aac, .alac, .flac, .pcm]
        }
    }

    /// True when the container can state a rotation (FFmpeg 5.1's Matroska muxer cannot).
    var storesRotation: Bool { self != .mkv }
}
