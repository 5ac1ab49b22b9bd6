import Foundation
import Testing
import TestSupport

/// A nested folder of 40 real fixtures, as a music library is laid out, and what a batch over
/// it must produce: each output exactly once, each the reversal of its input, a manifest whose
/// last line per output carries that output's SHA-256.
struct BatchLibrary {
    let folder: TemporaryDirectory
    /// Input path under the library → output path under the output folder.
    let expected: [String: String]

    /// `Music/` in `parent` (or a fresh folder): 40 fixtures three folders deep, with `song.mp3`
    /// and `song.flac` side by side (their names keep the extension whatever the share).
    static func make() throws -> BatchLibrary {
        let folder = try TemporaryDirectory()
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.url("wav-pcm_u8-1ch-8000.wav").deletingLastPathComponent().path)
            .filter { name in
                ["wav", "flac", "mp3", "m4a", "m4r", "aif", "aiff", "aifc", "caf", "aac"].contains((name as NSString).pathExtension)
                    && !["bad-", "edge-"].contains { name.hasPrefix($0) } && name != "wav-pcm_s24le-6ch-96000.wav"
            }
            .sorted()
        try #require(names.count == 40, "40 good fixtures expected, found \(names.count)")
        var expected: [String: String] = [:]
        for (index, name) in names.enumerated() {
            let subfolder = ["", "artist a/", "artist a/album 1/", "artist b/album 2/disc 1/"][index % 4]
            // `.aifc` is not one of the nine extensions a folder walk takes; `.aif` is.
            var file = (name as NSString).pathExtension == "aifc" ? (name as NSString).deletingPathExtension + ".aif" : name
            if index == 5 { file = "song.mp3" }
            if index == 9 { file = "song.flac" }
            try FileManager.default.createDirectory(at: folder.file(subfolder), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Fixtures.url(name), to: folder.file(subfolder + file))
            expected[subfolder + file] = subfolder + (file as NSString).deletingPathExtension + "-REVERSED.wav"
        }
        // song.mp3 and song.flac share a folder only if their indexes do: keep the rule honest.
        if expected["artist a/song.mp3"] != nil && expected["artist a/song.flac"] != nil {
            expected["artist a/song.mp3"] = "artist a/song-mp3-REVERSED.wav"
            expected["artist a/song.flac"] = "artist a/song-flac-REVERSED.wav"
        }
        return BatchLibrary(folder: folder, expected: expected)
    }

    /// Every regular file under `folder`, as paths relative to it (hidden ones too).
    static func files(under folder: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var found: [String] = []
        for case let url as URL in enumerator where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            found.append(String(url.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1)))
        }
        return found.sorted()
    }

    /// `output` holds each expected output exactly once and nothing else but resume records;
    /// with `checkSamples`, each equals ffmpeg's reversal of its input.
    func expectComplete(_ output: URL, checkSamples: Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let files = Self.files(under: output)
        let outputs = files.filter { !$0.hasPrefix(".reverse-audio-state/") }
        #expect(outputs == expected.values.sorted(), "outputs", sourceLocation: sourceLocation)
        #expect(files.filter { $0.hasPrefix(".reverse-audio-state/") }.sorted() == expected.values.map { ".reverse-audio-state/\($0).json" }.sorted(),
                "one resume record per output, no temporary one left", sourceLocation: sourceLocation)
        if checkSamples {
            for (input, out) in expected {
                try await expectReversal(output.appendingPathComponent(out), of: folder.file(input), sourceLocation: sourceLocation)
            }
        }
    }

    /// The manifests' lines parse, every line names an expected output, and the last line for
    /// each output says done or skipped with the output's SHA-256 and size.
    func expectManifest(_ lines: [String], output: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var last: [String: [String: Any]] = [:]
        for line in lines {
            let object = try jsonObject(line)
            let name = try #require(object["output"] as? String, sourceLocation: sourceLocation)
            #expect(expected.values.contains(name), "\(name) is not an output", sourceLocation: sourceLocation)
            last[name] = object
        }
        #expect(last.keys.sorted() == expected.values.sorted(), "a line for every output", sourceLocation: sourceLocation)
        for (name, object) in last {
            let status = object["status"] as? String
            #expect(status == "done" || status == "skipped", "\(name): \(status ?? "nil")", sourceLocation: sourceLocation)
            let digest = try await ProcessRunner.run("sha256sum", [output.appendingPathComponent(name).path]).outputText.split(separator: " ").first.map(String.init)
            #expect(object["sha256"] as? String == digest, "\(name): manifest hash", sourceLocation: sourceLocation)
            let size = (try? FileManager.default.attributesOfItem(atPath: output.appendingPathComponent(name).path)[.size] as? Int) ?? -1
            #expect(object["outputSize"] as? Int == size, "\(name): manifest size", sourceLocation: sourceLocation)
            #expect((object["frames"] as? Int ?? 0) > 0 && (object["version"] as? String)?.hasPrefix("reverse-audio ") == true,
                    sourceLocation: sourceLocation)
        }
    }

    /// The lines of every `*.jsonl` file in `folder` (several shards' manifests, merged).
    static func manifestLines(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jsonl") }.flatMap {
            try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8).split(separator: "\n").map(String.init)
        }
    }
}
