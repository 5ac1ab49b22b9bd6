/// Finds file names that the argument parser would read as a bundle of short flags.
///
/// `convert -dash.mp3 out.wav` would otherwise be parsed as `-d -a -s -h …`, print the help
/// and exit 0 without doing anything. A word that starts with a single `-` is only taken as
/// options when every letter in it is one of the tool's short options.
enum FlagLookalikes {
    /// Every short option the tool defines (`-h` help, `-o` output, `-y` overwrite, `-n` never
    /// overwrite, `-q` quiet).
    static let shortOptionLetters: Set<Character> = ["h", "o", "y", "n", "q"]

    /// `arguments` with each value that starts with `-` joined to the long option before it
    /// (`--jobs -1` → `--jobs=-1`), when that option takes a value: the parser then reads it as
    /// the value it is, and the option's own check says what is wrong with it ("--jobs must be
    /// 1 to 1024, not -1") rather than taking it for a file name that looks like a flag.
    /// - Parameter takesValue: true for a long option (`--jobs`) that takes a value.
    static func joiningDashValues(_ arguments: [String], takesValue: (String) -> Bool) -> [String] {
        var joined: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return joined + arguments[index...] }
            if index + 1 < arguments.count, argument.hasPrefix("--"), !argument.contains("="),
               isDashWord(arguments[index + 1]), takesValue(argument) {
                joined.append(argument + "=" + arguments[index + 1])
                index += 2
            } else {
                joined.append(argument)
                index += 1
            }
        }
        return joined
    }

    /// True for a word that starts with one `-` and has more after it (`-1`, `-y`, `-dash.mp3`).
    static func isDashWord(_ argument: String) -> Bool {
        argument.hasPrefix("-") && !argument.hasPrefix("--") && argument.count > 1
    }

    /// The first argument before `--` that starts with `-` but is not made of short options.
    static func firstFileName(in arguments: [String]) -> String? {
        for argument in arguments {
            if argument == "--" { return nil }
            guard isDashWord(argument) else { continue }
            if !argument.dropFirst().allSatisfy(shortOptionLetters.contains) { return argument }
        }
        return nil
    }

    /// What ffmpeg's and SoX's options are called here: a habit from those tools is answered
    /// with ours rather than taken for a file name.
    static let peerOptions: [String: String] = [
        "-i": "the input is the first argument, without -i",
        "-ss": "use --start", "-to": "use --end", "-t": "use --duration",
        "-ar": "use --sample-rate", "-ac": "use --channels (1: --channels mix)", "-b:a": "use --bitrate",
        "-ab": "use --bitrate", "-f": "use --format", "-af": "use --reverse, --gain or --fade-in/--fade-out",
        "-filter:a": "use --reverse, --gain or --fade-in/--fade-out", "-c:a": "use --codec", "-acodec": "use --codec",
        "-sample_fmt": "use --sample-format", "-threads": "use --threads", "-v": "use --verbose or --quiet",
        "-loglevel": "use --verbose or --quiet", "-hide_banner": "nothing to hide: drop it", "-nostdin": "drop it",
    ]

    /// The usage error for `argument`.
    static func message(for argument: String) -> String {
        if let ours = peerOptions[argument] {
            return "\(argument): not an option of reverse-audio (ffmpeg's); \(ours)"
        }
        return "\(argument): not an option; to name a file that starts with '-', write ./\(argument) or put -- before it"
    }
}
