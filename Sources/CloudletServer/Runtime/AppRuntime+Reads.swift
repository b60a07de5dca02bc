import Cloudlet

extension AppRuntime {
    /// The object `id` of `className` as the caller may see it, with `include`d pointers fetched and
    /// only `keys` kept (when given). Throws 101 if there is none the caller may read.
    public func get(
        _ className: String, id: String, caller: Caller, include: [String] = [], keys: [String]? = nil
    ) async throws -> ParseObject {
        try ParseNames.validateClassName(className)
        let object = try await readable(className, id: id, caller: caller)
        return try await shaped([object], include: include, keys: keys, caller: caller)[0]
    }

    /// The objects matching `query` that the caller may read.
    public func find(_ query: ParseQuery, caller: Caller) async throws -> [ParseObject] {
        try ParseNames.validateClassName(query.className)
        guard query.limit > 0 else { return [] }
        let objects = try await storage.find(StorageQuery(query: query, readerIdentities: caller.aclIdentities))
        return try await shaped(objects, include: query.include, keys: query.keys, caller: caller)
    }

    /// How many objects match `query` among those the caller may read.
    public func count(_ query: ParseQuery, caller: Caller) async throws -> Int {
        try ParseNames.validateClassName(query.className)
        return try await storage.count(StorageQuery(query: query, readerIdentities: caller.aclIdentities))
    }

    /// The stored object, if the caller may read it; 101 otherwise.
    func readable(_ className: String, id: String, caller: Caller) async throws -> ParseObject {
        guard let object = try await storage.fetch(className, id: id) else { throw ParseError.objectNotFound() }
        if let identities = caller.aclIdentities, let acl = object.acl, !acl.allowsRead(by: identities) {
            throw ParseError.objectNotFound()
        }
        return object
    }

    /// The stored object, if the caller may write it (whether or not it may read it, as in Parse);
    /// 101 otherwise.
    func writable(_ className: String, id: String, caller: Caller) async throws -> ParseObject {
        guard let object = try await storage.fetch(className, id: id) else { throw ParseError.objectNotFound() }
        try Self.checkWrite(object, caller.aclIdentities)
        return object
    }

    private func shaped(_ objects: [ParseObject], include: [String], keys: [String]?, caller: Caller) async throws -> [ParseObject] {
        var objects = objects
        if !include.isEmpty {
            objects = try await including(include.map { $0.split(separator: ".").map(String.init) }, in: objects, caller: caller)
        }
        if let keys {
            let kept = Set(keys.compactMap { $0.split(separator: ".").first.map(String.init) })
            for index in objects.indices { objects[index].fields = objects[index].fields.filter { kept.contains($0.key) } }
        }
        if !caller.isMaster {
            // As in Parse, a user's email is shown to that user (and the master key) only.
            for index in objects.indices where objects[index].className == "_User" && objects[index].objectId != caller.userId {
                objects[index].fields["email"] = nil
            }
        }
        return objects
    }

    /// Replaces the pointers at `paths` (`["author"]`, `["post", "author"]`) with the objects they
    /// point to, fetched with one query per class and as the caller may read them.
    private func including(_ paths: [[String]], in objects: [ParseObject], caller: Caller) async throws -> [ParseObject] {
        var objects = objects
        let byField = Dictionary(grouping: paths.filter { !$0.isEmpty }, by: { $0[0] })
        for (field, fieldPaths) in byField {
            try ParseNames.validateFieldPath(field)
            var wanted: [String: Set<String>] = [:]
            for object in objects { for pointer in Self.pointers(in: object.fields[field]) { wanted[pointer.className, default: []].insert(pointer.objectId) } }
            let deeper = fieldPaths.map { Array($0.dropFirst()) }.filter { !$0.isEmpty }
            var fetched: [String: ParseValue] = [:]
            for (className, ids) in wanted {
                let query = ParseQuery(className, constraints: ["objectId": ["$in": .array(ids.sorted().map(ParseValue.string))]], limit: ids.count)
                var found = try await storage.find(StorageQuery(query: query, readerIdentities: caller.aclIdentities))
                if !deeper.isEmpty { found = try await including(deeper, in: found, caller: caller) }
                for object in found {
                    var json = object.json
                    json["__type"] = "Object"
                    json["className"] = .string(className)
                    fetched[className + "/" + object.objectId!] = .object(json)
                }
            }
            for index in objects.indices {
                objects[index].fields[field] = objects[index].fields[field].map { Self.replacingPointers(in: $0, with: fetched) }
            }
        }
        return objects
    }

    private static func pointers(in value: ParseValue?) -> [(className: String, objectId: String)] {
        if let pointer = value?.pointerValue { return [pointer] }
        return value?.arrayValue?.compactMap(\.pointerValue) ?? []
    }

    private static func replacingPointers(in value: ParseValue, with fetched: [String: ParseValue]) -> ParseValue {
        if let pointer = value.pointerValue { return fetched[pointer.className + "/" + pointer.objectId] ?? value }
        if let elements = value.arrayValue { return .array(elements.map { replacingPointers(in: $0, with: fetched) }) }
        return value
    }
}
