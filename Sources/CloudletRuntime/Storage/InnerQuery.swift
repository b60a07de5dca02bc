import Cloudlet

/// A query inside a query's `where`, as Parse Server reads it: `$inQuery` and `$notInQuery`
/// (`{"className", "where"}`: the field does / does not point to one of its results) and `$select`
/// and `$dontSelect` (`{"query": {"className", "where"}, "key"}`: the field's value is / is not
/// the `key` of one of its results). Storage runs it inside the same statement as the outer query,
/// reading rows as the outer query's reader does (the same ACL identities); the runtime checks it
/// as it checks the outer query (``ClassPermissions/checkedQuery(_:by:)``).
public struct InnerQuery: Sendable {
    /// The operator that holds the inner query, by its name in a `where`.
    public enum Operator: String, Sendable, CaseIterable {
        case inQuery = "$inQuery"
        case notInQuery = "$notInQuery"
        case select = "$select"
        case dontSelect = "$dontSelect"

        /// `$notInQuery` and `$dontSelect`: the field must not match.
        public var isNegated: Bool { self == .notInQuery || self == .dontSelect }
    }

    public let op: Operator
    /// The class the inner query searches: a valid class name.
    public let className: String
    /// The inner query's `where`.
    public let constraints: [String: ParseValue]
    /// For `$select` and `$dontSelect`, the field of the inner results whose values are compared.
    public let key: String?

    /// Reads `operand`, the value of `op` in a `where`; 102 when it is not of Parse's shape, 103
    /// for a class name that is not valid, 105 for a `key` that is not a field path.
    public init(_ op: Operator, _ operand: ParseValue) throws(ParseError) {
        self.op = op
        let improper = ParseError.invalidQuery("improper usage of \(op.rawValue)")
        let query: [String: ParseValue]
        switch op {
        case .inQuery, .notInQuery:
            guard let members = operand.objectValue, members["where"] != nil else { throw improper }
            query = members
            key = nil
        case .select, .dontSelect:
            guard let members = operand.objectValue, members.count == 2, let inner = members["query"]?.objectValue,
                let key = members["key"]?.stringValue
            else { throw improper }
            try ParseNames.validateFieldPath(key)
            query = inner
            self.key = key
        }
        guard let className = query["className"]?.stringValue else { throw improper }
        try ParseNames.validateClassName(className)
        self.className = className
        switch query["where"] ?? .object([:]) {
        case .object(let constraints): self.constraints = constraints
        default: throw improper
        }
    }

    /// The query this inner query runs, as the runtime checks it.
    public var query: ParseQuery { ParseQuery(className, constraints: constraints) }

    /// The inner queries of `constraints`, inside `$or` and `$and` too (not those nested in them:
    /// ask each found one's ``constraints``). Operands not of Parse's shape are left out; storage
    /// refuses them as it compiles the query.
    public static func all(in constraints: [String: ParseValue]) -> [InnerQuery] {
        constraints.flatMap { key, value -> [InnerQuery] in
            if key == "$or" || key == "$and" { return (value.arrayValue ?? []).flatMap { all(in: $0.objectValue ?? [:]) } }
            guard let operators = value.objectValue else { return [] }
            return Operator.allCases.compactMap { op in operators[op.rawValue].flatMap { try? InnerQuery(op, $0) } }
        }
    }

    /// `constraints` with the `where` of each inner query (as ``all(in:)`` finds them) replaced by
    /// what `transform` answers for it. Operands not of Parse's shape are left as they are.
    static func replacingWheres(
        in constraints: [String: ParseValue], _ transform: (InnerQuery) async throws -> [String: ParseValue]
    ) async throws -> [String: ParseValue] {
        var replaced = constraints
        for (key, value) in constraints {
            if key == "$or" || key == "$and", let branches = value.arrayValue {
                var changed: [ParseValue] = []
                for branch in branches {
                    guard let members = branch.objectValue else { changed.append(branch); continue }
                    changed.append(.object(try await replacingWheres(in: members, transform)))
                }
                replaced[key] = .array(changed)
                continue
            }
            guard var operators = value.objectValue else { continue }
            for op in Operator.allCases {
                guard let operand = operators[op.rawValue], let inner = try? InnerQuery(op, operand) else { continue }
                let newWhere = ParseValue.object(try await transform(inner))
                var members = operand.objectValue ?? [:]
                if inner.key == nil {
                    members["where"] = newWhere
                } else {
                    var query = members["query"]?.objectValue ?? [:]
                    query["where"] = newWhere
                    members["query"] = .object(query)
                }
                operators[op.rawValue] = .object(members)
            }
            replaced[key] = .object(operators)
        }
        return replaced
    }
}
