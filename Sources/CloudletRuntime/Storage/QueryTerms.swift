import Cloudlet

/// The parts of a query every store reads the same way before writing its own SQL: the columns
/// behind `objectId`, `createdAt` and `updatedAt` and what they compare with, the keys of an
/// order, and a `$regex`'s options.
package enum QueryTerms {
    /// The most sort keys one query may give; more answer 102.
    package static let maximumOrderKeys = 64

    /// The column behind `objectId`, `createdAt` or `updatedAt`; nil for any other field path.
    package static func column(_ path: String) -> String? {
        switch path {
        case "objectId": "id"
        case "createdAt": "created_at"
        case "updatedAt": "updated_at"
        default: nil
        }
    }

    /// The text `column` (``column(_:)`` of `path`) is compared with for `value`: an id, or a Date
    /// in Parse's format; 102 for anything else.
    package static func columnOperand(_ column: String, path: String, _ value: ParseValue) throws -> String {
        if column == "id" {
            guard let id = value.stringValue else { throw ParseError.invalidQuery("objectId must be a string") }
            return id
        }
        guard let date = value.dateValue else { throw ParseError.invalidQuery("\(path) must be compared with a Date") }
        return ParseDate.string(from: date)
    }

    /// One key of an order.
    package enum OrderKey: Equatable {
        /// `$score` (or `-$score`): the relevance of a `$text` search, highest first.
        case score
        /// A field path, ascending or descending.
        case field(String, descending: Bool)
    }

    /// The keys of `keys` (empty ones skipped), their paths validated; 102 past ``maximumOrderKeys``.
    package static func orderKeys(_ keys: [String]) throws -> [OrderKey] {
        guard keys.count <= maximumOrderKeys else { throw ParseError.invalidQuery("order may name at most \(maximumOrderKeys) keys") }
        return try keys.filter { !$0.isEmpty }.map { key in
            if key == "$score" || key == "-$score" { return .score }
            let descending = key.hasPrefix("-")
            let path = descending ? String(key.dropFirst()) : key
            try ParseNames.validateFieldPath(path)
            return .field(path, descending: descending)
        }
    }

    /// The letters of a `$regex`'s `$options` (among `imsx`); 102 for anything else.
    package static func regexOptions(_ options: ParseValue?) throws -> String {
        guard let options else { return "" }
        guard let letters = options.stringValue, letters.allSatisfy({ "imsx".contains($0) }) else {
            throw ParseError.invalidQuery("$options may hold only i, m, s and x")
        }
        return letters
    }
}

/// One term of a `where`, as every store's compiler turns it into SQL.
package enum QueryTerm {
    /// `$or` or `$and` (`isOr`) over its branches.
    case connective(isOr: Bool, branches: [[String: ParseValue]])
    /// `$relatedTo` with its operand.
    case relatedTo(ParseValue)
    /// A field path equal to a value.
    case equality(path: String, value: ParseValue)
    /// A field path tested by operators (`$gt`, `$in`, `$regex`, …), in the order of their names.
    case operators(path: String, [QueryOperator])
}

extension QueryBounds {
    /// The terms of `constraints` nested `depth` deep, in the order of their keys, each counted
    /// against the bounds (an operator's condition with the values it compares); 102 past a bound,
    /// the error of an invalid field path for a key that is neither a path nor `$or`, `$and`,
    /// `$relatedTo`, and that of an operator ``QueryOperator`` cannot read.
    package mutating func terms(of constraints: [String: ParseValue], depth: Int) throws -> [QueryTerm] {
        try Self.checkNesting(depth)
        return try constraints.keys.sorted().map { key in
            let value = constraints[key]!
            switch key {
            case "$or", "$and":
                return .connective(isOr: key == "$or", branches: try branches(of: key, value))
            case "$relatedTo":
                try addCondition()
                return .relatedTo(value)
            default:
                try ParseNames.validateFieldPath(key)
                guard let operators = value.objectValue, operators.keys.contains(where: { $0.hasPrefix("$") }) else {
                    try addCondition()
                    return .equality(path: key, value: value)
                }
                for (op, operand) in operators where op != "$options" { try addCondition(values: operand.arrayValue?.count ?? 1) }
                return .operators(path: key, try QueryOperator.operators(of: operators, path: key))
            }
        }
    }
}

/// A compiler of a `where`: a store's, into SQL, or LiveQuery's, into a test of one object. It
/// writes each kind of term, and the walk over the terms (``clause(for:depth:)``) is the same for
/// every one.
package protocol WhereCompiling {
    /// A field of the objects, named by its path.
    associatedtype Field
    /// What a term compiles to: SQL text for a store.
    associatedtype Clause
    /// What the query has used of its bounds so far.
    var bounds: QueryBounds { get set }
    /// The field at `path` (a validated path).
    func field(_ path: String) -> Field
    /// `parts` joined by `AND` or `OR` (`connective`); an empty list is true for `AND`, false for `OR`.
    static func joined(_ parts: [Clause], _ connective: String) -> Clause
    /// `$relatedTo` with `operand`.
    mutating func relatedTo(_ operand: ParseValue) throws -> Clause
    /// `field` equal to `value`.
    mutating func equality(_ field: Field, _ value: ParseValue) throws -> Clause
    /// `field` tested by the operator `op`, nested `depth` deep.
    mutating func operatorClause(_ field: Field, _ op: QueryOperator, depth: Int) throws -> Clause
}

extension WhereCompiling {
    /// The test of `constraints`, nested `depth` deep: its terms joined by `AND`.
    package mutating func clause(for constraints: [String: ParseValue], depth: Int) throws -> Clause {
        let clauses = try bounds.terms(of: constraints, depth: depth).map { term -> Clause in
            switch term {
            case .connective(let isOr, let branches):
                return Self.joined(try branches.map { try clause(for: $0, depth: depth + 1) }, isOr ? "OR" : "AND")
            case .relatedTo(let operand):
                return try relatedTo(operand)
            case .equality(let path, let value):
                return try equality(field(path), value)
            case .operators(let path, let operators):
                let field = field(path)
                return Self.joined(try operators.map { try operatorClause(field, $0, depth: depth) }, "AND")
            }
        }
        return Self.joined(clauses, "AND")
    }
}

extension QueryTerms {
    /// The owner and relation key of a `$relatedTo` operand (`{"object": <pointer>, "key": <field>}`),
    /// their names validated; 102 for any other shape.
    package static func relatedTo(_ operand: ParseValue) throws -> (owner: (className: String, objectId: String), key: String) {
        guard let members = operand.objectValue, members.count == 2,
            let owner = members["object"]?.pointerValue, (try? ParseNames.validateClassName(owner.className)) != nil,
            !owner.objectId.isEmpty, let key = members["key"]?.stringValue, (try? ParseNames.validateFieldName(key)) != nil
        else {
            throw ParseError.invalidQuery("$relatedTo needs an object (a pointer) and the key of one of its relation fields")
        }
        return (owner, key)
    }
}
