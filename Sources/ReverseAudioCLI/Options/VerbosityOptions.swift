import ArgumentParser
import ReverseAudio

/// `--verbose` and `--quiet`: how much besides the result a command says. Shared by every
/// command; the tool applies them once, before the command runs (see ``ReportingCommand``).
struct VerbosityOptions: ParsableArguments {
    @Flag(help: "Explain what was done, and show FFmpeg's own warnings.")
    var verbose = false

    @Flag(name: [.customShort("q"), .long],
          help: "Errors only: no result line, warning or progress bar (results asked for with --json still print).")
    var quiet = false

    // Here because every command that reads inputs carries this group and applies it first.
    @OptionGroup var playlists: PlaylistOption

    func validate() throws {
        if verbose && quiet { throw ValidationError("--verbose and --quiet exclude each other: give one of them") }
    }

    /// Sets what the console prints and what FFmpeg's log shows, for the whole run.
    func apply() {
        playlists.apply()
        Console.isQuiet = quiet
        if verbose {
            // FFmpeg's own warnings, as ours: one line each, its component named, no pointer.
            FFmpegDiagnostics.routeWarnings { Console.error("reverse-audio: warning: FFmpeg: \($0)") }
        } else {
            FFmpegDiagnostics.show(.quiet)
        }
    }
}

/// A command with the shared `--verbose` and `--quiet`, applied before it runs.
protocol ReportingCommand {
    var verbosity: VerbosityOptions { get }
}
