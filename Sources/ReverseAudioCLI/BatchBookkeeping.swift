import Foundation
import ReverseAudio
import ReverseAudioBatch

/// What a `reverse` batch keeps of its work: the resume records in the output folder, the
/// manifest if one was asked for, and what the records compare (options, tool version, share).
struct BatchBookkeeping: Sendable {
    let state: BatchStateStore
    let manifest: ManifestWriter?
    /// ``BatchOptionsText`` of this run.
    let options: String
    let version: String
    /// `K/N` when the batch is split.
    let shard: String?
    /// `-y`: every output is written again.
    let overwrite: Bool

    /// A record of `input` (in its state `now`) whose output is `output`.
    func record(input: String, now: ResumeDecision.FileState?, output: String, status: BatchRecord.Status) -> BatchRecord {
        BatchRecord(input: input, size: now?.size ?? -1, modified: now?.modified ?? -1, output: output,
                    options: options, version: version, status: status, shard: shard)
    }

    /// Appends `record` to the manifest, when there is one.
    func report(_ record: BatchRecord) throws {
        try manifest?.append(record)
    }
}
