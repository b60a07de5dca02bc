import Cloudlet
import HTTPTypes
import NIOCore
import NIOHTTPTypes

extension ChannelHandlerContext {
    /// Writes `error` as a whole answer from a handler that answers before the router: its status,
    /// `headers`, the JSON content type and length, and its `{code, error}` body. With `close`, the
    /// answer says `Connection: close` and the channel closes once it is written.
    func writeParseError(_ error: ParseError, headers: HTTPFields = [:], close: Bool) {
        let body = ByteBuffer(bytes: JSONWriter.bytes(error.body))
        var head = HTTPResponse(status: .init(code: error.status.code), headerFields: headers)
        head.headerFields[.contentType] = JSONResponse.contentType
        head.headerFields[.contentLength] = String(body.readableBytes)
        if close { head.headerFields[.connection] = "close" }
        write(NIOAny(HTTPResponsePart.head(head)), promise: nil)
        write(NIOAny(HTTPResponsePart.body(body)), promise: nil)
        let written = writeAndFlush(NIOAny(HTTPResponsePart.end(nil)))
        if close {
            let channel = self.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
