import Foundation
import Testing
import TestSupport

/// Tags survive conversion into formats that hold them, and `info` shows them.
@Suite(.runsProcesses) struct TagTests {
    static let tags = ["title": "Bells, backwards", "artist": "Ré Verse", "album": "Seeds", "date": "2026",
                       "genre": "Experimental", "track": "3", "comment": "made by a test"]

    @Test("title, artist, album, date, genre, track and comment go from MP3 into M4A, FLAC and MP3, and info --json shows them",
          arguments: ["m4a", "flac", "mp3"])
    func survive(_ ext: String) async throws {
        let directory = try TemporaryDirectory()
        let input = directory.file("tagged.mp3")
        let metadata = Self.tags.sorted { $0.key < $1.key }.flatMap { ["-metadata", "\($0.key)=\($0.value)"] }
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=d=0.5",
                                                    "-c:a", "libmp3lame"] + metadata + [input.path])
        try #require(made.status == 0, "\(made.errorText)")
        let output = directory.file("out.\(ext)")
        let result = try await CLI.convert(input, output, reverse: true)
        #expect(result.status == 0, "\(result.errorText)")
        // ffprobe reads them back from the output.
        let probed = try await ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", output.path])
        let object = try jsonObject(probed.outputText)
        let written = ((object["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:])
            .reduce(into: [String: String]()) { $0[$1.key.lowercased()] = $1.value }
        for (key, value) in Self.tags where !(ext == "m4a" && key == "track") {
            #expect(written[key] == value, ".\(ext) \(key): \(String(describing: written[key]))")
        }
        // info --json: a tags object with the same values.
        let info = try await jsonObject(try CLI.run(["info", "--json", output.path]).outputText)
        let shown = (info["tags"] as? [String: String] ?? [:]).reduce(into: [String: String]()) { $0[$1.key.lowercased()] = $1.value }
        #expect(shown["title"] == Self.tags["title"] && shown["artist"] == Self.tags["artist"], "\(shown)")
    }
}
