import Foundation

/// A JSON value as Parse stores it: the six JSON kinds, with Parse's special types
/// (`Date`, `Pointer`, `GeoPoint`, `Polygon`, `Bytes`, `File`) carried as objects tagged with `__type`.
///
/// ```swift
/// let text = request.object["text"]?.stringValue
/// request.object["sentAt"] = .date(Date())
/// request.object["sender"] = .pointer(className: "_User", objectId: user.id)
/// ```
public enum ParseValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ParseValue])
    case object([String: ParseValue])
}

extension ParseValue {
    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, if this is a number.
    public var doubleValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an integer, if this is a number with no fractional part.
    public var intValue: Int? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) < 9.0e15 else { return nil }
        return Int(value)
    }

    /// The Boolean, if this is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [ParseValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if this is an object (including Parse's tagged types).
    public var objectValue: [String: ParseValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is JSON `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key`, if this is an object that has it.
    public subscript(key: String) -> ParseValue? {
        objectValue?[key]
    }

    /// The `__type` tag of a Parse special type (`"Date"`, `"Pointer"`, …), if this is one.
    public var parseType: String? {
        self["__type"]?.stringValue
    }
}

// MARK: - Parse's special types

extension ParseValue {
    /// A Parse `Date`: `{"__type": "Date", "iso": "2026-01-02T03:04:05.678Z"}`.
    public static func date(_ date: Date) -> ParseValue {
        .object(["__type": "Date", "iso": .string(ParseDate.string(from: date))])
    }

    /// A Parse `Pointer` to the object `objectId` of `className`.
    public static func pointer(className: String, objectId: String) -> ParseValue {
        .object(["__type": "Pointer", "className": .string(className), "objectId": .string(objectId)])
    }

    /// A Parse `GeoPoint`.
    public static func geoPoint(latitude: Double, longitude: Double) -> ParseValue {
        .object(["__type": "GeoPoint", "latitude": .number(latitude), "longitude": .number(longitude)])
    }

    /// The date, if this is a Parse `Date` (or a string in Parse's date format).
    public var dateValue: Date? {
        if case .string(let text) = self { return ParseDate.date(from: text) }
        guard parseType == "Date", let iso = self["iso"]?.stringValue else { return nil }
        return ParseDate.date(from: iso)
    }

    /// The pointed-to class and object id, if this is a Parse `Pointer`.
    public var pointerValue: (className: String, objectId: String)? {
        guard parseType == "Pointer",
            let className = self["className"]?.stringValue,
            let objectId = self["objectId"]?.stringValue
        else { return nil }
        return (className, objectId)
    }
}

// MARK: - Literals

extension ParseValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: ParseValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(dictionaryLiteral elements: (String, ParseValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
