import Foundation

/// Text shown in a message with its control characters escaped (`\0`, `\t`, `\n`, `\r`,
/// `\x1B`; C1's as `\u{9B}`, since a terminal may act on them in UTF-8 too), so that a name or
/// a value never moves the cursor or ends a line.
package enum ControlEscaping {
    /// `text` with every control character (C0, DEL and C1) escaped; anything else as it is.
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0: result += "\\0"
            case 0x09: result += "\\t"
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0..<0x20, 0x7F: result += String(format: "\\x%02X", scalar.value)
            case 0x80...0x9F: result += String(format: "\\u{%X}", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
