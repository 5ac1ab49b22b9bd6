/// At most a number of pieces of work at once; the rest wait their turn, in order, without
/// holding a thread.
actor AsyncLimit {
    private let width: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ width: Int) {
        self.width = width
    }

    /// `work`'s result, run once fewer than the limit are running.
    func run<Result: Sendable>(_ work: @Sendable () async throws -> Result) async throws -> Result {
        await acquire()
        defer { release() }
        return try await work()
    }

    private func acquire() async {
        if running < width {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
