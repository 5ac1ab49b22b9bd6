import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// What one connection may hold of the server: a request's head must arrive within
/// ``Settings/headerTimeout`` of the connection (``Settings/idleTimeout`` of the answer
/// before it), its body may not
/// pause for longer than ``Settings/bodyTimeout``; a head over the decoder's limit is answered
/// 431 (any other malformed request 400), an answer that refuses a body (413) closes the
/// connection instead of reading the rest; and at most ``Settings/maximumConnections`` are
/// open at once (others are closed at once). Slow clients (a header a byte at a time, a body
/// that stops) then hold a connection for seconds, not for ever.
final class ConnectionLimits: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    struct Settings: Sendable {
        var headerTimeout: TimeAmount = .seconds(10)
        /// Between an answer and the next request's head (a browser keeps connections for reuse).
        var idleTimeout: TimeAmount = .seconds(60)
        var bodyTimeout: TimeAmount = .seconds(60)
        var maximumConnections = 256
    }

    /// Connections open now, over every channel of the server.
    final class Count: @unchecked Sendable {
        // @unchecked: `value` is touched only under `lock`.
        private let lock = NSLock()
        private var value = 0

        /// Counts one more; false (nothing counted) when `limit` are open already.
        func enter(limit: Int) -> Bool {
            lock.withLock {
                guard value < limit else { return false }
                value += 1
                return true
            }
        }

        func leave() { lock.withLock { value -= 1 } }
        var current: Int { lock.withLock { value } }
    }

    private let settings: Settings
    private let count: Count
    private var counted = false
    private var deadline: Scheduled<Void>?
    private var inBody = false
    private var closeAfterAnswer = false

    init(settings: Settings, count: Count) {
        self.settings = settings
        self.count = count
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard count.enter(limit: settings.maximumConnections) else {
            context.close(promise: nil)
            return
        }
        counted = true
        arm(settings.headerTimeout, context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        if counted {
            counted = false
            count.leave()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            inBody = true
            arm(settings.bodyTimeout, context: context)
        case .body:
            arm(settings.bodyTimeout, context: context)
        case .end:
            inBody = false
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response):
            // A body refused by its size is not read to its end: the connection goes.
            if response.status == .contentTooLarge { closeAfterAnswer = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            let closing = closeAfterAnswer
            // Completed on the channel's event loop: the context is used there only.
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.write(data).whenComplete { result in
                promise?.completeWith(result)
                if closing { bound.value.close(promise: nil) }
            }
            // The next request's head is awaited from here.
            if !closing && !inBody { arm(settings.idleTimeout, context: context) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A request the decoder refused: answered once, then the connection goes.
        let status: HTTPResponse.Status
        switch error as? HTTPParserError {
        case .headerOverflow?: status = .requestHeaderFieldsTooLarge
        case .some: status = .badRequest
        case nil:
            context.fireErrorCaught(error)
            return
        }
        deadline?.cancel()
        let head = HTTPResponse(status: status, headerFields: [.connection: "close", .contentLength: "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }

    /// Closes the connection unless the next awaited part comes within `timeout`.
    private func arm(_ timeout: TimeAmount, context: ChannelHandlerContext) {
        deadline?.cancel()
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            bound.value.close(promise: nil)
        }
    }
}
