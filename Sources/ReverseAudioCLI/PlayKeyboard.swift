import Foundation
import ReverseAudio
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads keys from the terminal on a thread of its own and turns them into player commands:
/// space pause/resume, `r` toggle direction, ←/→ seek −/+5 s, `[`/`]` loop start/end at the
/// cursor, `l` loop on/off, `q` or Ctrl-C quit.
final class PlayKeyboard: @unchecked Sendable {
    // @unchecked: `markers` and `reading` are only touched under `lock`.
    private let player: AudioPlayer
    private let lock = NSLock()
    private var markers: LoopMarkers
    private var reading = true
    private let finished = DispatchSemaphore(value: 0)
    /// Seconds a ← or → moves the cursor.
    static let seekSeconds: Int64 = 5

    init(player: AudioPlayer, markers: LoopMarkers) {
        self.player = player
        self.markers = markers
    }

    /// The loop markers as the keys left them.
    var loopMarkers: LoopMarkers {
        lock.lock()
        defer { lock.unlock() }
        return markers
    }

    /// Starts reading standard input.
    func start() {
        let thread = Thread { [self] in
            readKeys()
            finished.signal()
        }
        thread.name = "reverse-audio.keys"
        thread.start()
    }

    /// Stops reading (within 50 ms) and waits for the thread.
    func stop() {
        lock.lock()
        let wasReading = reading
        reading = false
        lock.unlock()
        if wasReading { finished.wait() }
    }

    private var isReading: Bool {
        lock.lock()
        defer { lock.unlock() }
        return reading
    }

    private func readKeys() {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while isReading {
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 50)
            guard ready > 0 else { continue }
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            guard count > 0 else {
                // The terminal went away: nothing more will come.
                if count == 0 || errno != EINTR { return }
                continue
            }
            for key in PlayKey.decode(Array(buffer[0..<count]), pending: &pending) {
                handle(key)
                if key == .quit { return }
            }
        }
    }

    private func handle(_ key: PlayKey) {
        let status = player.status
        let position = status.state.position
        let step = Self.seekSeconds * Int64(status.sampleRate)
        switch key {
        case .pauseResume: player.send(status.state.isPlaying ? .pause : .play)
        case .toggleDirection: player.send(.toggleDirection)
        case .back: player.send(.seek(toFrame: position - step))
        case .forward: player.send(.seek(toFrame: position + step))
        case .loopStart, .loopEnd, .loopOnOff:
            lock.lock()
            switch key {
            case .loopStart: markers.start = position; markers.isOn = true
            case .loopEnd: markers.end = position; markers.isOn = true
            default: markers.isOn.toggle()
            }
            let region = markers.region(frameCount: status.state.frameCount)
            lock.unlock()
            player.send(.loop(region))
        case .quit:
            lock.lock()
            reading = false
            lock.unlock()
            player.stop()
        }
    }
}
