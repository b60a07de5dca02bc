import Cloudlet

/// A value a query compares a field with for equality (as such, in `$in`, `$nin`, `$all` and
/// `$containedBy`), read as every store reads it: a value matches only values of its own JSON
/// type; a Date compares by its `iso` text, a Pointer by the id it points to.
package enum QueryOperand {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    /// An array: equal only to the same array.
    case array(ParseValue)
    /// An object without a `__type`: equal only to the same object.
    case object(ParseValue)
    /// A Date, by its `iso` text in Parse's format (milliseconds, UTC).
    case date(iso: String)
    /// A Pointer, by the id it points to (its class is not compared).
    case pointer(objectId: String)

    /// `value`, compared with the field at `path`; 102 for any other Parse type (a `GeoPoint`, a
    /// `Polygon`, a `File`, …) or a Date whose `iso` is not a date.
    package init(_ value: ParseValue, path: String) throws {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .array: self = .array(value)
        case .object:
            if value.parseType == "Date", let date = value.dateValue {
                self = .date(iso: ParseDate.string(from: date))
            } else if let pointer = value.pointerValue {
                self = .pointer(objectId: pointer.objectId)
            } else if value.parseType == nil {
                self = .object(value)
            } else {
                throw ParseError.invalidQuery("\(path): cannot compare this type")
            }
        }
    }
}
