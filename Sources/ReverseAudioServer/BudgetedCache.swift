/// Values kept within a budget of bytes, the least recently used going first: what the
/// server keeps of its files (waveform data, stream facts) does not grow with the requests
/// made. A value over a quarter of the budget is not kept (it would push out too many).
struct BudgetedCache<Key: Hashable, Value> {
    private var values: [Key: (value: Value, bytes: Int)] = [:]
    private var recency: [Key] = []
    /// Bytes kept at most.
    let budget: Int
    /// Bytes kept now.
    private(set) var bytes = 0

    init(budget: Int) {
        self.budget = budget
    }

    /// The value kept for `key`, now the most recently used.
    mutating func value(for key: Key) -> Value? {
        guard let found = values[key] else { return nil }
        if recency.last != key {
            recency.removeAll { $0 == key }
            recency.append(key)
        }
        return found.value
    }

    /// Keeps `value` (of `size` bytes) for `key` unless one is kept already, then drops the
    /// least recently used until the budget holds.
    mutating func keep(_ value: Value, size: Int, for key: Key) {
        guard size <= budget / 4, values[key] == nil else { return }
        values[key] = (value, size)
        recency.append(key)
        bytes += size
        while bytes > budget, !recency.isEmpty {
            let victim = recency.removeFirst()
            bytes -= values.removeValue(forKey: victim)?.bytes ?? 0
        }
    }
}
