/// The ids of new objects.
enum ObjectId {
    /// A new object id: ten random letters and digits, as Parse makes them, from one 64-bit draw
    /// of the system's secure generator (62^10 < 2^60; one system call instead of ten).
    static func new() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var generator = SystemRandomNumberGenerator()
        var bits = generator.next()
        var id = [UInt8]()
        id.reserveCapacity(10)
        for _ in 0..<10 {
            id.append(alphabet[Int(bits % 62)])
            bits /= 62
        }
        return String(decoding: id, as: UTF8.self)
    }
}
