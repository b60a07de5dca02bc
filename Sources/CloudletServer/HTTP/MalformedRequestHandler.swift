import Cloudlet
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request the HTTP parser refused (headers or URL over the parser's bounds, bytes that
/// are not HTTP) with a Parse `{code, error}` body, then closes the connection: 431 for headers
/// too large, 400 otherwise.
final class MalformedRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        let tooLarge = parserError == .headerOverflow
        let error = ParseError(
            code: 107, message: tooLarge ? "request headers or URL too large" : "malformed HTTP request",
            httpStatus: tooLarge ? 431 : 400)
        let body = ByteBuffer(bytes: JSONWriter.bytes(error.body))
        var head = HTTPResponse(status: .init(code: error.status.code))
        head.headerFields[.contentType] = "application/json; charset=utf-8"
        head.headerFields[.contentLength] = String(body.readableBytes)
        head.headerFields[.connection] = "close"
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
