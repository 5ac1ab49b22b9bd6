/// A mistake in what the command line (or a plan or event script it names) asks for, found by
/// the tool itself: one line, naming what is wrong and what to write instead.
struct CommandLineError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
