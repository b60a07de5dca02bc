import Cloudlet
import CloudletServerTesting
import CloudletServer
import CloudletTesting
import Foundation
import HTTPTypes
import Testing

/// Uploads over a real socket, in chunks with no `Content-Length`, so that only the streaming
/// count can stop them.
@Suite("File uploads over a socket")
struct FileStreamingTests {
    /// A chunked `POST /parse/files/<name>` to app `a` of `chunks` chunks of 64 KiB, with the client key.
    static func chunkedUpload(_ name: String, chunks: Int) -> String {
        let chunk = "10000\r\n" + String(repeating: "z", count: 64 << 10) + "\r\n"
        return "POST /parse/files/\(name) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Parse-Application-Id: a\r\n"
            + "X-Parse-REST-API-Key: client-a\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n"
            + "Connection: close\r\n\r\n" + String(repeating: chunk, count: chunks) + "0\r\n\r\n"
    }

    @Test(arguments: TestStore.allCases) func aChunkedUploadIsStoredAndOnePastTheLimitIsCutOffWhileStreaming(store: TestStore) async throws {
        try await FileTestServer.with(live: true, store: store) { server in
            try await server.setFiles("a", FileSettings(maximumUploadBytes: 200_000))
            let port = try #require(server.port)
            let stored = try await RawConnection.exchange(port: port, Self.chunkedUpload("three.bin", chunks: 3), seconds: 30).answer
            #expect(stored.hasPrefix("HTTP/1.1 201"), "\(stored.prefix(300))")
            let name = try #require(stored.firstMatch(of: /"name":"([0-9a-f]{32}_three\.bin)"/)?.1)
            let download = try await server.a.download("/parse/files/a/\(name)", headers: [.range: "bytes=196600-"])
            #expect(download.status == 206)
            #expect(download.bytes == Array("zzzzzzzz".utf8))

            let refused = try await RawConnection.exchange(port: port, Self.chunkedUpload("four.bin", chunks: 4), seconds: 30).answer
            #expect(refused.hasPrefix("HTTP/1.1 413"), "\(refused.prefix(300))")
            #expect(refused.contains(#""code":130"#), "\(refused.prefix(300))")
            let files = try server.files("a")
            #expect(try await files.all().map(\.size) == [196_608])
            #expect(try await files.removeAbandonedUploads(olderThan: .distantFuture) == 0, "the cut-off upload's bytes are removed")
        }
    }
}
