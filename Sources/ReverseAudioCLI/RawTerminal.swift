import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal in raw mode while `play` takes keys: no line buffering, no echo, Ctrl-C read
/// as a key (so it quits cleanly), the cursor hidden. ``restore()`` puts back exactly what was
/// there, and runs on every way out: a normal end, an error, SIGTERM/SIGHUP (their handlers
/// end the playback, which restores), and `exit` itself (an `atexit` hook, for paths that
/// bypass the rest).
enum RawTerminal {
    /// The settings found on entry, while raw mode is on.
    nonisolated(unsafe) private static var saved: termios?
    private static let lock = NSLock()
    private static let hookInstalled: Void = { atexit { RawTerminal.restore() } }()

    /// Switches standard input's terminal to raw mode. False when it is not a terminal.
    static func enter() -> Bool {
        guard isatty(STDIN_FILENO) == 1 else { return false }
        _ = hookInstalled
        lock.lock()
        defer { lock.unlock() }
        guard saved == nil else { return true }
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return false }
        var raw = settings
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return false }
        saved = settings
        Console.errorRaw("\u{1B}[?25l")
        return true
    }

    /// Puts the terminal back as it was (once; later calls do nothing).
    static func restore() {
        lock.lock()
        defer { lock.unlock() }
        guard var settings = saved else { return }
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        saved = nil
        Console.errorRaw("\u{1B}[?25h")
    }
}
