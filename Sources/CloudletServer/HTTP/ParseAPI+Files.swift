import Cloudlet
import CloudletRuntime
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension ParseAPI {
    /// The largest JSON-form upload: the base64 of a file of the default upload limit, and 64 KiB
    /// for the rest of the form. Such a body is read before its app is known, so it takes one of
    /// the host's few slots for large unauthenticated bodies (``UnauthenticatedBodyReads``).
    static let maximumBase64UploadBytes = (FileSettings.defaultMaximumUploadBytes / 3 + 1) * 4 + (64 << 10)

    /// `POST /files/:name`: stores the body's bytes (raw, with their `Content-Type`, the first one
    /// when a client sends several as Parse Server takes it, streamed to disk and bounded by the
    /// app's limit; or the JSON form's `base64` with `_ContentType`, read
    /// whole before its app and keys are known, to ``maximumBase64UploadBytes``) and
    /// answers 201 `{"name", "url"}` with the URL in `Location`. Needs a client key or the master key, and a session when the
    /// app asks for one (403/119).
    func upload(request: Request, context: ParseRequestContext) async throws -> Response {
        let call = ParseCall(request: request, context: context)
        let name = try call.parameter("id")
        let settings = call.app.fileSettings
        if settings.requireSession, !call.caller.isMaster, call.caller.userId == nil {
            throw ParseError(code: 119, message: "File upload needs a session: log in first.", httpStatus: 403)
        }
        let stored: StoredFile
        if let form = context.parse.body {
            // The JavaScript SDK's JSON form: the middleware read it to find the app.
            guard let base64 = form["base64"]?.stringValue, let bytes = Data(base64Encoded: base64) else {
                throw ParseError(code: 130, message: "Invalid file upload: base64 is missing or not base64.", httpStatus: 400)
            }
            stored = try await call.app.runtime.files.save(
                named: name, contentType: context.parse.transport.contentType, metadata: form["fileData"]?["metadata"]?.objectValue ?? [:],
                body: RequestBody(buffer: ByteBuffer(bytes: bytes)), maximumBytes: settings.maximumUploadBytes,
                maximumTotalBytes: settings.maximumTotalBytes, expectedBytes: bytes.count, caller: call.caller)
        } else {
            let length = request.headers[.contentLength].flatMap(Int.init)
            if let length, length > settings.maximumUploadBytes {
                throw ParseError(
                    code: 130, message: "the file is larger than the app's limit of \(settings.maximumUploadBytes) bytes", httpStatus: 413)
            }
            stored = try await call.app.runtime.files.save(
                named: name, contentType: request.headers[values: .contentType].first, body: request.body, maximumBytes: settings.maximumUploadBytes,
                maximumTotalBytes: settings.maximumTotalBytes, expectedBytes: length, caller: call.caller)
        }
        let url = call.app.runtime.context.stores.objects.fileURLs?.url(stored.name) ?? stored.name
        var headers = context.parse.rateLimit?.headers ?? [:]
        headers[.location] = url
        return JSONResponse.make(status: .created, body: ["name": .string(stored.name), "url": .string(url)], headers: headers)
    }

    /// `DELETE /files/:name` (master key only, as the runtime checks).
    func deleteFile(_ call: ParseCall) async throws -> Reply {
        try await call.app.runtime.files.delete(named: try call.parameter("id"), caller: call.caller)
        return Reply(body: [:])
    }

    /// `GET /files/:appId/:name`: the file's bytes, streamed from storage, with its `Content-Type`,
    /// `ETag` and `Content-Length`; `If-None-Match` with its tag answers 304, and one range
    /// (`Range: bytes=…`) 206, or 416 when it lies past the end.
    func download(request: Request, context: ParseRequestContext) async throws -> Response {
        let runtime = context.app.runtime
        let file = try await runtime.files.file(named: try context.parameters.require("name"))
        var headers: HTTPFields = [
            .contentType: file.contentType, .eTag: file.etag, .acceptRanges: "bytes",
            // A file is the uploader's content: never let a browser run it as this origin's page.
            HTTPField.Name("X-Content-Type-Options")!: "nosniff", .contentSecurityPolicy: "sandbox",
        ]
        if request.headers[.ifNoneMatch].map({ $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == file.etag } }) == true {
            return Response(status: .notModified, headers: headers)
        }
        var status = HTTPResponse.Status.ok
        var range = 0..<file.size
        switch FileRange(request.headers[.range], size: file.size) {
        case .whole:
            break
        case .part(let part):
            status = .partialContent
            range = part
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(file.size)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(file.size)"
            let error = ParseError(code: 107, message: "Range not satisfiable: the file has \(file.size) bytes.", httpStatus: 416)
            return JSONResponse.make(status: error.status, body: error.body, headers: headers)
        }
        let body = ResponseBody(contentLength: Int(range.count)) { [runtime, range] writer in
            try await runtime.context.fileStorage?.read(file, range: range) { try await writer.write($0) }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }
}
