#if os(Linux)
import CALSA

/// A failed ALSA call: the negative error code, `snd_strerror`'s text, and what we were doing.
package struct ALSAError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The negative errno ALSA returned.
    package let code: Int32
    /// What we were doing, phrased to follow "while": "opening the device".
    package let operation: String
    /// ALSA's own text for `code`.
    package let message: String

    package init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
        message = snd_strerror(code).map { String(cString: $0) } ?? "ALSA error \(code)"
    }

    package var description: String { "\(operation) failed: \(message)" }

    /// Throws for a negative return value, else returns it.
    @discardableResult
    package static func check(_ result: Int32, _ operation: String) throws(ALSAError) -> Int32 {
        guard result >= 0 else { throw ALSAError(code: result, operation: operation) }
        return result
    }
}
#endif
