import Foundation
import ReverseAudioCore

/// What an ``AudioPlayer``'s threads share: commands waiting for the next render call, the
/// status after the last one, the stop request, and which threads are still running.
final class PlayerControl: @unchecked Sendable {
    // @unchecked: every stored property below is touched only under `condition`'s lock.
    private let condition = NSCondition()
    private var commands: [PlaybackCommand] = []
    private var stopping = false
    private var published: PlaybackStatus
    private var running = 0
    private var started = false

    init(status: PlaybackStatus) {
        published = status
    }

    /// Queues `command` for the first frame of the next render call.
    func send(_ command: PlaybackCommand) {
        condition.lock()
        commands.append(command)
        condition.broadcast()
        condition.unlock()
    }

    /// The commands queued since the last call, and whether a stop was asked for.
    func take() -> (commands: [PlaybackCommand], stop: Bool) {
        condition.lock()
        defer { condition.unlock() }
        let taken = commands
        commands.removeAll()
        return (taken, stopping)
    }

    /// Waits until a command or a stop arrives, or `timeout` seconds pass.
    func waitForCommand(timeout: Double) {
        condition.lock()
        if commands.isEmpty && !stopping { _ = condition.wait(until: Date(timeIntervalSinceNow: timeout)) }
        condition.unlock()
    }

    /// Asks every thread to stop.
    func requestStop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// True once a stop was asked for.
    var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    /// The status after the last render call.
    var status: PlaybackStatus {
        condition.lock()
        defer { condition.unlock() }
        return published
    }

    func publish(_ status: PlaybackStatus) {
        condition.lock()
        published = status
        condition.unlock()
    }

    /// True the first time only: a player starts once. Counts its `threads` as running in the
    /// same step, so a ``waitForThreads()`` that comes in between still waits for them.
    func markStarted(threads: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !started, !stopping else { return false }
        started = true
        running += threads
        return true
    }

    /// Counts a thread as finished (as it ends, or when it will not start after all).
    func threadFinished() {
        condition.lock()
        running -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every started thread has finished.
    func waitForThreads() {
        condition.lock()
        while running > 0 { condition.wait() }
        condition.unlock()
    }
}
