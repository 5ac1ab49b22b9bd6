import ArgumentParser
import Foundation

/// `-o FILE`: the file a single-output command writes. Where the command also takes the output
/// as its last argument (convert, trim, video), `-o` is the same thing, and one of the two is
/// given. A batch (`reverse`) takes a folder with `-o` instead (``OutputFolderOption``).
struct OutputFileOption: ParsableArguments {
    @Option(name: [.customShort("o"), .long],
            help: ArgumentHelp("The file to write; its extension picks the format; - for standard output.", valueName: "FILE"),
            completion: .file())
    var output: String?

    /// The output: `-o`, or the `positional` argument, exactly one of them, naming a file.
    /// - Throws: a usage error naming what to write instead.
    func path(positional: String? = nil, command: String) throws -> String {
        if positional != nil && output != nil {
            throw ValidationError("give the output once: as the last argument or with -o, not both")
        }
        guard let path = positional ?? output else {
            throw ValidationError("give the file to write: -o FILE")
        }
        try Self.checkIsFile(path, command: command)
        return path
    }

    /// Refuses a folder where one file is written (`convert a.wav -o out/`).
    static func checkIsFile(_ path: String, command: String) throws {
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
        guard path.hasSuffix("/") || (exists && isFolder.boolValue) else { return }
        let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
        throw ValidationError("\(path) is a folder; \(command) writes one file: name it (\(folder)/NAME.EXT); reverse writes a batch into a folder with -o")
    }
}
