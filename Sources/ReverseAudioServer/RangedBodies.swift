import Foundation
import Hummingbird
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bodies answered by byte ranges: a virtual WAV made as it is read, and a file read through
/// its descriptor.
extension Routes {
    /// A body of `size` bytes answered whole (200) or by the one range `request` asks (206 with
    /// `Content-Range`; 416 past the end), made piece by piece by `bytes` as the client reads:
    /// each piece waits until the one before is taken, so memory stays at one piece.
    static func ranged(_ request: Request, size: Int, pieceBytes: Int, headers given: HTTPFields,
                       bytes: @escaping @Sendable (ClosedRange<Int>) async throws -> ByteBuffer) -> Response {
        var headers = given
        headers[.acceptRanges] = "bytes"
        let range: ClosedRange<Int>
        switch ByteRange(header: request.headers[.range], size: size) {
        case .unsatisfiable:
            return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(size)", .acceptRanges: "bytes"])
        case .whole:
            guard size > 0 else { return Response(status: .ok, headers: headers, body: .init()) }
            range = 0...(size - 1)
        case .part(let part):
            range = part
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(size)"
        }
        let body = ResponseBody(contentLength: range.count) { writer in
            var at = range.lowerBound
            while at <= range.upperBound {
                try Task.checkCancellation()
                let end = min(at + pieceBytes - 1, range.upperBound)
                // Suspends while the client is not reading.
                try await writer.write(try await bytes(at...end))
                at = end + 1
            }
            try await writer.finish(nil)
        }
        return Response(status: headers[.contentRange] == nil ? .ok : .partialContent, headers: headers, body: body)
    }

    /// `file` as a download (`Content-Disposition: attachment`, its name), whole or by ranges
    /// (a browser seeks in a result it plays only when they are answered), read through the
    /// descriptor it was opened with.
    static func download(_ request: Request, _ file: FolderFile) throws -> Response {
        let name = (file.name as NSString).lastPathComponent
        let size = Int(file.key.size)
        let ascii = String(name.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 32 ? Character($0) : "_" })
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;,"))) ?? ascii
        let headers: HTTPFields = [.contentType: Page.mediaType(of: URL(fileURLWithPath: name)),
                                   .contentDisposition: "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"]
        return ranged(request, size: size, pieceBytes: 256 * 1024, headers: headers) { piece in
            try await OffThread.run {
                var bytes = [UInt8](repeating: 0, count: piece.count)
                let read = bytes.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress, piece.count, off_t(piece.lowerBound)) }
                guard read == piece.count else { throw HTTPError(.conflict, message: "\(name) changed while it was read") }
                return ByteBuffer(bytes: bytes)
            }
        }
    }
}
