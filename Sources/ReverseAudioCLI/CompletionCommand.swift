import ArgumentParser

/// `reverse-audio completion bash|zsh|fish`: the shell completion script, with file names
/// completed wherever the tool takes a file (bash falls back to them with `-o default`).
struct CompletionCommand: ParsableCommand, ExampleCommand {
    static let configuration = CommandConfiguration(
        commandName: "completion",
        abstract: "Print a shell completion script: source <(reverse-audio completion bash).")

    static let examples = [
        "source <(reverse-audio completion bash)",
        "reverse-audio completion fish > ~/.config/fish/completions/reverse-audio.fish",
    ]

    enum Shell: String, ExpressibleByArgument, CaseIterable {
        case bash, zsh, fish
    }

    @Argument(help: "The shell.")
    var shell: Shell

    func run() {
        let kind: CompletionShell = shell == .bash ? .bash : (shell == .zsh ? .zsh : .fish)
        var script = ReverseAudioCommand.completionScript(for: kind)
        if shell == .bash {
            script = script.replacingOccurrences(of: "complete -o filenames -F", with: "complete -o default -o filenames -F")
        }
        Console.out(script)
    }
}
