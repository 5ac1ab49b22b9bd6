import Foundation

/// A command whose help ends with examples. The same lines reach the manual: the tool adds
/// them to the description `--experimental-dump-help` gives `generate-manual`.
protocol ExampleCommand {
    /// Command lines, each with what it does after `#`.
    static var examples: [String] { get }
}

/// Adds each command's examples to its help text and to the manual.
enum HelpExamples {
    /// The examples section for `command`'s help: "EXAMPLES:" and one line each.
    static func section(for command: Any.Type) -> String? {
        guard let examples = (command as? ExampleCommand.Type)?.examples, !examples.isEmpty else { return nil }
        return "EXAMPLES:\n" + examples.map { "  " + $0 }.joined(separator: "\n")
    }

    /// The tool's `--experimental-dump-help` JSON with each command's examples at the end of its
    /// discussion, so that the manual generated from it shows them.
    static func addingExamples(toDump dump: String, commands: [String: Any.Type]) -> String {
        guard var root = (try? JSONSerialization.jsonObject(with: Data(dump.utf8))) as? [String: Any],
              let command = root["command"] as? [String: Any] else { return dump }
        root["command"] = adding(to: command, commands: commands)
        guard let data = try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]) else { return dump }
        return String(decoding: data, as: UTF8.self)
    }

    private static func adding(to command: [String: Any], commands: [String: Any.Type]) -> [String: Any] {
        var command = command
        if let name = command["commandName"] as? String, let type = commands[name], let section = section(for: type) {
            let discussion = command["discussion"] as? String ?? ""
            command["discussion"] = (discussion.isEmpty ? "" : discussion + "\n\n") + section
        }
        if let subcommands = command["subcommands"] as? [[String: Any]] {
            command["subcommands"] = subcommands.map { adding(to: $0, commands: commands) }
        }
        return command
    }
}
