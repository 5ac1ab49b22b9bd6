import Foundation

/// The committed test inputs (made by `scripts/make-fixtures`) and the bundled sample set.
public enum Fixtures {
    /// The package's root folder, found from this file's location.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let directory = packageRoot.appendingPathComponent("Tests/Fixtures")
    public static let audioFilesDirectory = packageRoot.appendingPathComponent("Audio Files")

    /// A fixture by file name.
    public static func url(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    /// Names of every fixture meant to decode completely (not `bad-*`), sorted.
    public static var decodable: [String] {
        names.filter { !$0.hasPrefix("bad-") }
    }

    /// Names of the well-formed fixtures: the format matrix, without `bad-*` or `edge-*`.
    public static var matrix: [String] {
        names.filter { !$0.hasPrefix("bad-") && !$0.hasPrefix("edge-") }
    }

    /// Every fixture name (files directly in the folder, not the fuzz-regressions subfolder), sorted.
    public static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { name in
                var isDirectory: ObjCBool = false
                return !name.hasPrefix(".")
                    && FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path, isDirectory: &isDirectory)
                    && !isDirectory.boolValue
            }
            .sorted()
    }

    /// The bundled sample set, as the demo uses it.
    public static var audioFiles: [URL] {
        ((try? FileManager.default.contentsOfDirectory(atPath: audioFilesDirectory.path)) ?? [])
            .filter { !$0.hasPrefix(".") }.sorted()
            .map { audioFilesDirectory.appendingPathComponent($0) }
    }

    /// Every decodable input the oracle tests cover: fixtures plus the sample set.
    public static var allDecodableInputs: [URL] {
        decodable.map(url) + audioFiles
    }
}
