import Cloudlet

/// The settings document as `Codable`: the members of ``AppSettings/fields``, each in the form the
/// admin API writes it; a member left out keeps its default, and a value out of bounds is an error
/// naming the member.
///
/// ```swift
/// let settings = try JSONDecoder().decode(AppSettings.self, from: Data(#"{"workers": 2}"#.utf8))
/// ```
extension AppSettings: Codable {
    /// Reads the settings document; throws 142 naming a member whose value is out of bounds.
    public init(from decoder: any Decoder) throws {
        guard let members = try JSONDocument(from: decoder).value.objectValue else {
            throw DecodingError.typeMismatch(
                AppSettings.self, .init(codingPath: decoder.codingPath, debugDescription: "the settings must be a JSON object"))
        }
        self = try AppSettings().reading(members)
    }

    /// Writes the settings document, every member of ``AppSettings/fields``.
    public func encode(to encoder: any Encoder) throws {
        try JSONDocument(value: .object(json)).encode(to: encoder)
    }
}

/// A JSON value carried through `Codable`.
private struct JSONDocument: Codable {
    var value: ParseValue

    init(value: ParseValue) {
        self.value = value
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            value = .null
        } else if let flag = try? container.decode(Bool.self) {
            value = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            value = .number(number)
        } else if let text = try? container.decode(String.self) {
            value = .string(text)
        } else if let items = try? container.decode([JSONDocument].self) {
            value = .array(items.map(\.value))
        } else {
            value = .object(try container.decode([String: JSONDocument].self).mapValues(\.value))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch value {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .number(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .array(let items): try container.encode(items.map(JSONDocument.init(value:)))
        case .object(let members): try container.encode(members.mapValues(JSONDocument.init(value:)))
        }
    }
}
