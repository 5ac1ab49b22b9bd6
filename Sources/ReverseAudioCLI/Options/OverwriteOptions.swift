import ArgumentParser

/// `-y` and `-n`, as ffmpeg has them: overwrite an existing output, or never overwrite (an
/// existing output is then an error, without asking). Never overwriting is the default; `-n`
/// states it. Shared by every command that writes a file.
struct OverwriteOptions: ParsableArguments {
    @Flag(name: [.customShort("y"), .customLong("overwrite")],
          help: "Overwrite existing outputs (never an input); a reverse batch writes again the files it had done.")
    var overwrite = false

    @Flag(name: [.customShort("n"), .customLong("no-overwrite")],
          help: "Never overwrite: an existing output is an error, without asking (the default, stated).")
    var neverOverwrite = false

    func validate() throws {
        if overwrite && neverOverwrite { throw ValidationError("-y overwrites and -n never does: give one of them") }
    }
}
