import Foundation
import GRDB
import Synchronization

/// The `regexp(pattern, text)` SQL function behind Parse's `$regex`, with compiled patterns cached.
enum SQLiteRegex {
    private static let cache = Mutex<[String: NSRegularExpression]>([:])
    private static let cacheLimit = 256

    static let function = DatabaseFunction("regexp", argumentCount: 2, pure: true) { values in
        guard let pattern = String.fromDatabaseValue(values[0]), let text = String.fromDatabaseValue(values[1]),
            let expression = try? compiled(pattern)
        else { return false }
        return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// The compiled form of `pattern` (which may start with inline flags such as `(?i)`); throws if invalid.
    static func compiled(_ pattern: String) throws -> NSRegularExpression {
        if let cached = cache.withLock({ $0[pattern] }) { return cached }
        let expression = try NSRegularExpression(pattern: pattern)
        cache.withLock { entries in
            if entries.count >= cacheLimit { entries.removeAll() }
            entries[pattern] = expression
        }
        return expression
    }
}
