import Foundation
import ReverseAudio

/// The name a job's output gets when the request names none: what the `reverse` command
/// makes (`NAME-REVERSED.wav`, WAV as its default), `NAME-trimmed.EXT` (a trim keeps the
/// file's own format when it can be written), `NAME-converted.wav`, and for the video jobs
/// `NAME-REVERSED.mp4` and `NAME-boomerang.mp4`; a number is added only when the name is
/// taken (`NAME-REVERSED-2.wav`). NAME is the input's own: an upload's without the server's
/// prefix, a URL's last path component.
enum JobOutputName {
    /// - Parameter title: the input's own name (``JobRequest/Input/title``).
    static func make(for operation: JobRequest.Operation, title: String, isTaken: (String) -> Bool) -> String {
        let given = (title as NSString).pathExtension.lowercased()
        // The input's format when it can be written, else WAV.
        let audio = (try? OutputFormat.forFile(URL(fileURLWithPath: "x." + given))) ?? .wav
        let stem = (title as NSString).deletingPathExtension
        let base: String
        switch operation {
        case .reverse: base = RoundTrip.outputNames(for: URL(fileURLWithPath: title), name: stem, format: .wav).reversed
        case .trim: base = "\(stem)-trimmed.\(audio.fileExtension)"
        case .convert: base = "\(stem)-converted.wav"
        case .reverseVideo: base = "\(stem)-REVERSED.mp4"
        case .boomerang: base = "\(stem)-boomerang.mp4"
        }
        guard isTaken(base) else { return base }
        let ext = (base as NSString).pathExtension
        let bare = (base as NSString).deletingPathExtension
        var number = 2
        while isTaken("\(bare)-\(number).\(ext)") { number += 1 }
        return "\(bare)-\(number).\(ext)"
    }
}
