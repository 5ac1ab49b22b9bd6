import Foundation

extension URL {
    /// The path as the user gave it (relative stays relative), for messages and reports.
    package var displayPath: String { relativePath }
}
