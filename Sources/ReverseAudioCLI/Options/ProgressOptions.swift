import ArgumentParser

/// `--progress`, for every command that works long enough to show it.
struct ProgressOptions: ParsableArguments {
    @Option(help: "Progress on standard error: a bar, JSON lines ({\"fraction\":0.42,...}) or nothing; auto, the default, draws a bar on a terminal (nothing under --quiet).")
    var progress: ProgressStyle?

    /// The style asked for; without one, `auto`, or nothing under `--quiet`.
    var style: ProgressStyle { progress ?? (Console.isQuiet ? .none : .auto) }
}
