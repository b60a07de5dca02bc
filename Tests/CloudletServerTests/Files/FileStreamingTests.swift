import Cloudlet
import CloudletServer
import CloudletTesting
import HTTPTypes
import Testing

/// Uploads over a real socket, in chunks with no `Content-Length`, so that only the streaming
/// count can stop them.
@Suite("File uploads over a socket")
struct FileStreamingTests {
    /// A chunked `POST /parse/files/<name>` of `chunks` chunks of 1 MiB, with the client key.
    static func chunkedUpload(_ name: String, chunks: Int) -> String {
        let chunk = "100000\r\n" + String(repeating: "z", count: 1 << 20) + "\r\n"
        return "POST /parse/files/\(name) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Parse-Application-Id: test\r\n"
            + "X-Parse-REST-API-Key: client-key\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n"
            + "Connection: close\r\n\r\n" + String(repeating: chunk, count: chunks) + "0\r\n\r\n"
    }

    @Test func aChunkedUploadIsStoredAndOnePastTheLimitIsCutOffWhileStreaming() async throws {
        try await LoginThrottleTests.withLiveServer { client, port in
            let stored = try RawHTTP.exchange(port: port, Self.chunkedUpload("three.bin", chunks: 3))
            #expect(stored.hasPrefix("HTTP/1.1 201"), "\(stored.prefix(300))")
            let name = try #require(stored.firstMatch(of: /"name":"([0-9a-f]{32}_three\.bin)"/)?.1)
            let download = try await client.download("/parse/files/test/\(name)", headers: [.range: "bytes=3145720-"])
            #expect(download.status == 206)
            #expect(download.bytes == Array("zzzzzzzz".utf8))

            let refused = try RawHTTP.exchange(port: port, Self.chunkedUpload("huge.bin", chunks: 21))
            #expect(refused.hasPrefix("HTTP/1.1 413"), "\(refused.prefix(300))")
            #expect(refused.contains(#""code":130"#), "\(refused.prefix(300))")
        }
    }
}
