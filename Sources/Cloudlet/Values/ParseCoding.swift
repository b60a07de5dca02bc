import Foundation

/// Converts between Codable types and ``ParseValue``, with `Date` written as a Parse `Date`
/// (`{"__type": "Date", "iso": …}`) and read from that form or from a plain date string.
public enum ParseCoding {
    /// `value` as a Parse value.
    public static func encode<Value: Encodable>(_ value: Value) throws -> ParseValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.container(keyedBy: DateKeys.self)
            try container.encode("Date", forKey: .type)
            try container.encode(ParseDate.string(from: date), forKey: .iso)
        }
        return try JSONParser.parse(try encoder.encode(value))
    }

    /// A `Value` read from a Parse value.
    public static func decode<Value: Decodable>(_ type: Value.Type, from value: ParseValue) throws -> Value {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text: String
            if let container = try? decoder.container(keyedBy: DateKeys.self) {
                text = try container.decode(String.self, forKey: .iso)
            } else {
                text = try decoder.singleValueContainer().decode(String.self)
            }
            guard let date = ParseDate.date(from: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a date"))
            }
            return date
        }
        return try decoder.decode(type, from: Data(JSONWriter.bytes(value)))
    }

    private enum DateKeys: String, CodingKey {
        case type = "__type"
        case iso
    }
}
