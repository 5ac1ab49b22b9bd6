import Foundation
import Hummingbird
import ReverseAudio

/// What `POST /api/jobs` asks: `{"file" | "upload" | "url", "operation", "output", "start"?,
/// "end"?, "crf"?}`.
///
/// The input is one of: `file`, a name as `GET /api/files` gives it; `upload`, a name as
/// `POST /api/uploads` answered it; `url`, an `http(s)://` address on a host `serve
/// --allow-url-hosts` names. `output` is a plain file name (no folder) in the output folder,
/// whose extension picks the format; `start` and `end` are seconds (a number) or any time the
/// command line takes ("1:02.5", "66150s"), for trim or a part of the audio jobs; `crf` is the
/// video jobs' x264 quality (0 lossless to 51; 18 unless given).
struct JobRequest: Decodable, Sendable {
    /// The jobs there are: the same library operations as the commands of the same names.
    enum Operation: String, Decodable, Sendable {
        /// `convert --reverse` (a reversed copy, format by the output's extension).
        case reverse
        /// `convert` (forwards).
        case convert
        /// `trim`: the exact cut, in the file's own format unless the extension names another.
        case trim
        /// `video`: the video reversed (H.264, the audio reversed), `.mp4`, `.mov` or `.mkv`.
        case reverseVideo = "reverse-video"
        /// `video --boomerang`: forwards, then reversed.
        case boomerang

        /// True for the jobs of the `video` command.
        var isVideo: Bool { self == .reverseVideo || self == .boomerang }
    }

    /// Where the input comes from.
    enum Input: Sendable {
        case file(String)
        case upload(String)
        case result(String)
        case url(String)

        /// The input's own name, for its output's: a file's last component, an upload's name
        /// without the server's prefix, a URL's last path component.
        var title: String {
            switch self {
            case .file(let name), .result(let name): return (name as NSString).lastPathComponent
            case .upload(let name): return UploadStore.title(of: name)
            case .url(let address): return URL(string: address)?.lastPathComponent.removingPercentEncoding ?? "download"
            }
        }

        /// How the job's status names it.
        var name: String {
            switch self {
            case .file(let name), .upload(let name), .result(let name), .url(let name): return name
            }
        }
    }

    let file: String?
    let upload: String?
    /// A result's name, as `GET /api/results` gives it (a reversed file trimmed, reversed back).
    let result: String?
    let url: String?
    let operation: Operation
    /// The output's name; nil for the name the `reverse` command would give (``JobOutputName``).
    let output: String?
    let start: TimeText?
    let end: TimeText?
    let crf: Double?

    /// The one input the request names, or 400.
    func input() throws -> Input {
        switch (file, upload, url) {
        case (let name?, nil, nil) where result == nil: return .file(name)
        case (nil, let name?, nil) where result == nil: return .upload(name)
        case (nil, nil, let address?) where result == nil: return .url(address)
        case (nil, nil, nil) where result != nil: return .result(result!)
        default: throw HTTPError(.badRequest, message: "a job names one input: \"file\", \"upload\", \"result\" or \"url\"")
        }
    }

    /// A time given as seconds or as text.
    struct TimeText: Decodable, Sendable {
        let position: TimePosition

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) {
                guard seconds.isFinite, seconds >= 0 else {
                    throw DecodingError.dataCorruptedError(in: container, debugDescription: "a time is 0 seconds or more")
                }
                position = .seconds(seconds)
            } else {
                let text = try container.decode(String.self)
                do {
                    position = try TimePosition(parsing: text)
                } catch {
                    throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
                }
            }
        }
    }

    /// The part of the file asked for, if any.
    func range() throws -> TimeRange? {
        guard start != nil || end != nil else { return nil }
        do {
            return try TimeRange(start: start?.position, end: end?.position)
        } catch {
            throw HTTPError(.badRequest, message: "start and end: \(error)")
        }
    }
}

/// A job as `GET /api/jobs/{id}` and its events give it.
struct JobStatus: ResponseEncodable, Sendable, Equatable {
    enum State: String, Encodable, Sendable {
        case running, done, failed
    }

    let id: String
    let file: String
    let operation: String
    let output: String
    var status: State
    /// Of the work done, 0 to 1 (1 once done).
    var fraction: Double
    /// Why it failed ("cancelled" when asked to stop); null otherwise.
    var error: String?

    private enum CodingKeys: String, CodingKey {
        case id, file, operation, output, status, fraction, error
    }

    /// Every field, `error` as null until there is one (the contract names it always).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(file, forKey: .file)
        try container.encode(operation, forKey: .operation)
        try container.encode(output, forKey: .output)
        try container.encode(status, forKey: .status)
        try container.encode(fraction, forKey: .fraction)
        try container.encode(error, forKey: .error)
    }
}
