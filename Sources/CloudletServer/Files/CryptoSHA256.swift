import CloudletRuntime
import Crypto

/// swift-crypto's SHA-256, which runs the CPU's SHA instructions where it has them: the server tags
/// uploads with it, at several times the speed of the core's own ``SHA256Hasher``.
struct CryptoSHA256: IncrementalSHA256 {
    private var hash = SHA256()

    init() {}

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hash.update(bufferPointer: bytes)
    }

    func digestBytes() -> [UInt8] {
        Array(hash.finalize())
    }
}
