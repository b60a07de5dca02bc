import Foundation

/// The device tokens of the benchmark's installations, and what the stand-in answers each: a
/// token is 64 hex digits, the scenario's number in the first 8 and the installation's index in
/// the rest. In the failing scenario, every 10th index is unregistered (410) and every 20th
/// (offset by one) is unavailable (503) once, then accepted.
enum BenchmarkTokens {
    /// The scenario whose tokens answer 410 and 503.
    static let failingScenario = 3

    static func token(scenario: Int, index: Int) -> String {
        String(format: "%08x%056x", scenario, index)
    }

    /// The scenario and index a token was made from.
    static func parse(_ token: String) -> (scenario: Int, index: Int)? {
        guard token.utf8.count == 64, let scenario = Int(token.prefix(8), radix: 16), let index = Int(token.dropFirst(8), radix: 16)
        else { return nil }
        return (scenario, index)
    }

    static func isUnregistered(_ index: Int) -> Bool { index % 10 == 0 }

    static func isUnavailableOnce(_ index: Int) -> Bool { index % 20 == 1 }

    /// How many of `installations` answer 410.
    static func unregisteredCount(of installations: Int) -> Int { (0..<installations).count(where: isUnregistered) }

    /// How many of `installations` answer 503 once.
    static func unavailableOnceCount(of installations: Int) -> Int { (0..<installations).count(where: isUnavailableOnce) }
}
