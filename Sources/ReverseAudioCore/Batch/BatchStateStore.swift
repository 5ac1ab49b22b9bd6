import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The records a batch keeps inside its output folder, one small JSON file per output under
/// ``folderName`` (`live/a-REVERSED.wav` → `.reverse-audio-state/live/a-REVERSED.wav.json`), so
/// that a rerun, another shard or a retried worker finds them wherever the manifest went.
///
/// One file per output (not one shared file) keeps shards from ever writing the same file, and
/// a skip costs one small read. Each record is written under a temporary name and renamed over
/// the old one, so a kill leaves the old record or the new, never half of one.
public struct BatchStateStore: Sendable {
    /// The hidden folder inside the output folder (hidden, so a walk of the output folder
    /// never takes it as input).
    public static let folderName = ".reverse-audio-state"

    /// The batch's output folder.
    public let outputFolder: URL

    /// The records of the batch writing into `outputFolder`.
    public init(outputFolder: URL) {
        self.outputFolder = outputFolder
    }

    /// Where the record of the output at `relativeOutput` lives.
    public func recordPath(for relativeOutput: String) -> String {
        outputFolder.path + "/" + Self.folderName + "/" + relativeOutput + ".json"
    }

    /// The record of the output at `relativeOutput`, or nil when there is none (or it is damaged:
    /// then the output is treated as not the batch's own).
    public func record(for relativeOutput: String) -> BatchRecord? {
        guard let data = FileManager.default.contents(atPath: recordPath(for: relativeOutput)) else { return nil }
        return try? JSONDecoder().decode(BatchRecord.self, from: data)
    }

    /// Keeps `record` as the record of its output, atomically.
    public func save(_ record: BatchRecord) throws {
        let path = recordPath(for: record.output)
        let folder = (path as NSString).deletingLastPathComponent
        do {
            // Registered, so that a run stopped by a signal removes the folders it made, when empty.
            try ProcessCleanup.createFolder(URL(fileURLWithPath: folder, isDirectory: true))
        } catch {
            throw ReverseAudioError.cannotCreateOutput(path: folder, reason: "cannot create the batch's state folder (\(Self.reason(error)))")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(record)
        // Our own temporary name, not Foundation's atomic write (whose `.dat.nosync…` file a
        // SIGKILL would leave for good): a killed run's `.reverse-audio-PID-….partial` is swept
        // by the next run that writes here.
        let folderURL = URL(fileURLWithPath: folder, isDirectory: true)
        OutputFile.removeStalePartials(in: folderURL)
        let claim = try OutputFile.reserveTemporaryName(in: folderURL, for: path)
        let temporary = claim.path
        defer {
            ProcessCleanup.unregister(file: temporary)
            claim.release()
        }
        do {
            try Self.write(data, to: temporary)
        } catch {
            unlink(temporary)
            throw ReverseAudioError.writeFailed(path: path, reason: "cannot write the batch's state record (\(Self.reason(error)))")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ReverseAudioError.writeFailed(path: path, reason: "cannot write the batch's state record (\(reason))")
        }
    }

    /// Writes all of `data` into the (empty, reserved) file at `path`.
    private static func write(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_TRUNC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: data)
    }

    /// The system's reason inside a Foundation error, when it has one.
    private static func reason(_ error: any Error) -> String {
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
           let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(code.rawValue))
        }
        return (error as NSError).localizedDescription
    }
}
