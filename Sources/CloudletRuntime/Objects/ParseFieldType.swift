import Cloudlet
import Foundation

/// The type of a stored field, as Parse's schema names it. A class's fields keep the type of their
/// first value; a later value of another type is refused with code 111.
public enum ParseFieldType: Sendable, Hashable, CustomStringConvertible {
    case string, number, boolean, date, geoPoint, polygon, bytes, file, array, object
    case pointer(targetClass: String)
    /// A relation: its objects are rows of a join table, the field holds only the target class.
    case relation(targetClass: String)

    /// The name stored in the schema table, such as `Number` or `Pointer<_User>`.
    public var description: String {
        switch self {
        case .string: "String"
        case .number: "Number"
        case .boolean: "Boolean"
        case .date: "Date"
        case .geoPoint: "GeoPoint"
        case .polygon: "Polygon"
        case .bytes: "Bytes"
        case .file: "File"
        case .array: "Array"
        case .object: "Object"
        case .pointer(let target): "Pointer<\(target)>"
        case .relation(let target): "Relation<\(target)>"
        }
    }

    /// The type of a field value, checking that Parse's special types are well formed.
    /// Nil for `null`, which fits any type. Throws 111 for a malformed special type.
    public static func of(_ value: ParseValue, field: String) throws(ParseError) -> ParseFieldType? {
        switch value {
        case .null: return nil
        case .bool: return .boolean
        case .number: return .number
        case .string: return .string
        case .array(let elements):
            for element in elements { _ = try of(element, field: field) }
            return .array
        case .object(let members):
            guard let tag = members["__type"] else {
                for (key, member) in members {
                    guard !key.hasPrefix("$"), !key.contains("."), !key.hasPrefix("__") else {
                        throw .invalidKeyName("\(field).\(key)")
                    }
                    _ = try of(member, field: field)
                }
                return .object
            }
            return try specialType(tag, value, field: field)
        }
    }

    /// The type of a value already checked by ``of(_:field:)``, read without checking it again
    /// (for the schema check inside the write transaction).
    package static func ofValidated(_ value: ParseValue) -> ParseFieldType? {
        switch value {
        case .null: return nil
        case .bool: return .boolean
        case .number: return .number
        case .string: return .string
        case .array: return .array
        case .object:
            switch value.parseType {
            case "Date": return .date
            case "Pointer": return .pointer(targetClass: value["className"]?.stringValue ?? "")
            case "Relation": return .relation(targetClass: value["className"]?.stringValue ?? "")
            case "GeoPoint": return .geoPoint
            case "Polygon": return .polygon
            case "Bytes": return .bytes
            case "File": return .file
            default: return .object
            }
        }
    }

    private static func specialType(_ tag: ParseValue, _ value: ParseValue, field: String) throws(ParseError) -> ParseFieldType {
        func invalid(_ what: String) -> ParseError { .incorrectType("invalid \(what) for field \(field)") }
        switch tag.stringValue {
        case "Date":
            guard let iso = value["iso"]?.stringValue, ParseDate.date(from: iso) != nil else { throw invalid("Date") }
            return .date
        case "Pointer":
            guard let className = value["className"]?.stringValue,
                (try? ParseNames.validateClassName(className)) != nil,
                let objectId = value["objectId"]?.stringValue, !objectId.isEmpty
            else { throw invalid("Pointer") }
            return .pointer(targetClass: className)
        case "Relation":
            guard let className = value["className"]?.stringValue, (try? ParseNames.validateClassName(className)) != nil,
                value.objectValue?.count == 2
            else { throw invalid("Relation") }
            return .relation(targetClass: className)
        case "GeoPoint":
            guard let latitude = value["latitude"]?.doubleValue, let longitude = value["longitude"]?.doubleValue,
                (-90...90).contains(latitude), (-180...180).contains(longitude)
            else { throw invalid("GeoPoint") }
            return .geoPoint
        case "Polygon":
            _ = try ParsePolygon.validated(value, field: field)
            return .polygon
        case "Bytes":
            guard let base64 = value["base64"]?.stringValue, Data(base64Encoded: base64) != nil else { throw invalid("Bytes") }
            return .bytes
        case "File":
            guard let name = value["name"]?.stringValue, !name.isEmpty else { throw invalid("File") }
            if let url = value["url"], url.stringValue == nil { throw invalid("File") }
            return .file
        default:
            throw .incorrectType("unknown __type for field \(field)")
        }
    }
}

extension ParseFieldType {
    /// The types a schema may name without a target class, by Parse's name.
    private static let plainTypes: [String: ParseFieldType] = [
        "String": .string, "Number": .number, "Boolean": .boolean, "Date": .date, "GeoPoint": .geoPoint, "Polygon": .polygon,
        "Bytes": .bytes, "File": .file, "Array": .array, "Object": .object,
    ]

    /// The type a schema table stores under ``description`` (`Pointer<_User>`), or nil for a name it does not know.
    public init?(storedName: String) {
        if let plain = Self.plainTypes[storedName] {
            self = plain
            return
        }
        for (prefix, make) in [("Pointer<", ParseFieldType.pointer), ("Relation<", ParseFieldType.relation)]
        where storedName.hasPrefix(prefix) && storedName.hasSuffix(">") {
            self = make(String(storedName.dropFirst(prefix.count).dropLast()))
            return
        }
        return nil
    }

    /// The type a `/schemas` field definition names: `{"type": "Pointer", "targetClass": "_User"}`.
    /// Throws 111 for an unknown type or a target class that is not a valid class name.
    public init(schemaField definition: ParseValue, field: String) throws(ParseError) {
        guard let type = definition["type"]?.stringValue else { throw .incorrectType("invalid field type for \(field): expected {\"type\": …}") }
        if let plain = Self.plainTypes[type] {
            self = plain
            return
        }
        guard type == "Pointer" || type == "Relation" else { throw .incorrectType("invalid field type: \(type)") }
        guard let target = definition["targetClass"]?.stringValue else { throw ParseError(code: 135, message: "type \(type) needs a class name") }
        guard (try? ParseNames.validateClassName(target)) != nil || target == "_Session" else { throw .invalidClassName(target) }
        self = type == "Pointer" ? .pointer(targetClass: target) : .relation(targetClass: target)
    }

    /// The field as `/schemas` answers it: `{"type": "String"}`, `{"type": "Pointer", "targetClass": "_User"}`.
    public var schemaJSON: ParseValue {
        switch self {
        case .pointer(let target): ["type": "Pointer", "targetClass": .string(target)]
        case .relation(let target): ["type": "Relation", "targetClass": .string(target)]
        default: ["type": .string(description)]
        }
    }
}
