import Crypto
import Foundation
import NIOCore
import Testing

@testable import CloudletRuntime
@testable import CloudletServer

/// The core's SHA-256 answers what the standard and swift-crypto answer, however its input is cut.
@Suite struct SHA256HasherTests {
    /// FIPS 180-4's examples (NIST's "SHA256.pdf" and the short-message vectors).
    static let standardVectors: [(message: String, digest: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ]

    @Test func theStandardsVectorsHashAsPublished() {
        for vector in Self.standardVectors {
            #expect(SHA256Hasher.hash(vector.message.utf8).hex == vector.digest, "\(vector.message)")
        }
    }

    @Test func aMillionAsFedInUnevenPiecesHashAsPublished() {
        var hash = SHA256Hasher()
        var left = 1_000_000
        var piece = 1
        while left > 0 {
            let count = min(piece, left)
            hash.update([UInt8](repeating: UInt8(ascii: "a"), count: count))
            left -= count
            piece = piece * 7 % 1_000 + 1
        }
        #expect(hash.finalize().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Every length around the block and padding edges (55, 56, 64, 119, 120, 128…), whole and cut.
    @Test func everyLengthAndCutAgreesWithSwiftCrypto() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let expected = Array(Crypto.SHA256.hash(data: bytes))
            #expect(SHA256Hasher.hash(bytes).bytes == expected, "length \(length)")
            let cut = length == 0 ? 0 : Int.random(in: 0...length, using: &generator)
            var pieces = SHA256Hasher()
            pieces.update(Array(bytes[..<cut]))
            pieces.update(Array(bytes[cut...]))
            #expect(pieces.finalize().bytes == expected, "length \(length) cut at \(cut)")
        }
    }

    /// Sessions stored before the core had its own SHA-256 still match their tokens.
    @Test func sessionTokensHashAsTheyWereStored() {
        let token = "r:0123456789abcdef0123456789abcdef"
        let stored = Crypto.SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(SessionToken.hash(token) == stored)
    }

    /// The server tags uploads with swift-crypto's SHA-256, the harness with the core's: the same tag,
    /// the first 128 bits of the bytes' hash.
    @Test func theServersAndTheCoresHashTagAnUploadAlike() async throws {
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let published = Crypto.SHA256.hash(data: bytes).prefix(16).map { String(format: "%02x", $0) }.joined()
        for hash in [CryptoSHA256.self, SHA256Hasher.self] as [any IncrementalSHA256.Type] {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-sha-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let files = try LocalFileStorage(folder: folder.path, contentHash: hash)
            let body = AsyncStream<ByteBuffer> { upload in
                upload.yield(ByteBuffer(bytes: bytes[..<70_001]))
                upload.yield(ByteBuffer(bytes: bytes[70_001...]))
                upload.finish()
            }
            #expect(try await files.stage(body, maximumBytes: 1 << 20).etag == "\"\(published)\"", "\(hash)")
        }
    }
}
