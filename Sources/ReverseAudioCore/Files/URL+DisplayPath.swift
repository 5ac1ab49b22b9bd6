import Foundation

extension URL {
    /// The path as the user gave it (relative stays relative), for messages and reports: a file
    /// reached through an alias (its name is not UTF-8, see ``ByteNames``) by its own name with
    /// the bytes escaped, and control characters escaped so that a message stays on one line.
    package var displayPath: String {
        if isFileURL, let shown = ByteNames.display(forPath: path) { return shown }
        return ControlEscaping.escaped(relativePath)
    }
}
