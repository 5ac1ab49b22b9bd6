import ReverseAudioCore

/// Time values given as options (`--start 1:02.5`, `--pad-end 0.5`): ``TimePosition``'s strict
/// reading with its limits, and the error the argument parser shows after the option's name
/// (a usage error, exit 64).
public enum TimeValue {
    /// Why a value was refused: the reason alone (the parser names the value and the option).
    package struct Invalid: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// A position or a length: at most ``TimePosition/maximumSeconds`` (or
    /// ``TimePosition/maximumFrames`` frames).
    public static func position(_ text: String) throws -> TimePosition {
        do {
            return try TimePosition(parsing: text)
        } catch {
            throw Invalid(description: error.reason.removingLeadingIs())
        }
    }

    /// A silence: at most ``CompositionPiece/maximumSilenceSeconds`` in seconds (a frame count is
    /// checked against the output's rate when it is known).
    public static func silence(_ text: String) throws -> TimePosition {
        do {
            return try TimePosition(parsing: text, maximumSeconds: CompositionPiece.maximumSilenceSeconds, limitName: "the longest silence")
        } catch {
            throw Invalid(description: error.reason.removingLeadingIs())
        }
    }
}

extension String {
    /// "is more than …" → "more than …", after "The value 'X' is invalid for '--opt':".
    fileprivate func removingLeadingIs() -> String {
        hasPrefix("is ") ? String(dropFirst(3)) : self
    }
}
