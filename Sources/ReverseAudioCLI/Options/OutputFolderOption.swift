import ArgumentParser
import Foundation

/// `-o FOLDER`: where a batch (`reverse`) writes its outputs, one per input. A file there is a
/// usage error (single-output commands take a file with `-o`: ``OutputFileOption``).
struct OutputFolderOption: ParsableArguments {
    @Option(name: [.customShort("o"), .customLong("output-directory")],
            help: ArgumentHelp("The folder the outputs go in (created if missing), keeping the inputs' subfolders.", valueName: "FOLDER"),
            completion: .directory)
    var outputDirectory: String = "Reversed"

    func validate() throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: outputDirectory, isDirectory: &isFolder), !isFolder.boolValue {
            throw ValidationError("-o \(outputDirectory) is a file; reverse writes one output per input into a folder: name a folder (created if missing)")
        }
    }
}
