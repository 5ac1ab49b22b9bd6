import ArgumentParser

/// The shared options of a command that writes one file (convert, video, trim, join, compose,
/// waveform), as one group: `-o`, `-y`/`-n`, `--progress`, `--verbose`/`--quiet`, `--json`.
/// A command declares it once, under the shared heading:
///
///     @OptionGroup(title: SharedOptions.title) var shared: SingleOutputOptions
///     var verbosity: VerbosityOptions { shared.verbosity }   // ReportingCommand
struct SingleOutputOptions: ParsableArguments {
    @OptionGroup var outputFile: OutputFileOption
    @OptionGroup var overwriting: OverwriteOptions
    @OptionGroup var progress: ProgressOptions
    @OptionGroup var verbosity: VerbosityOptions
    @OptionGroup var result: JSONResultOption

    /// True under `-y`.
    var overwrite: Bool { overwriting.overwrite }

    /// The file to write: `-o`, or `positional` where the command takes its output as an argument.
    func output(positional: String? = nil, command: String) throws -> String {
        try outputFile.path(positional: positional, command: command)
    }
}
