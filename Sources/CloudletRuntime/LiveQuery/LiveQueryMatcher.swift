import Cloudlet

/// Whether one object matches a LiveQuery subscription's `where`, with the meaning a REST query's
/// `where` has on both stores (a differential test holds the three to the same answers).
///
/// The `where` is read and compiled once, within the bounds of a REST query (``QueryBounds``:
/// nesting, branches, conditions, compared values), its `$regex` patterns into the stores'
/// linear-time matcher; each object is then tested without touching any store. Every operator
/// that one object decides is supported: equality (an array field holding the value included; a
/// Date by its `iso`, a Pointer by its `objectId`), `$eq`, `$ne`, `$lt`, `$lte`, `$gt`, `$gte`,
/// `$in`, `$nin`, `$all`, `$containedBy`, `$exists`, `$regex` with `$options`, `$or`, `$and`,
/// dotted paths into objects, `objectId`, `createdAt` and `updatedAt`, `$within` (`$box`),
/// `$geoWithin` (`$polygon`, `$centerSphere`), `$geoIntersects` (`$point`) and `$nearSphere`
/// (within its `$maxDistance…`, or any GeoPoint without one: its distance only orders results).
/// What needs other rows is refused with 102: `$inQuery`, `$notInQuery`, `$select`, `$dontSelect`,
/// `$relatedTo` and `$text`. Malformed input answers what a REST query answers for it.
///
/// The reader's ACL is not the matcher's to test: the subscription's server checks it apart.
///
/// ```swift
/// let matcher = try LiveQueryMatcher(className: "Messages", where: ["room": "lobby", "likes": ["$gt": 10]])
/// matcher.matches(change.object)   // true for a Messages object in the lobby with 11 likes
/// ```
public struct LiveQueryMatcher: Sendable {
    /// The match steps the `$regex` tests of one object may take together (a few milliseconds of
    /// one core); an object whose test needs more does not match.
    public static let maximumRegexSteps = 1_000_000

    /// The class whose objects may match.
    public let className: String
    private let condition: LiveCondition

    /// Compiles `constraints`, the `where` of a query of `className`. Throws the error a REST query
    /// with this `where` answers (102 for a malformed query or one past the bounds, 103 for a bad
    /// class name, 105 for a bad field path, 107 or 111 for malformed geo values), and 102 for an
    /// operator that one object cannot decide.
    public init(className: String, where constraints: [String: ParseValue]) throws {
        try ParseNames.validateClassName(className)
        var compiler = LiveQueryCompiler()
        condition = try compiler.clause(for: constraints, depth: 0)
        self.className = className
    }

    /// Whether `object`, as the store holds it, matches: an object of ``className`` that a REST
    /// query with this `where` would find (its ACL aside).
    public func matches(_ object: ParseObject) -> Bool {
        guard object.className == className else { return false }
        var steps = Self.maximumRegexSteps
        return condition.holds(for: object, steps: &steps)
    }
}
