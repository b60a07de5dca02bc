import Cloudlet

/// An aggregation pipeline as `GET /aggregate/:className` takes it (Parse Server's stages, as it
/// serves them on PostgreSQL): the objects of a class pass through the stages in order. Each stage
/// is parsed and checked here, before storage sees it; anything else answers 102.
///
/// ```swift
/// let pipeline = try AggregatePipeline(json: [["$match": ["score": ["$gt": 5]]], ["$group": ["_id": "$name", "n": ["$sum": 1]]]])
/// ```
public struct AggregatePipeline: Sendable, Equatable {
    /// The most stages one pipeline may have.
    public static let maximumStages = 20
    /// The most fields one `$sort` may order by.
    public static let maximumSortKeys = 16
    /// The order stages given as the members of one object (`{"$group": …, "$sort": …}`, or as
    /// query parameters) run in: a JSON object keeps no order of its own.
    static let objectFormOrder = ["$match", "$project", "$group", "$sort", "$skip", "$limit", "$count"]

    /// One step of a pipeline.
    public enum Stage: Sendable, Equatable {
        /// Keeps the objects (or rows) a query's `where` matches.
        case match([String: ParseValue])
        /// One row per distinct value of a field (or one for all), with accumulated values.
        case group(AggregateGroup)
        /// Keeps (or renames) fields.
        case project([AggregateProjection])
        /// Orders the rows by fields, the first deciding first.
        case sort([AggregateSortKey])
        /// Keeps the first rows.
        case limit(Int)
        /// Drops the first rows.
        case skip(Int)
        /// One row, `{name: how many rows}` (none when there are none).
        case count(String)
    }

    /// The stages, in the order they run.
    public var stages: [Stage]

    public init(stages: [Stage]) {
        self.stages = stages
    }

    /// Parses a pipeline given as an array of one-member stage objects, or as one object whose
    /// members are stages (run in ``objectFormOrder``). `memberOrder` answers the member names of
    /// the objects at paths inside `json` in the order the client wrote them (nil where it cannot
    /// tell), asked once for every `$sort` of several fields: each orders by them in that order,
    /// and is refused without it.
    public init(
        json: ParseValue, memberOrder: (_ paths: [[JSONParser.PathStep]]) -> [[String]?] = { $0.map { _ in nil } }
    ) throws(ParseError) {
        var stageObjects: [(name: String, body: ParseValue, path: [JSONParser.PathStep])] = []
        switch json {
        case .array(let elements):
            guard elements.count <= Self.maximumStages else { throw Self.tooManyStages }
            for (index, element) in elements.enumerated() {
                guard let members = element.objectValue, members.count == 1, let (name, body) = members.first else {
                    let names = element.objectValue.map { $0.keys.sorted().joined(separator: ", ") } ?? ""
                    throw .invalidQuery("Pipeline stages should only have one key but found \(names).")
                }
                stageObjects.append((name, body, [.element(index), .member(name)]))
            }
        case .object(let members):
            guard members.count <= Self.maximumStages else { throw Self.tooManyStages }
            for name in members.keys.sorted(by: Self.objectFormRank) { stageObjects.append((name, members[name]!, [.member(name)])) }
        default:
            throw .invalidQuery("pipeline must be an array of stages or an object of stages")
        }
        let severalFields = stageObjects.filter { $0.name == "$sort" && ($0.body.objectValue?.count ?? 0) > 1 }.map(\.path)
        let orders = severalFields.isEmpty ? [:] : Dictionary(zip(severalFields, memberOrder(severalFields)), uniquingKeysWith: { first, _ in first })
        stages = try stageObjects.map { (name, body, path) throws(ParseError) in try Self.stage(name, body, order: orders[path] ?? nil) }
    }

    private static var tooManyStages: ParseError { .invalidQuery("a pipeline may have at most \(maximumStages) stages") }

    private static func objectFormRank(_ a: String, _ b: String) -> Bool {
        let (rankA, rankB) = (objectFormOrder.firstIndex(of: a) ?? .max, objectFormOrder.firstIndex(of: b) ?? .max)
        return rankA == rankB ? a < b : rankA < rankB
    }

    /// The stage `name` with `body`, whose member names `order` gives in the client's order.
    private static func stage(_ name: String, _ body: ParseValue, order: [String]?) throws(ParseError) -> Stage {
        guard name.hasPrefix("$") else { throw .invalidQuery("Invalid aggregate stage '\(name)'.") }
        switch name {
        case "$match":
            guard let constraints = body.objectValue else { throw .invalidQuery("$match needs a query object") }
            return .match(constraints)
        case "$group": return .group(try AggregateGroup(json: body))
        case "$project": return .project(try AggregateProjection.list(body))
        case "$sort": return try sort(body, order: order)
        case "$limit":
            guard let count = body.intValue, count > 0 else { throw .invalidQuery("$limit needs a positive integer") }
            return .limit(count)
        case "$skip":
            guard let count = body.intValue, count >= 0 else { throw .invalidQuery("$skip needs an integer of 0 or more") }
            return .skip(count)
        case "$count":
            guard let field = body.stringValue else { throw .invalidQuery("$count needs the name of the field to count into") }
            try ParseNames.validateFieldName(field)
            return .count(field)
        default:
            throw .invalidQuery("unsupported aggregate stage \(name): use $match, $group, $project, $sort, $limit, $skip or $count")
        }
    }

