import Cloudlet

/// Parse's rules for class names, field names and app ids, checked before any of them reaches storage.
public enum ParseNames {
    /// Fields every object has, kept apart from its own fields.
    public static let reservedFields: Set<String> = ["objectId", "createdAt", "updatedAt", "ACL"]

    /// A class name: a letter, then letters, digits or `_`, at most 128 characters; or a system
    /// class that `/classes` reaches (``SystemClass``).
    public static func validateClassName(_ name: String) throws(ParseError) {
        guard isIdentifier(name, maxLength: 128) || SystemClass.named(name)?.isReachable == true else { throw .invalidClassName(name) }
    }

    /// A field name: a letter, then letters, digits or `_`, at most 128 characters; not a reserved field.
    public static func validateFieldName(_ name: String) throws(ParseError) {
        guard isIdentifier(name, maxLength: 128), !reservedFields.contains(name) else { throw .invalidKeyName(name) }
    }

    /// An app id that may name an app's files: 1 to 64 letters, digits, `-` or `_` (it names the
    /// app's database file). Apps already in a registry are found by this rule; a new one must also
    /// pass ``newAppIdProblem(_:)``.
    public static func isValidAppId(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == 0x2D || $0 == 0x5F }
    }

    /// Names Windows reserves for devices in any folder (`CON`, `NUL`, `COM1`, …), in any case: an
    /// app named so could not keep its files there.
    static let reservedDeviceNames: Set<String> =
        Set(["CON", "PRN", "AUX", "NUL"] + (0...9).flatMap { ["COM\($0)", "LPT\($0)"] })

    /// Why `id` cannot name a new app, or nil when it can: it must be a valid app id
    /// (``isValidAppId(_:)``) that starts with a letter or a digit and is not a reserved device name.
    public static func newAppIdProblem(_ id: String) -> String? {
        guard isValidAppId(id), let first = id.utf8.first, isLetter(first) || isDigit(first) else {
            return "use 1 to 64 letters, digits, - and _, starting with a letter or a digit"
        }
        guard !reservedDeviceNames.contains(id.uppercased()) else { return "\(id) is a name systems reserve for a device" }
        return nil
    }

    /// A field path in a query: field names joined by `.` (`address.city`); reserved fields allowed.
    public static func validateFieldPath(_ path: String) throws(ParseError) {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.allSatisfy({ isIdentifier(String($0), maxLength: 128) }) else {
            throw .invalidKeyName(path)
        }
    }

    static func isIdentifier(_ name: String, maxLength: Int) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, isLetter(first), bytes.count <= maxLength else { return false }
        return bytes.allSatisfy { isLetter($0) || isDigit($0) || $0 == 0x5F }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
