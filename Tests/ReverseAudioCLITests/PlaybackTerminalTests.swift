import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `play` on a terminal, driven through tmux: the status line, the keys, a quick and clean exit.
@Suite(.serialized, .runsProcesses) struct PlaybackTerminalTests {
    /// A tmux server of our own (its socket in the test's folder), so nothing else's sessions
    /// are touched and nothing is left behind.
    struct Tmux {
        let socket: String

        @discardableResult
        func run(_ arguments: [String]) async throws -> ProcessResult {
            try await ProcessRunner.run("tmux", ["-S", socket] + arguments)
        }

        /// Starts the session, its shell running `command`, with `remain-on-exit` so that the
        /// screen can be read after the command ends. Not through Foundation's `Process`: the
        /// tmux server this forks would inherit the descriptor Process watches for the child's
        /// exit and keep it open, so the client would never be reaped. posix_spawn, with every
        /// descriptor above 2 closed, has nothing to leak.
        /// Runs `body` with a tmux of its own on `socket`, whose server is killed afterwards,
        /// whether `body` finished or threw.
        static func with(socket: String, _ body: (Tmux) async throws -> Void) async throws {
            let tmux = Tmux(socket: socket)
            do {
                try await body(tmux)
            } catch {
                await tmux.kill()
                throw error
            }
            await tmux.kill()
        }

        /// ``spawn(_:configuration:)``, waited for on a thread of its own.
        func start(_ command: String, configuration: URL) async throws -> Int32 {
            try await ProcessRunner.onThreadOfItsOwn { [self] in spawn(command, configuration: configuration) }
        }

        private func spawn(_ command: String, configuration: URL) -> Int32 {
            let arguments = ["tmux", "-S", socket, "-f", configuration.path, "-u", "new-session", "-d", "-s", "play",
                             "-x", "150", "-y", "6", command]
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            for descriptor in Int32(0)...2 {
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
            }
            // glibc ignores closing a descriptor that is not open (only out-of-range ones fail).
            for descriptor in Int32(3)..<Int32(min(sysconf(Int32(_SC_OPEN_MAX)), 4096)) {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
            // The test's thread blocks most signals; tmux and the player must not inherit that mask.
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            sigemptyset(&none)
            posix_spawnattr_setsigmask(&attributes, &none)
            var all = sigset_t()
            sigfillset(&all)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid = pid_t()
            let spawned = posix_spawnp(&pid, "tmux", &actions, &attributes, &argv, environ)
            guard spawned == 0 else { return spawned }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return status
        }

        func screen() async throws -> String { try await run(["capture-pane", "-p", "-t", "play"]).outputText }

        /// Polls the screen until `predicate` holds or `timeout` seconds pass.
        func waitForScreen(timeout: Double, _ predicate: (String) -> Bool) async throws -> String {
            let deadline = Date(timeIntervalSinceNow: timeout)
            var text = try await screen()
            while !predicate(text) && Date() < deadline {
                try await Task.sleep(for: .milliseconds(20))
                text = try await screen()
            }
            return text
        }

        func kill() async { _ = try? await run(["kill-server"]) }
    }

    @Test("r flips the arrow, space pauses and resumes; q and Ctrl-C quit within 0.5 s with status 0 and the terminal as it was",
          arguments: ["q", "C-c"])
    func keys(_ quitKey: String) async throws {
        let directory = try TemporaryDirectory()
        let before = directory.file("before"), after = directory.file("after"), status = directory.file("status")
        // The null device takes frames as fast as they come: --loop keeps it playing until a key
        // stops it, and it starts paused (an event at output frame 0), so it waits for keys idle.
        let script = directory.file("play.sh")
        try """
            stty -g > '\(before.path)'
            '\(BuiltProducts.reverseAudio.path)' play '\(Fixtures.url("flac-s16-2ch-44100.flac").path)' --device null --loop --events 0:pause
            echo $? > '\(status.path).partial'; stty -g > '\(after.path)'; mv '\(status.path).partial' '\(status.path)'
            """.write(to: script, atomically: true, encoding: .utf8)
        let configuration = directory.file("tmux.conf")
        try "set -g remain-on-exit on\n".write(to: configuration, atomically: true, encoding: .utf8)
        try await Tmux.with(socket: directory.file("tmux.socket").path) { tmux in
            try #require(try await tmux.start("sh '\(script.path)'", configuration: configuration) == 0, "tmux could not start a session")

            let paused = try await tmux.waitForScreen(timeout: 10) { $0.contains(">> forward (paused)") }
            #expect(paused.contains(">> forward (paused)") && paused.contains("flac-s16-2ch-44100.flac")
                    && paused.contains("00:00.0 / 00:01.0"), "status line: \(paused)")
            #expect(paused.contains("loop 00:00.0-00:01.0"), "the whole-file loop is shown: \(paused)")

            try await tmux.run(["send-keys", "-t", "play", "r"])
            let flipped = try await tmux.waitForScreen(timeout: 2) { $0.contains("<< reverse") }
            #expect(flipped.contains("<< reverse (paused)") && !flipped.contains(">> forward"), "after r: \(flipped)")

            try await tmux.run(["send-keys", "-t", "play", "Space"])
            let resumed = try await tmux.waitForScreen(timeout: 2) { $0.contains("<< reverse") && !$0.contains("(paused)") }
            #expect(resumed.contains("<< reverse") && !resumed.contains("(paused)"), "after space: \(resumed)")

            try await tmux.run(["send-keys", "-t", "play", quitKey])
            let pressed = Date()
            while !FileManager.default.fileExists(atPath: status.path) && Date().timeIntervalSince(pressed) < 5 {
                try await Task.sleep(for: .milliseconds(10))
            }
            let elapsed = Date().timeIntervalSince(pressed)
            #expect(elapsed < 0.5, "\(quitKey) took \(elapsed) s to quit")
            #expect((try? String(contentsOf: status, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
            let saved = try String(contentsOf: before, encoding: .utf8)
            let restored = try String(contentsOf: after, encoding: .utf8)
            #expect(!saved.isEmpty && saved == restored, "the terminal settings are restored")
            let final = try await tmux.screen()
            #expect(final.contains("played ") && final.contains("on null"), "the summary line: \(final)")
        }
    }
}
