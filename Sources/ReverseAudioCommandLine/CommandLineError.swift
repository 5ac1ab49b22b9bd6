/// A mistake in what the command line (or a plan or event script it names) asks for, found by
/// the tool itself: one line, naming what is wrong and what to write instead. A usage error:
/// the tool exits with 64 (`EX_USAGE`).
public struct CommandLineError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
