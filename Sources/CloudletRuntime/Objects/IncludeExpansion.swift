import Cloudlet

/// Replaces pointers with the objects they point to, for `include`: one query per class and per
/// thousand targets, as the caller may read them (class-level permissions, ACL and protected fields), within the request's
/// ``ReadBudget`` — each target fetched counts against the included objects, and each copy of it
/// put in place counts its bytes, so a thousand pointers to one large object stop at the budget.
struct IncludeExpansion {
    let app: AppContext
    let caller: Caller
    let budget: ReadBudget

    /// `objects` with the pointers at `paths` (`["author"]`, `["post", "author"]`) replaced.
    func including(_ paths: [[String]], in objects: [ParseObject]) async throws -> [ParseObject] {
        var objects = objects
        let byField = Dictionary(grouping: paths.filter { !$0.isEmpty }, by: { $0[0] })
        for (field, fieldPaths) in byField {
            try ParseNames.validateFieldPath(field)
            var wanted: [String: Set<String>] = [:]
            for object in objects {
                for pointer in Self.pointers(in: object.fields[field]) { wanted[pointer.className, default: []].insert(pointer.objectId) }
            }
            let deeper = fieldPaths.map { Array($0.dropFirst()) }.filter { !$0.isEmpty }
            var fetched: [String: Target] = [:]
            for (className, ids) in wanted {
                for object in try await targets(className, ids: ids.sorted(), deeper: deeper) {
                    var json = object.json
                    json["__type"] = "Object"
                    json["className"] = .string(className)
                    let value = ParseValue.object(json)
                    fetched[className + "/" + object.objectId!] = Target(value: value, bytes: JSONWriter.byteCount(value))
                }
            }
            for index in objects.indices {
                if let value = objects[index].fields[field] {
                    objects[index].fields[field] = try replacingPointers(in: value, with: fetched)
                }
            }
        }
        return objects
    }

    /// An included object and the size of one copy of it in the answer.
    private struct Target {
        let value: ParseValue
        let bytes: Int
    }

    /// The objects `ids` of `className` the caller may read, in chunks of the most one query returns.
    /// None when the caller may not `get` objects of the class (class-level permissions): their
    /// pointers stay pointers.
    private func targets(_ className: String, ids: [String], deeper: [[String]]) async throws -> [ParseObject] {
        let permissions = ClassPermissions(app)
        guard let access = try await permissions.includable(className, by: caller) else { return [] }
        try budget.chargeIncluded(ids.count)
        var found: [ParseObject] = []
        for start in stride(from: 0, to: ids.count, by: StorageQuery.maximumLimit) {
            let chunk = ids[start..<min(start + StorageQuery.maximumLimit, ids.count)]
            let byId: [String: ParseValue] = ["objectId": ["$in": .array(chunk.map(ParseValue.string))]]
            var constraints = byId
            if let restriction = access.restriction {
                guard let narrowed = restriction.narrowing(byId) else { return [] }
                constraints = narrowed
            }
            let query = ParseQuery(className, constraints: constraints, limit: chunk.count)
            found += try await app.stores.objects.find(StorageQuery(query: query, readerIdentities: caller.aclIdentities, budget: budget))
        }
        if !deeper.isEmpty { found = try await including(deeper, in: found) }
        return try await permissions.redacted(found, by: caller)
    }

    private static func pointers(in value: ParseValue?) -> [(className: String, objectId: String)] {
        if let pointer = value?.pointerValue { return [pointer] }
        return value?.arrayValue?.compactMap(\.pointerValue) ?? []
    }

    private func replacingPointers(in value: ParseValue, with fetched: [String: Target]) throws -> ParseValue {
        if let pointer = value.pointerValue {
            guard let target = fetched[pointer.className + "/" + pointer.objectId] else { return value }
            try budget.charge(bytes: target.bytes)
            return target.value
        }
        if let elements = value.arrayValue { return .array(try elements.map { try replacingPointers(in: $0, with: fetched) }) }
        return value
    }
}
