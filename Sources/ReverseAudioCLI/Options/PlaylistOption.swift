import ArgumentParser
import Foundation
import ReverseAudio

/// `--allow-playlists`: an input named on the command line may be a playlist (HLS, DASH,
/// ffconcat), whose entries are then read. Off by default: such a file reads other files and
/// addresses than the one named. Files found by walking a folder are never opened as one.
struct PlaylistOption: ParsableArguments {
    @Flag(help: "Read an input named here that is a playlist (HLS, DASH, ffconcat) and its entries; files found in folders never are.")
    var allowPlaylists = false

    /// Allows every argument of the command line (as given and as an absolute path) to be a
    /// playlist: only the names a user typed, never the files a walk finds under a folder.
    func apply(arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        guard allowPlaylists else { return }
        let names = arguments.filter { !$0.hasPrefix("-") || $0 == "-" }
        InputPolicy.allowPlaylists(at: names + names.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
    }
}
