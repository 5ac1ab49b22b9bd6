import ReverseAudioCore
/// What a batch knows about one input: the line a manifest holds for it, and (when done) the
/// record kept beside the outputs so that a rerun can tell the output is complete and current.
package struct BatchRecord: Codable, Sendable, Equatable {
    /// How the input ended in this run.
    package enum Status: String, Codable, Sendable {
        /// Being written: recorded before the work starts, so that a rerun after a kill knows the
        /// output under this name (if it was published) is the batch's own, to be replaced.
        case started
        /// Written and published in this run.
        case done
        /// Complete and current from an earlier run, so not done again.
        case skipped
        /// Failed; `errorKind` and `error` say why.
        case failed
        /// Not audio FFmpeg reads (`--all-formats` takes every file and passes these over).
        case ignored
    }

    /// The input as the user named it (escaped when its name is not UTF-8).
    package var input: String
    /// The input's size in bytes when it was read.
    package var size: Int64
    /// The input's modification time in nanoseconds since 1970, when it was read.
    package var modified: Int64
    /// The output's path under the output folder.
    package var output: String
    /// Every setting that changes the output's bytes, as one canonical string.
    package var options: String
    /// The tool and the FFmpeg libraries that made the output.
    package var version: String
    /// How the input ended.
    package var status: Status
    /// The output's size in bytes (done and skipped).
    package var outputSize: Int64?
    /// The output's SHA-256 (done and skipped), lower-case hexadecimal.
    package var sha256: String?
    /// Frames written (done and skipped).
    package var frames: Int64?
    /// The output's duration: frames ÷ rate (done and skipped).
    package var seconds: Double?
    /// What kind of failure (the error's case, such as `notMedia`), for failed and ignored inputs.
    package var errorKind: String?
    /// The one-line message, for failed and ignored inputs.
    package var error: String?
    /// The share that did it (`K/N`), when the batch was split.
    package var shard: String?

    /// A record of `input` in state `status`; the rest is filled in as the work goes.
    package init(input: String, size: Int64, modified: Int64, output: String, options: String, version: String,
                status: Status, shard: String? = nil) {
        self.input = input
        self.size = size
        self.modified = modified
        self.output = output
        self.options = options
        self.version = version
        self.status = status
        self.shard = shard
    }
}
