import ReverseAudioCore
/// Whether a rerun does an input again, decided from what is on disk only (sizes, times, the
/// record), without opening the media: skipping must cost far less than reading.
package enum ResumeDecision: Sendable, Equatable {
    /// No earlier output: write it (refusing to replace a file that appears meanwhile).
    case write
    /// The output is complete and current: leave it.
    case skip
    /// The output is the batch's own but not current (or `-y`): write it again, replacing it.
    case replace(reason: String)
    /// A file under the output's name that this batch did not record: leave it and fail, as
    /// without a batch (`-y` replaces it).
    case refuse

    /// What is known of a file on disk: enough to tell it changed.
    package struct FileState: Sendable, Equatable {
        /// False for a folder, a device, a FIFO: never replaced.
        package let isRegularFile: Bool
        /// Bytes.
        package let size: Int64
        /// Nanoseconds since 1970.
        package let modified: Int64

        /// What a `stat` said.
        package init(isRegularFile: Bool, size: Int64, modified: Int64) {
            self.isRegularFile = isRegularFile
            self.size = size
            self.modified = modified
        }
    }

    /// The decision for one input.
    /// - Parameters:
    ///   - record: the record kept for its output, if any.
    ///   - input: the input now.
    ///   - output: what is under the output's name now (nil: nothing).
    ///   - options: the options of this run, as ``BatchRecord/options``.
    ///   - version: this tool's version, as ``BatchRecord/version``.
    ///   - overwrite: `-y`: everything is written again.
    package static func decide(record: BatchRecord?, input: FileState, output: FileState?, options: String, version: String,
                              overwrite: Bool) -> ResumeDecision {
        guard let output else { return .write }
        if overwrite { return .replace(reason: "-y") }
        // Never replace what is not a regular file, nor a file the batch did not record.
        guard output.isRegularFile, let record else { return .refuse }
        guard record.status == .done else { return .replace(reason: "an earlier run stopped while writing it") }
        if record.size != input.size || record.modified != input.modified { return .replace(reason: "the input changed") }
        if record.options != options { return .replace(reason: "the options changed") }
        if record.version != version { return .replace(reason: "another version of the tool made it") }
        if record.outputSize != output.size { return .replace(reason: "the output is not the size recorded") }
        return .skip
    }
}
