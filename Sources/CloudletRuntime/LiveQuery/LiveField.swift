import Cloudlet

/// A field a LiveQuery subscription tests, read from one object as the stores read it from a row:
/// `objectId`, `createdAt` and `updatedAt` as the text of their columns, any other path through the
/// object's fields, member by member (a path never reads into an array).
struct LiveField: Sendable {
    /// One of the columns the stores keep apart from the fields.
    enum Column: Sendable {
        case objectId, createdAt, updatedAt
    }

    /// The path as the query names it.
    let path: String
    /// The column behind the path, if it names one.
    let column: Column?
    private let members: [String]

    /// The field at `path`, a validated field path.
    init(_ path: String) {
        self.path = path
        column =
            switch QueryTerms.column(path) {
            case "id": .objectId
            case "created_at": .createdAt
            case "updated_at": .updatedAt
            default: nil
            }
        members = path.split(separator: ".").map(String.init)
    }

    /// The field's value in `object`: nil where it is missing (or a member on its path is not an
    /// object); a column's text as the stores keep it.
    func value(in object: ParseObject) -> ParseValue? {
        switch column {
        case .objectId: return object.objectId.map(ParseValue.string)
        case .createdAt: return object.createdAt.map { .string(ParseDate.string(from: $0)) }
        case .updatedAt: return object.updatedAt.map { .string(ParseDate.string(from: $0)) }
        case nil: break
        }
        var value = object.fields[members[0]]
        for member in members.dropFirst() {
            guard case .object(let inner) = value else { return nil }
            value = inner[member]
        }
        return value
    }
}
