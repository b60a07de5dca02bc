/// What a `beforeSave` hook changed in the object it was given: the fields it set (new or
/// changed), the fields it removed, and its ACL if it changed it. The hook's answer carries only
/// this, so that neither side encodes, parses or compares the fields it left alone.
///
/// On the wire it is `{"__patch": {"set": {…}, "unset": […]}}`: no field may be named `__patch`
/// (field names start with a letter), so it is never mistaken for an object.
package struct ObjectPatch: Sendable, Equatable {
    /// The fields set, by name; `ACL` (as its JSON) if the hook changed the ACL.
    package var set: [String: ParseValue] = [:]
    /// The fields removed; `ACL` if the hook removed the ACL.
    package var unset: [String] = []

    /// The member that marks a hook's answer as a patch.
    static let marker = "__patch"

    /// What turned `given` into `changed` (their ids and dates aside: the host sets those).
    package init(from given: ParseObject, to changed: ParseObject) {
        for (key, value) in changed.fields where given.fields[key] != value { set[key] = value }
        for key in given.fields.keys where changed.fields[key] == nil { unset.append(key) }
        if changed.acl != given.acl {
            if let acl = changed.acl { set["ACL"] = acl.json } else { unset.append("ACL") }
        }
    }

    /// The patch `answer` holds, or nil if it holds none (an object answered whole).
    package init?(_ answer: ParseValue) {
        guard let patch = answer[Self.marker] else { return nil }
        set = patch["set"]?.objectValue ?? [:]
        unset = patch["unset"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The answer that carries the patch.
    package var answer: ParseValue {
        [Self.marker: ["set": .object(set), "unset": .array(unset.map(ParseValue.string))]]
    }
}
