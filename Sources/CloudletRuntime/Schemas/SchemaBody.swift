import Cloudlet

/// The body of `POST` or `PUT /schemas/:className`, read as Parse Server reads it: `fields`
/// (`{"name": {"type": "String"}}`, or `{"__op": "Delete"}` to delete one), `classLevelPermissions`
/// and `indexes` (`{"name": {"field": 1}}`, or `{"__op": "Delete"}`).
struct SchemaBody {
    let fields: [String: ParseValue]
    let permissions: ParseValue?
    let indexes: [String: ParseValue]

    /// Reads the body's members; 107 when one is not an object.
    init(_ body: [String: ParseValue]) throws(ParseError) {
        func members(_ name: String) throws(ParseError) -> [String: ParseValue] {
            guard let value = body[name], value != .null else { return [:] }
            guard let members = value.objectValue else { throw .invalidJSON("\(name) must be an object") }
            return members
        }
        fields = try members("fields")
        indexes = try members("indexes")
        permissions = body["classLevelPermissions"].flatMap { $0 == .null ? nil : $0 }
    }

    /// What the body changes in `schema`, checked: 105 for a field name that is not valid, 136 for a
    /// default field (added or deleted), 255 for a field or index that exists already (added) or does not (deleted),
    /// 111 for an unknown type, 107 for CLPs Parse Server would refuse, 255 past the bounds on
    /// fields and indexes (``ClassSchemas``).
    func change(to schema: StoredClassSchema) throws(ParseError) -> SchemaChange {
        var change = SchemaChange()
        var fieldsAfter = schema.allFields
        for (name, definition) in fields {
            if Self.isDelete(definition) {
                if ParseNames.reservedFields.contains(name) || StoredClassSchema.defaultFields[schema.className]?[name] != nil {
                    throw ParseError(code: 136, message: "field \(name) cannot be changed")
                }
                guard let type = schema.fieldTypes[name] else { throw ParseError(code: 255, message: "Field \(name) does not exist, cannot delete.") }
                change.deletedFields[name] = type
                fieldsAfter[name] = nil
                continue
            }
            guard ParseNames.isIdentifier(name, maxLength: 128) else { throw ParseError(code: 105, message: "invalid field name: \(name)") }
            guard schema.allFields[name] == nil else {
                if ParseNames.reservedFields.contains(name) { throw ParseError(code: 136, message: "field \(name) cannot be added") }
                throw ParseError(code: 255, message: "Field \(name) exists, cannot update.")
            }
            guard definition["required"] ?? false == false, definition["defaultValue"] == nil else {
                throw ParseError(code: 255, message: "field \(name): required fields and default values are not supported")
            }
            let type = try ParseFieldType(schemaField: definition, field: name)
            change.addedFields[name] = type
            fieldsAfter[name] = type
        }
        guard schema.fieldTypes.count + change.addedFields.count <= ClassSchemas.maximumFields else {
            throw ParseError(code: 255, message: "a class may have at most \(ClassSchemas.maximumFields) fields")
        }
        // The CLPs must still hold for the fields that remain, whether or not they change.
        if let permissions {
            change.permissions = try ClassLevelPermissions(json: permissions, fields: fieldsAfter)
        } else if !change.deletedFields.isEmpty, let current = schema.permissions {
            _ = try ClassLevelPermissions(json: current.json, fields: fieldsAfter)
        }
        try readIndexes(schema, fieldsAfter, into: &change)
        return change
    }

    private func readIndexes(_ schema: StoredClassSchema, _ fieldsAfter: [String: ParseFieldType?], into change: inout SchemaChange) throws(ParseError) {
        // An index on a deleted field goes with it.
        for (name, keys) in schema.indexes where keys.contains(where: { change.deletedFields[$0.field] != nil }) {
            change.deletedIndexes.insert(name)
        }
        for (name, definition) in indexes {
            if Self.isDelete(definition) {
                guard schema.indexes[name] != nil else { throw ParseError(code: 255, message: "Index \(name) does not exist, cannot delete.") }
                change.deletedIndexes.insert(name)
                continue
            }
            guard ParseNames.isIdentifier(name, maxLength: 64) else { throw ParseError(code: 255, message: "invalid index name: \(name)") }
            guard schema.indexes[name] == nil else { throw ParseError(code: 255, message: "Index \(name) exists, cannot update.") }
            guard let keys = definition.objectValue, (1...ClassSchemas.maximumIndexFields).contains(keys.count) else {
                throw ParseError(code: 255, message: "index \(name) must order 1 to \(ClassSchemas.maximumIndexFields) fields")
            }
            // A JSON object's members have no order here: an index orders its fields by name.
            change.addedIndexes[name] = try keys.keys.sorted().map { field throws(ParseError) in
                guard fieldsAfter[field] != nil, !ParseNames.reservedFields.contains(field) else {
                    throw ParseError(code: 255, message: "Field \(field) does not exist, cannot add index.")
                }
                guard let direction = keys[field]?.doubleValue, direction == 1 || direction == -1 else {
                    throw ParseError(code: 255, message: "index \(name): \(field) must be 1 or -1")
                }
                return StoredClassSchema.IndexKey(field: field, ascending: direction == 1)
            }
        }
        let count = schema.indexes.count - change.deletedIndexes.count + change.addedIndexes.count
        guard count <= ClassSchemas.maximumIndexes else {
            throw ParseError(code: 255, message: "a class may have at most \(ClassSchemas.maximumIndexes) indexes")
        }
    }

    private static func isDelete(_ definition: ParseValue) -> Bool {
        definition["__op"]?.stringValue == "Delete"
    }
}
