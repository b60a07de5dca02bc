import Cloudlet

/// Whether an object matches a LiveQuery subscription's query (`className` and `where`).
///
/// A placeholder with the matcher's signature and plain equality only, until the matcher itself
/// replaces this file.
public struct LiveQueryMatcher: Sendable {
    private let className: String
    private let constraints: [String: ParseValue]

    /// A matcher of `where` on objects of `className`; throws for a query it cannot match.
    public init(className: String, where constraints: [String: ParseValue]) throws {
        self.className = className
        self.constraints = constraints
    }

    /// Whether `object` is of the class and meets every constraint.
    public func matches(_ object: ParseObject) -> Bool {
        object.className == className && constraints.allSatisfy { field, value in
            (field == "objectId" ? object.objectId.map(ParseValue.string) : object.fields[field]) == value
        }
    }
}
