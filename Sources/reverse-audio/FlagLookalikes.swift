/// Finds file names that the argument parser would read as a bundle of short flags.
///
/// `convert -dash.mp3 out.wav` would otherwise be parsed as `-d -a -s -h …`, print the help
/// and exit 0 without doing anything. A word that starts with a single `-` is only taken as
/// options when every letter in it is one of the tool's short options.
enum FlagLookalikes {
    /// Every short option the tool defines (`-h` help, `-o` output folder, `-y` overwrite).
    static let shortOptionLetters: Set<Character> = ["h", "o", "y"]

    /// The first argument before `--` that starts with `-` but is not made of short options.
    static func firstFileName(in arguments: [String]) -> String? {
        for argument in arguments {
            if argument == "--" { return nil }
            guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 1 else { continue }
            if !argument.dropFirst().allSatisfy(shortOptionLetters.contains) { return argument }
        }
        return nil
    }

    /// The usage error for `argument`.
    static func message(for argument: String) -> String {
        "\(argument): not an option; to name a file that starts with '-', write ./\(argument) or put -- before it"
    }
}
