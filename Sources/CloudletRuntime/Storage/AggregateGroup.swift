import Cloudlet

/// A `$group` stage: what makes the groups, and what each group's row accumulates. Its key comes
/// back as `objectId`, as Parse answers it.
///
/// ```swift
/// // One row per name and month of creation: {"objectId": {"name": "a", "month": 3}, "n": 2}
/// let group = try AggregateGroup(json: ["_id": ["name": "$name", "month": ["$month": "$createdAt"]], "n": ["$sum": 1]])
/// ```
public struct AggregateGroup: Sendable, Equatable {
    /// What a group is keyed by.
    public enum Key: Sendable, Equatable {
        /// One group of all rows (`"_id": null`); its key is null.
        case all
        /// One group per value of a field path (`"_id": "$name"`).
        case field(String)
        /// One group per combination of values (`"_id": {"name": "$name", "day": {"$dayOfMonth": "$createdAt"}}`);
        /// the key is an object of these members, in name order.
        case members([AggregateKeyMember])
    }

    /// The most members a compound key may have.
    public static let maximumKeyMembers = 16

    /// What makes the groups.
    public var key: Key
    /// The accumulated fields of each row.
    public var accumulators: [AggregateAccumulator]

    public init(key: Key, accumulators: [AggregateAccumulator]) {
        self.key = key
        self.accumulators = accumulators
    }

    init(json: ParseValue) throws(ParseError) {
        guard let members = json.objectValue else { throw .invalidQuery("$group needs an object") }
        guard members["objectId"] == nil else { throw .invalidQuery("Cannot use 'objectId' in aggregation stage $group.") }
        guard let id = members["_id"] else { throw .invalidQuery("Invalid parameter for query: group. Missing key _id") }
        key = try Self.key(id)
        accumulators = try members.keys.sorted().filter { $0 != "_id" }.map { (name) throws(ParseError) in
            try AggregateAccumulator(name: name, json: members[name]!)
        }
    }

    private static func key(_ id: ParseValue) throws(ParseError) -> Key {
        switch id {
        case .null: return .all
        case .string(let text) where text.isEmpty: return .all
        case .object(let members) where members.isEmpty: return .all
        case .array(let elements) where elements.isEmpty: return .all
        case .string(let text) where text.hasPrefix("$"):
            return .field(try AggregateAccumulator.fieldPath(text))
        case .object(let members):
            guard members.count <= maximumKeyMembers else {
                throw .invalidQuery("$group's _id may have at most \(maximumKeyMembers) members")
            }
            return .members(
                try members.keys.sorted().map { (name) throws(ParseError) in try AggregateKeyMember(name: name, json: members[name]!) })
        default:
            throw .invalidQuery("$group's _id must be null, a field as \"$name\" or an object of such fields")
        }
    }
}

/// One member of a compound `$group` key: a field's value, or a part of a Date field's instant
/// (in UTC), as Parse Server on PostgreSQL extracts it.
public struct AggregateKeyMember: Sendable, Equatable {
    /// A part of an instant, by the name of its operator (`{"$month": "$createdAt"}`).
    public enum DatePart: String, Sendable, CaseIterable {
        case year = "$year", month = "$month", dayOfMonth = "$dayOfMonth", hour = "$hour", minute = "$minute"
        case second = "$second", millisecond = "$millisecond", dayOfWeek = "$dayOfWeek", dayOfYear = "$dayOfYear"
        case week = "$week", isoWeekYear = "$isoWeekYear", isoDayOfWeek = "$isoDayOfWeek"
    }

    /// The member's name in the key.
    public var name: String
    /// The field path its value comes from.
    public var path: String
    /// The part of the field's instant it takes, or nil for the value itself.
    public var datePart: DatePart?

    public init(name: String, path: String, datePart: DatePart? = nil) {
        self.name = name
        self.path = path
        self.datePart = datePart
    }

    init(name: String, json: ParseValue) throws(ParseError) {
        try ParseNames.validateFieldName(name)
        self.name = name
        switch json {
        case .string(let text) where text.hasPrefix("$"):
            path = try AggregateAccumulator.fieldPath(text)
        case .object(let members) where members.count == 1:
            let (op, operand) = members.first!
            guard let part = DatePart(rawValue: op), let field = operand.stringValue, field.hasPrefix("$") else {
                let names = DatePart.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidQuery("\(name) in $group's _id takes a field as \"$name\" or one of \(names) of a Date field")
            }
            path = try AggregateAccumulator.fieldPath(field)
            datePart = part
        default:
            throw .invalidQuery("\(name) in $group's _id takes a field as \"$name\" or a date part such as {\"$month\": \"$createdAt\"}")
        }
    }
}
