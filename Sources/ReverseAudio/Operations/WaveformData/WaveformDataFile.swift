import Foundation
import ReverseAudioCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One zoom level's file, in audiowaveform's `.dat` or `.json` layout, byte for byte.
///
/// Both layouts state the number of pixels before the pixels, and the pixels of an hour are
/// not held in memory: they stream into an unnamed file beside the output, and the finished
/// file is the header followed by a copy of that file (a few megabytes for an hour).
final class WaveformDataFile {
    let destination: OutputFile
    private let format: WaveformData.Format
    private let bits: Int
    private let sampleRate: Int
    private let samplesPerPixel: Int
    private let channels: Int
    private let body: TemporaryPCMFile
    private var bodySize: Int64 = 0
    private var buffer: [UInt8] = []
    private var pixels: Int64 = 0
    private static let bufferSize = 1 << 16

    init(destination: OutputFile, format: WaveformData.Format, bits: Int, sampleRate: Int, samplesPerPixel: Int,
         channels: Int) throws {
        self.destination = destination
        self.format = format
        self.bits = bits
        self.sampleRate = sampleRate
        self.samplesPerPixel = samplesPerPixel
        self.channels = channels
        body = try TemporaryPCMFile(in: destination.temporaryFolder, bytesPerFrame: 1)
        buffer.reserveCapacity(Self.bufferSize + 64)
    }

    /// Appends one pixel: each channel's smallest then largest sample. At 8 bits a value is
    /// divided by 256 and truncated toward zero, as audiowaveform scales it.
    func append(lows: UnsafePointer<Int16>, highs: UnsafePointer<Int16>) throws {
        for channel in 0..<channels {
            appendValue(lows[channel])
            appendValue(highs[channel])
        }
        pixels += 1
        if buffer.count >= Self.bufferSize { try flush() }
    }

    private func appendValue(_ value: Int16) {
        switch (format, bits) {
        case (.dat, 8):
            buffer.append(UInt8(bitPattern: Int8(value / 256)))
        case (.dat, _):
            buffer.append(UInt8(truncatingIfNeeded: value))
            buffer.append(UInt8(truncatingIfNeeded: value >> 8))
        case (.json, _):
            // Every number but the very first is preceded by a comma.
            if bodySize > 0 || !buffer.isEmpty { buffer.append(UInt8(ascii: ",")) }
            Self.appendDecimal(Int(bits == 8 ? value / 256 : value), to: &buffer)
        }
    }

    /// Writes the header and the pixels into the output and publishes it.
    func finish() throws {
        try flush()
        let path = destination.url.displayPath
        guard pixels <= Int64(UInt32.max) else {
            throw ReverseAudioError.output(.writeFailed(path: path, reason: "\(pixels) pixels: more than the format's 32-bit count"))
        }
        let named = OutputFile.descriptorNumber(destination.temporaryURL)
        let descriptor = named ?? open(destination.temporaryURL.path, O_WRONLY | O_TRUNC | O_CREAT | O_NOCTTY, 0o666)
        guard descriptor >= 0 else {
            throw ReverseAudioError.output(.writeFailed(path: path, reason: String(cString: strerror(errno))))
        }
        defer { if named == nil { close(descriptor) } }
        try Self.write(header, to: descriptor, path: path)
        try body.copy(to: URL(fileURLWithPath: "/dev/fd/\(descriptor)"), path: path)
        if format == .json { try Self.write(Array("]}\n".utf8), to: descriptor, path: path) }
        try destination.commit()
    }

    /// The bytes before the pixels.
    private var header: [UInt8] {
        switch format {
        case .dat:
            var header: [UInt8] = []
            func append(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
            append(channels == 1 ? 1 : 2)
            append(bits == 8 ? 1 : 0)  // flags: bit 0 says 8-bit values
            append(UInt32(sampleRate))
            append(UInt32(samplesPerPixel))
            append(UInt32(pixels))
            if channels != 1 { append(UInt32(channels)) }
            return header
        case .json:
            return Array(("{\"version\":2,\"channels\":\(channels),\"sample_rate\":\(sampleRate)"
                          + ",\"samples_per_pixel\":\(samplesPerPixel),\"bits\":\(bits),\"length\":\(pixels),\"data\":[").utf8)
        }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try body.write($0, frames: $0.count, at: bodySize) }
        bodySize += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32, path: String) throws {
        var sent = 0
        while sent < bytes.count {
            let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + sent, bytes.count - sent) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw ReverseAudioError.output(.writeFailed(path: path, reason: String(cString: strerror(errno)))) }
            sent += written
        }
    }

    /// Appends `value` in decimal, as C++ streams print an int.
    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { digits in
            repeat {
                digits[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(digits[index]) }
        }
    }
}
