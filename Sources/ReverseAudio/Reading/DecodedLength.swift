import Foundation

extension PCMDecoder {
    /// The frames `url` decodes to, or nil if it cannot be decoded (cancellation still stops):
    /// how a file written without decoding (a packet copy) is checked before it is kept.
    static func decodedLength(of url: URL, cancellation: CancellationFlag) throws -> Int64? {
        do {
            let check = try PCMDecoder(url: url, sampleFormat: nil, isCancelled: cancellation.check)
            while try check.readChunk({ _, _ in }) {}
            return check.framesDecoded
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return nil
        }
    }
}
