import Hummingbird
import ReverseAudio

extension MediaFolder {
    /// The answer for `error` met serving a request: an `HTTPError` as it is; the library's
    /// errors with the status that says what went wrong and their message, the folder's path
    /// taken out; anything else a plain 500 that shows nothing of the server.
    func answer(for error: any Error, file: FolderFile) -> any Error {
        guard let answer = answer(for: error) as? HTTPError else { return answer(for: error) }
        return HTTPError(answer.status, message: file.naming(answer.body ?? ""))
    }

    /// The answer for `error` met serving a request (see ``answer(for:file:)``).
    package func answer(for error: any Error) -> any Error {
        if error is HTTPError { return error }
        guard let error = error as? ReverseAudioError else {
            return HTTPError(.internalServerError, message: "the server could not do that")
        }
        let status: HTTPResponse.Status
        switch error {
        case .input(.fileNotFound): status = .notFound
        case .input, .range, .setting: status = .badRequest
        case .output(.outputExists), .output(.outputIsInput): status = .conflict
        case .output(.unknownOutputFormat), .output(.containerCannotHold), .output(.sampleFormatNotStorable),
             .output(.tooManyChannels), .output(.unsupportedSampleRate): status = .badRequest
        case .output, .device: status = .internalServerError
        }
        return HTTPError(status, message: relative(error.description))
    }
}
