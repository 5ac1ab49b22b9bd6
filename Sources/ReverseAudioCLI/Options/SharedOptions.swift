/// The options every command shares where they mean something (`-o`, `-y`/`-n`, `--progress`,
/// `--verbose`/`--quiet`, `--json`), listed under one heading in each command's help.
enum SharedOptions {
    /// The help section they are listed under.
    static let title = "Shared options"
}
