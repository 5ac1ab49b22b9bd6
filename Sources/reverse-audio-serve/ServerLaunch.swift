import ArgumentParser
import Foundation
import ReverseAudioCLI
import ReverseAudioServer

/// Runs the server `serve`'s command line asks for, until a signal stops it.
enum ServerLaunch {
    @Sendable static func run(_ command: ServeCommand) async throws {
        let folderURL = URL(fileURLWithPath: command.folder, isDirectory: true)
        let server: AudioServer
        do {
            let token: String?
            do {
                token = try command.givenToken()
            } catch let error as ValidationError {
                // A file that cannot be read, as an input that cannot be (1), not a usage error.
                Console.error("reverse-audio: error: \(error.message)")
                throw ExitCode.failure
            }
            server = try AudioServer(.init(folder: folderURL, output: command.output.map { URL(fileURLWithPath: $0, isDirectory: true) },
                                           host: command.host, port: command.port, token: token,
                                           uploadLimit: command.uploadLimit << 20, uploadMaximumAge: command.keepUploads * 60,
                                           urlHosts: command.urlHosts, urlTimeout: command.urlTimeout))
        } catch let error as ServerError {
            Console.error("reverse-audio: error: \(error.description)")
            // Settings that cannot work together are a usage error, as the parser's own are (64).
            if case .setting = error { throw ExitCode.validationFailure }
            throw ExitCode.failure
        }
        do {
            try await SignalCancellation.run {
                try await server.run { url in Console.out("Listening on \(url)") }
            }
        } catch let error as ServerError {
            Console.error("reverse-audio: error: \(error.description)")
            throw ExitCode.failure
        } catch {
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
    }
}
