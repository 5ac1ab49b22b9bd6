import Foundation
import Testing
import TestSupport

/// The oracle's one shortcut: a file whose first bytes are another container's signature is
/// not probed for an MP4's stated end. It must never skip a file ffprobe reads as MP4.
@Suite(.runsProcesses) struct OracleShortcutTests {
    @Test("no fixture the shortcut calls surely not MP4 is one ffprobe reads as mov/mp4; every .m4a is probed")
    func shortcutAgreesWithFFprobe() async throws {
        var skipped = 0
        for name in Fixtures.names {
            let file = Fixtures.url(name)
            guard FFmpegOracle.isSurelyNotMP4(file) else { continue }
            skipped += 1
            let probe = try await ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0", file.path])
            #expect(!probe.outputText.contains("mov"), "\(name): \(probe.outputText)")
            #expect(!["m4a", "mp4", "mov", "m4r", "3gp"].contains(file.pathExtension.lowercased()), "\(name)")
        }
        #expect(skipped > 20, "the shortcut skipped only \(skipped) fixtures")
    }
}
