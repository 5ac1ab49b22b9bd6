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

    /// The `reverse-audio` command-line tool.
    public static var reverseAudio: URL {
        directory.appendingPathComponent("reverse-audio")
    }
}
