/// Parse relations as values: the `Relation` a field holds, and the operations that add objects to
/// it and remove them.
///
/// ```swift
/// post["likes"] = .addRelation([.pointer(className: "_User", objectId: userId)])
/// try await request.store.save(post)
/// let likers = try await request.store.find(
///     ParseQuery("_User").whereRelatedTo(object: .pointer(className: "Post", objectId: postId), key: "likes"))
/// ```
extension ParseValue {
    /// A `Relation` to objects of `className`, as a relation field reads back:
    /// `{"__type": "Relation", "className": "…"}`.
    public static func relation(className: String) -> ParseValue {
        .object(["__type": "Relation", "className": .string(className)])
    }

    /// Parse's `AddRelation` operation: adds the objects `pointers` point to (all of one class) to
    /// a relation field.
    public static func addRelation(_ pointers: [ParseValue]) -> ParseValue {
        .object(["__op": "AddRelation", "objects": .array(pointers)])
    }

    /// Parse's `RemoveRelation` operation: removes the objects `pointers` point to from a relation field.
    public static func removeRelation(_ pointers: [ParseValue]) -> ParseValue {
        .object(["__op": "RemoveRelation", "objects": .array(pointers)])
    }

    /// The class a `Relation` value relates to, if this is one.
    public var relationClassName: String? {
        parseType == "Relation" ? self["className"]?.stringValue : nil
    }
}
