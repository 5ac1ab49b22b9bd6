import ArgumentParser
import Foundation

/// `--json`: what a command did, as JSON on standard output (one object a line, one per file)
/// instead of the text. Shared by every command that has a result.
struct JSONResultOption: ParsableArguments {
    @Flag(help: "Print the result as JSON on standard output instead of text: one object a line, one per file.")
    var json = false

    /// Prints a command's result: `text`, or `object` as one JSON line with `--json`. On
    /// standard output, unless the audio goes there (`output` is standard output): then on
    /// standard error. `--quiet` silences the text, never the JSON asked for.
    func print(_ text: String, json object: [String: Any], output: String? = nil) {
        print(text, jsonLine: Self.line(object), output: output)
    }

    /// ``print(_:json:output:)`` with the JSON already made (an `Encodable`'s: see ``line(encoding:)``).
    func print(_ text: String, jsonLine: @autoclosure () throws -> String, output: String? = nil) rethrows {
        if !json && Console.isQuiet { return }
        let line = json ? try jsonLine() : text
        if let output, Console.isStandardOutput(output) { Console.error(line) } else { Console.out(line) }
    }

    /// `object` as one line of JSON, keys sorted, slashes as they are.
    static func line(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// `value` as one line of JSON, keys sorted, slashes as they are.
    static func line(encoding value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
