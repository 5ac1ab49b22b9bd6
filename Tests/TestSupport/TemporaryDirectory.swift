import Foundation

/// A fresh folder for one test, removed when released.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("reverse-audio-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// A fresh folder holding copies of fixtures: `files` maps a name in it (subfolders made as
    /// needed) to a fixture's name.
    public static func holding(_ files: [String: String]) throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory()
        for (name, fixture) in files {
            let target = folder.file(name)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Fixtures.url(fixture), to: target)
        }
        return folder
    }

    /// Names of everything in the folder, hidden files included (to catch leftovers).
    public var contents: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }
}
