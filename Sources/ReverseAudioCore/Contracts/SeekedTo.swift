/// What a seek asked for and what it reached, as Symphonia's accurate seek reports them.
public struct SeekedTo: Sendable, Equatable {
    /// The frame asked for.
    public let required: Int64
    /// The frame the next read starts at: ``required``, or the end of the source when the
    /// request lies beyond it.
    public let reached: Int64

    /// A seek that asked for `required` and reached `reached`.
    public init(required: Int64, reached: Int64) {
        self.required = required
        self.reached = reached
    }
}
