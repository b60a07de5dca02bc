import Cloudlet

/// Parse's rules for `_Installation` objects, the same through `/installations`,
/// `/classes/_Installation`, `POST /batch` and hooks' stores: ids lowercased, the fields that
/// identify a device required (135), bounded (142) and never changed (136), the installation bound
/// to the session's user, and finds and deletes left to the master key. Stricter than Parse for
/// clients: a client changes only its own installation, the one whose `installationId` its
/// `X-Parse-Installation-Id` names, and never finds one by its device token.
enum InstallationRules {
    static let className = SystemClass.installation.name

    /// The most bytes each field that identifies a device may take (an installation id is a UUID,
    /// an APNs token 64 hex digits, an FCM token about 160 characters).
    static let maximumIdentityBytes = ["installationId": 128, "deviceType": 32, "deviceToken": 4096]

    /// The body with `installationId` lowercased, and `deviceToken` too when it is 64 hexadecimal
    /// digits (an APNs token). Throws 111 for an id field that is not a string, 136 for an
    /// operation on `installationId` or `deviceType`, 142 for one longer than its bound.
    static func normalized(_ body: [String: ParseValue]) throws -> [String: ParseValue] {
        var body = body
        for (field, maximum) in maximumIdentityBytes {
            guard let value = body[field] else { continue }
            if field != "deviceToken", value.objectValue?["__op"] != nil {
                throw ParseError(code: 136, message: "\(field) may not be changed in this operation")
            }
            guard value.stringValue != nil || (field == "deviceToken" && isDeletion(value)) else {
                throw ParseError.incorrectType("\(field) must be a string")
            }
            if let text = value.stringValue, text.utf8.count > maximum {
                throw ParseError.validation("\(field) takes \(text.utf8.count) bytes; it may take at most \(maximum)")
            }
        }
        if let id = body["installationId"]?.stringValue { body["installationId"] = .string(id.lowercased()) }
        if let token = body["deviceToken"]?.stringValue, isAPNsToken(token) { body["deviceToken"] = .string(token.lowercased()) }
        return body
    }

    /// The body of a create with the installation id it registers: for a client, the body's, else
    /// its `X-Parse-Installation-Id`; a body naming another id than the header answers 119. The
    /// master key's body is taken as it is.
    static func claimingCallersId(_ body: [String: ParseValue], _ caller: Caller) throws -> [String: ParseValue] {
        guard !caller.isMaster, let header = caller.installationId?.lowercased() else { return body }
        var body = body
        if let given = body["installationId"]?.stringValue?.lowercased(), given != header {
            throw ParseError(code: 119, message: "the body's installationId is not this device's X-Parse-Installation-Id", httpStatus: 403)
        }
        body["installationId"] = body["installationId"] ?? .string(header)
        return body
    }

    /// Throws 119 unless `caller` may change the stored installation `current`: the master key, or
    /// the device whose `X-Parse-Installation-Id` is the installation's `installationId`.
    static func checkOwnDevice(_ current: ParseObject, _ caller: Caller) throws {
        guard !caller.isMaster else { return }
        guard let stored = current["installationId"]?.stringValue, caller.installationId?.lowercased() == stored else {
            throw ParseError(
                code: 119, message: "only the installation's own device changes it: send its installationId as X-Parse-Installation-Id",
                httpStatus: 403)
        }
    }

    /// Sets `user` to the session's user for a client with a session; a client without one may
    /// only remove it (119 otherwise). The master key sets what it likes.
    static func bindUser(_ body: inout [String: ParseValue], to caller: Caller) throws {
        guard !caller.isMaster else { return }
        if let given = body["user"], isDeletion(given) { return }
        if let userId = caller.userId {
            body["user"] = .pointer(className: "_User", objectId: userId)
        } else if body["user"] != nil {
            throw ParseError(code: 119, message: "an installation is bound to the user of the session that saves it", httpStatus: 403)
        }
    }

    /// Throws 136 when `body` would change what identifies the stored installation `current`: its
    /// `installationId`, its `deviceType`, or (for an installation without an id) its `deviceToken`.
    static func checkUnchanged(_ body: [String: ParseValue], against current: ParseObject) throws {
        if let id = body["installationId"]?.stringValue, let stored = current["installationId"]?.stringValue, id != stored {
            throw ParseError(code: 136, message: "installationId may not be changed in this operation")
        }
        if let type = body["deviceType"]?.stringValue, let stored = current["deviceType"]?.stringValue, type != stored {
            throw ParseError(code: 136, message: "deviceType may not be changed in this operation")
        }
        if let token = body["deviceToken"]?.stringValue, let stored = current["deviceToken"]?.stringValue, token != stored,
            body["installationId"] == nil, current["installationId"] == nil
        {
            throw ParseError(code: 136, message: "deviceToken may not be changed in this operation")
        }
    }

    private static func isDeletion(_ value: ParseValue) -> Bool {
        value.objectValue?["__op"]?.stringValue == "Delete"
    }

    private static func isAPNsToken(_ token: String) -> Bool {
        token.utf8.count == 64 && token.utf8.allSatisfy { $0.isHexDigit }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