    /// A `$sort` of `{"field": 1 or -1, …}`, its fields in the `order` the client wrote them (needed
    /// when there are several). `_id` names the key of a `$group`'s rows, as `objectId` does.
    private static func sort(_ body: ParseValue, order: [String]?) throws(ParseError) -> Stage {
        guard let members = body.objectValue, !members.isEmpty else { throw .invalidQuery("$sort needs an object of fields, each 1 or -1") }
        guard members.count <= maximumSortKeys else { throw .invalidQuery("$sort may order by at most \(maximumSortKeys) fields") }
        var fields = Array(members.keys)
        if members.count > 1 {
            guard let order, order.count == members.count, Set(order) == Set(fields) else {
                throw .invalidQuery("the order of this $sort's fields is unknown (an operation of a batch keeps none): sort on one field")
            }
            fields = order
        }
        return .sort(
            try fields.map { (field) throws(ParseError) in
                let path = field == "_id" ? "objectId" : field
                try ParseNames.validateFieldPath(path)
                switch members[field]?.intValue {
                case 1: return AggregateSortKey(field: path, ascending: true)
                case -1: return AggregateSortKey(field: path, ascending: false)
                default: throw .invalidQuery("$sort takes 1 or -1 for each field")
                }
            })
    }
}

/// One field a `$sort` stage orders by.
public struct AggregateSortKey: Sendable, Equatable {
    /// The field path (`objectId` for a group's key).
    public var field: String
    public var ascending: Bool

    public init(field: String, ascending: Bool) {
        self.field = field
        self.ascending = ascending
    }
}

/// One accumulated field of a `$group` row: `{"total": {"$sum": "$score"}}`.
public struct AggregateAccumulator: Sendable, Equatable {
    /// What is accumulated.
    public enum Kind: String, Sendable, CaseIterable {
        case sum = "$sum", avg = "$avg", min = "$min", max = "$max"
    }

    /// The field of the row it fills.
    public var name: String
    public var kind: Kind
    /// The field path accumulated, or nil for `$sum` of a number (`{"$sum": 1}` counts).
    public var field: String?
    /// The number summed for each row when `field` is nil.
    public var constant: Double

    public init(name: String, kind: Kind, field: String?, constant: Double = 1) {
        self.name = name
        self.kind = kind
        self.field = field
        self.constant = constant
    }

    init(name: String, json: ParseValue) throws(ParseError) {
        try ParseNames.validateFieldName(name)
        guard let members = json.objectValue, members.count == 1, let (op, operand) = members.first else {
            throw .invalidQuery("\(name) in $group needs one accumulator, such as {\"$sum\": 1}")
        }
        guard let kind = Kind(rawValue: op) else {
            throw .invalidQuery("unsupported $group accumulator \(op): use $sum, $avg, $min or $max")
        }
        self.name = name
        self.kind = kind
        constant = 1
        switch operand {
        case .number(let number) where kind == .sum:
            field = nil
            constant = number
        case .string(let text) where text.hasPrefix("$"):
            field = try Self.fieldPath(text)
        default:
            throw .invalidQuery("\(op) needs a field as \"$name\"\(kind == .sum ? " or a number" : "")")
        }
    }

    /// The field path of `"$a.b"`, validated.
    static func fieldPath(_ reference: String) throws(ParseError) -> String {
        let path = String(reference.dropFirst())
        try ParseNames.validateFieldPath(path)
        return path
    }
}

/// One field a `$project` stage keeps: `{"name": 1}` keeps `name`, `{"title": "$name"}` fills
/// `title` with `name`'s value. `objectId` is kept unless `{"_id": 0}` drops it.
public struct AggregateProjection: Sendable, Equatable {
    /// The field of the projected row.
    public var name: String
    /// The field path its value comes from.
    public var source: String

    public init(name: String, source: String) {
        self.name = name
        self.source = source
    }

    static func list(_ json: ParseValue) throws(ParseError) -> [AggregateProjection] {
        guard let members = json.objectValue, !members.isEmpty else { throw .invalidQuery("$project needs an object of fields") }
        var fields: [AggregateProjection] = []
        var keepsObjectId = true
        for name in members.keys.sorted() {
            let value = members[name]!
            let isId = name == "_id" || name == "objectId"
            switch value {
            case .bool(false), .number(0):
                guard isId else { throw .invalidQuery("$project may leave out only _id; list the fields to keep") }
                keepsObjectId = false
            case .bool(true), .number(1):
                if !isId {
                    try ParseNames.validateFieldPath(name)
                    guard !name.contains(".") else { throw .invalidQuery("$project keeps top-level fields only: \(name)") }
                    fields.append(AggregateProjection(name: name, source: name))
                }
            case .string(let text) where text.hasPrefix("$") && !isId:
                try ParseNames.validateFieldPath(name)
                guard !name.contains(".") else { throw .invalidQuery("$project keeps top-level fields only: \(name)") }
                fields.append(AggregateProjection(name: name, source: try AggregateAccumulator.fieldPath(text)))
            default:
                throw .invalidQuery("$project takes 1, true or \"$field\" for each field (0 only for _id)")
            }
        }
        if keepsObjectId { fields.insert(AggregateProjection(name: "objectId", source: "objectId"), at: 0) }
        return fields
    }
}
