import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `reverse-audio serve FOLDER --port 0` running for a test: its URL, read from the line it
/// prints, and the process to signal.
final class RunningServer: @unchecked Sendable {
    // @unchecked: the process is only signalled and waited for.
    let process = Process()
    let port: Int
    let token: String?
    private let errors = CollectedText()

    /// What a process writes on a pipe, collected as it comes.
    final class CollectedText: @unchecked Sendable {
        // @unchecked: `data` is touched only under `lock`.
        private let lock = NSLock()
        private var data = Data()
        func append(_ more: Data) { lock.withLock { data.append(more) } }
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    }

    /// Starts the server on `folder` with `extra` arguments and waits (up to 20 s) for its URL.
    /// `shownHost` is the address the server prints (the one it is bound to).
    init(_ folder: URL, _ extra: [String] = [], temporary: URL? = nil, environment extraEnvironment: [String: String] = [:],
         shownHost: String = "127.0.0.1") async throws {
        process.executableURL = BuiltProducts.reverseAudio
        process.arguments = ["serve", folder.path, "--port", "0"] + extra
        var environment = ProcessInfo.processInfo.environment
        environment["REVERSE_AUDIO_TOKEN"] = nil
        if let temporary { environment["TMPDIR"] = temporary.path }
        environment.merge(extraEnvironment) { $1 }
        process.environment = environment
        let output = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = output
        process.standardError = errorPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let collected = errors
        DispatchQueue.global().async {
            while case let data = errorPipe.fileHandleForReading.availableData, !data.isEmpty { collected.append(data) }
        }
        // The first line, read on a thread of its own (its read blocks until the server writes).
        let line = try await ProcessRunner.onThreadOfItsOwn {
            var line = Data()
            let deadline = Date().addingTimeInterval(20)
            while !line.contains(UInt8(ascii: "\n")), Date() < deadline {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { break }
                line.append(data)
            }
            return line
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "Listening on http://\(shownHost):") else {
            process.terminate()
            await process.exited()
            throw FFmpegOracle.Failure(description: "serve printed \(text.debugDescription); stderr: \(collected.text)")
        }
        let rest = text[range.upperBound...]
        port = Int(rest.prefix { $0.isNumber }) ?? 0
        token = rest.range(of: "?token=").map { String(rest[$0.upperBound...].prefix { !$0.isWhitespace }) }
    }

    var errorText: String { errors.text }

    /// The `Host` the server answers to.
    var host: String { "127.0.0.1:\(port)" }

    /// Sends `method path` and reads the whole answer (see ``HTTPExchange``).
    func request(_ method: String = "GET", _ path: String, headers: [(String, String)] = [], body: Data? = nil,
                 host: String? = nil) async throws -> HTTPExchange {
        let (port, headers) = (port, [("Host", host ?? self.host)] + headers)
        return try await ProcessRunner.onThreadOfItsOwn {
            try HTTPExchange(port: port, method: method, path: path, headers: headers, body: body)
        }
    }

    /// A JSON answer's object.
    func json(_ method: String = "GET", _ path: String, body: [String: Any]? = nil) async throws -> (status: Int, value: Any?) {
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let answer = try await request(method, path, headers: data == nil ? [] : [("Content-Type", "application/json")], body: data)
        return (answer.status, try? JSONSerialization.jsonObject(with: answer.body))
    }

    /// Sends `signal` and waits (up to `timeout` s) for the exit; true if it exited.
    func stop(with signal: Int32 = SIGINT, timeout: Double = 10) async -> Bool {
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        return !process.isRunning
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// One HTTP/1.1 request over a plain socket and its answer, read to the end (`Connection:
/// close`): the status, the headers, the body (chunked bodies decoded). A plain socket, not
/// URLSession, so that a test says exactly what is sent (a foreign `Host`, an `Origin`, no
/// cookie) and sees exactly what comes back.
struct HTTPExchange: Sendable {
    let status: Int
    let headers: [String: String]
    let body: Data

    init(port: Int, method: String, path: String, headers: [(String, String)], body: Data?) throws {
        let descriptor = try RawConnection.open(port: port)
        defer { close(descriptor) }
        var head = "\(method) \(path) HTTP/1.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        var outgoing = Data(head.utf8)
        if let body { outgoing.append(body) }
        try outgoing.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = send(descriptor, bytes.baseAddress! + sent, bytes.count - sent, 0)
                guard count > 0 else { throw FFmpegOracle.Failure(description: "send: errno \(errno)") }
                sent += count
            }
        }
        var incoming = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            incoming.append(contentsOf: buffer[0..<count])
        }
        guard let split = incoming.range(of: Data("\r\n\r\n".utf8)) else {
            throw FFmpegOracle.Failure(description: "no HTTP head in \(incoming.count) bytes")
        }
        let lines = String(decoding: incoming[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        self.headers = fields
        let raw = Data(incoming[split.upperBound...])
        self.body = fields["transfer-encoding"]?.lowercased() == "chunked" ? Self.dechunk(raw) : raw
    }

    private static func dechunk(_ raw: Data) -> Data {
        var body = Data()
        var at = raw.startIndex
        while let end = raw[at...].range(of: Data("\r\n".utf8)) {
            let size = Int(String(decoding: raw[at..<end.lowerBound], as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
            if size == 0 { break }
            let start = end.upperBound
            guard start + size <= raw.endIndex else { break }
            body.append(raw[start..<(start + size)])
            at = start + size + 2
        }
        return body
    }

    /// The body as text.
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A name as one URL path segment (`encodeURIComponent`).
func pathSegment(_ name: String) -> String {
    name.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.!~*'()")) ?? name
}
