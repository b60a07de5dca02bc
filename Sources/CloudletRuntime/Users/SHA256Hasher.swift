/// SHA-256 fed a piece at a time: ``SHA256Hasher`` is the core's; the server's file storage uses
/// swift-crypto's, whose assembly hashes large uploads several times faster.
package protocol IncrementalSHA256: SendableMetatype {
    init()

    /// Adds `bytes` to what is hashed.
    mutating func update(_ bytes: UnsafeRawBufferPointer)

    /// The 32 bytes of the hash of everything added.
    func digestBytes() -> [UInt8]
}

/// SHA-256 (FIPS 180-4), fed a piece at a time: what session tokens are stored as and what tags a
/// stored file's bytes. It lives in the core so that the core, and the harness over it, compile no
/// cryptography library; the tests check it against the standard's vectors and swift-crypto.
///
/// ```swift
/// var hash = SHA256Hasher()
/// hash.update(Array("abc".utf8))
/// hash.finalize().hex  // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// ```
package struct SHA256Hasher: IncrementalSHA256, Sendable {
    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    /// Bytes not yet hashed: fewer than a block.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    package init() { pending.reserveCapacity(Self.blockSize) }

    /// The hash of `bytes`, whole.
    package static func hash(_ bytes: some Sequence<UInt8>) -> Digest {
        var hash = SHA256Hasher()
        hash.update(Array(bytes))
        return hash.finalize()
    }

    /// Adds `bytes` to what is hashed.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds `bytes` to what is hashed.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var rest = bytes[...]
        if !pending.isEmpty {
            let taken = min(Self.blockSize - pending.count, rest.count)
            pending += rest.prefix(taken)
            rest = rest.dropFirst(taken)
            guard pending.count == Self.blockSize else { return }
            pending.withUnsafeBytes { compress(UnsafeRawBufferPointer($0)) }
            pending.removeAll(keepingCapacity: true)
        }
        while rest.count >= Self.blockSize {
            compress(UnsafeRawBufferPointer(rebasing: rest.prefix(Self.blockSize)))
            rest = rest.dropFirst(Self.blockSize)
        }
        pending += rest
    }

    /// The hash of everything added: the padding (a one bit, zeros, the length in bits) ends it.
    package func finalize() -> Digest {
        var last = self
        let bits = length &* 8
        var tail: [UInt8] = [0x80] + [UInt8](repeating: 0, count: (Self.blockSize + 55 - pending.count) % Self.blockSize)
        tail += (0..<8).reversed().map { UInt8(truncatingIfNeeded: bits >> (8 * UInt64($0))) }
        last.update(tail)
        return Digest(bytes: last.state.flatMap { word in (0..<4).reversed().map { UInt8(truncatingIfNeeded: word >> (8 * UInt32($0))) } })
    }

    package func digestBytes() -> [UInt8] {
        finalize().bytes
    }

    /// A finished hash: 32 bytes.
    package struct Digest: Sendable, Equatable {
        /// The hash's bytes.
        package let bytes: [UInt8]

        /// The bytes in lowercase hex.
        package var hex: String {
            String(decoding: bytes.flatMap { [Self.hexDigits[Int($0 >> 4)], Self.hexDigits[Int($0 & 0xf)]] }, as: UTF8.self)
        }

        private static let hexDigits = Array("0123456789abcdef".utf8)
    }

    private static let blockSize = 64

    /// Hashes one 64-byte block into the state.
    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for i in 0..<16 { w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)) }
            for i in 16..<64 {
                let s0 = w[i - 15].rotatedRight(7) ^ w[i - 15].rotatedRight(18) ^ (w[i - 15] >> 3)
                let s1 = w[i - 2].rotatedRight(17) ^ w[i - 2].rotatedRight(19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            Self.roundConstants.withUnsafeBufferPointer { k in
                for i in 0..<64 {
                    let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let t1 = h &+ s1 &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                    let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let t2 = s0 &+ ((a & b) ^ (a & c) ^ (b & c))
                    (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
            }
        }
        for (i, value) in [a, b, c, d, e, f, g, h].enumerated() { state[i] &+= value }
    }

    /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        (self >> count) | (self << (32 - count))
    }
}
