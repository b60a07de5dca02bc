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
        context.writeParseError(Self.refusal(of: parserError), close: true)
    }

    /// The answer to a request the parser refused with `error`.
    static func refusal(of error: HTTPParserError) -> ParseError {
        let tooLarge = error == .headerOverflow
        return ParseError(
            code: 107, message: tooLarge ? "request headers or URL too large" : "malformed HTTP request", httpStatus: tooLarge ? 431 : 400)
    }
}
