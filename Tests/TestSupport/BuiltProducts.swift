import Foundation

/// Executables built alongside the tests.
public enum BuiltProducts {
    /// The folder SwiftPM builds products into (where the test bundle itself lives).
    public static var directory: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        #endif
        return Bundle.main.bundleURL
    }

    /// The `reverse-audio` command-line tool under test: `REVERSE_AUDIO_BIN` when set (what
    /// `scripts/test` does, with the release build it packages: a debug build spends most of a
    /// short run in the argument parser's checks of itself), else the debug build beside the tests.
    public static var reverseAudio: URL {
        if let given = ProcessInfo.processInfo.environment["REVERSE_AUDIO_BIN"], !given.isEmpty {
            return URL(fileURLWithPath: given)
        }
        return directory.appendingPathComponent("reverse-audio")
    }

    /// The folder of the tool under test, where `reverse-audio-serve` is installed beside it.
    public static var toolDirectory: URL {
        reverseAudio.deletingLastPathComponent()
    }
}
