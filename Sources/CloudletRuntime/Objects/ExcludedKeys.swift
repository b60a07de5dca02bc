import Cloudlet

extension ParseQuery {
    /// `include`, with the pointer each dotted `excludeKeys` path leaves a field out of (`author`
    /// for `author.email`), as Parse Server includes it.
    var includeWithExcludedPaths: [String] {
        let implied = (excludeKeys ?? []).compactMap { path in path.lastIndex(of: ".").map { String(path[..<$0]) } }
        return include + implied.filter { !include.contains($0) }
    }
}

extension ParseObject {
    /// The object without the fields `paths` name (Parse's `excludeKeys`): `score` leaves out the
    /// field; `author.email` leaves `email` out of the object included at `author` (or of each
    /// one in an array of included objects), at any depth. `objectId`, `createdAt`, `updatedAt`
    /// and `ACL` are always kept.
    func excluding(_ paths: [String]) -> ParseObject {
        var object = self
        for path in paths {
            Self.remove(path.split(separator: ".").map(String.init)[...], from: &object.fields)
        }
        return object
    }

    private static func remove(_ path: ArraySlice<String>, from fields: inout [String: ParseValue]) {
        guard let name = path.first, let value = fields[name] else { return }
        guard path.count > 1 else {
            fields[name] = nil
            return
        }
        fields[name] = removing(path.dropFirst(), from: value)
    }

    private static func removing(_ path: ArraySlice<String>, from value: ParseValue) -> ParseValue {
        if let elements = value.arrayValue { return .array(elements.map { removing(path, from: $0) }) }
        guard var members = value.objectValue, members["__type"] == "Object" else { return value }
        remove(path, from: &members)
        return .object(members)
    }
}
