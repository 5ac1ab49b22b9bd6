import Foundation
import ReverseAudio
import ReverseAudioBatch
import ReverseAudioCommandLine

/// `--files-from FILE`: the inputs of a batch as a list, one path (or `http(s)://` URL) a line
/// (as `find` prints them), from a file or from standard input (`-`).
///
/// A relative path keeps its folders under the output folder, as `rsync --files-from` keeps
/// them (`live/a.mp3` → `OUT/live/a-REVERSED.wav`; a folder `live` → its files under `OUT/live/`),
/// so a list made with `find` gives the same names as the folder itself would; an absolute path,
/// or one that climbs with `..`, goes directly under the output folder, as a file named on the
/// command line does.
enum FilesFromList {
    /// The arguments the list at `path` names (empty lines and a CRLF's CR left out).
    static func arguments(from path: String) throws -> [SupportedAudioFiles.Argument] {
        let data: Data
        if StandardStreams.isStandardInput(path) {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else if let contents = FileManager.default.contents(atPath: path) {
            data = contents
        } else {
            throw CommandLineError("--files-from \(path): cannot read the list (\(FileManager.default.fileExists(atPath: path) ? "not a readable file" : "no such file"))")
        }
        var arguments: [SupportedAudioFiles.Argument] = []
        for rawLine in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            var line = Array(rawLine)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            guard !line.isEmpty else { continue }
            // A URL, as on the command line: one file, straight under the output folder.
            if let text = String(validating: line, as: UTF8.self), text.contains("://") {
                arguments.append(SupportedAudioFiles.Argument(url: try StandardStreams.namedInput(text), relativeFolder: ""))
                continue
            }
            // Bytes, not text: a name that is not UTF-8 is reached through an alias (see ByteNames).
            let text = ByteNames.argument(line)
            arguments.append(SupportedAudioFiles.Argument(url: URL(fileURLWithPath: text), relativeFolder: keptFolder(line)))
        }
        return arguments
    }

    /// The folders a listed path keeps under the output folder: a relative path's own (all of it
    /// for a folder, all but the name for a file), shown escaped; "" otherwise.
    private static func keptFolder(_ line: [UInt8]) -> String {
        guard line.first != UInt8(ascii: "/") else { return "" }
        let parts = line.split(separator: UInt8(ascii: "/")).map { ByteNames.escaped($0) }.filter { $0 != "." }
        guard !parts.contains("..") else { return "" }
        var isDirectory: ObjCBool = false
        let isFolder = FileManager.default.fileExists(atPath: ByteNames.argument(line), isDirectory: &isDirectory) && isDirectory.boolValue
        return (isFolder ? parts : parts.dropLast()).joined(separator: "/")
    }
}
