import Cloudlet

/// An app's installations, saved under Parse's rules (``InstallationRules``): a create is an upsert
/// on the installation id or device token, and a device token belongs to one installation.
/// ``ObjectWrites`` saves `_Installation` objects through it.
struct Installations {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// Saves an installation as Parse Server's upsert does: a body whose `installationId` (or,
    /// without one, the `X-Parse-Installation-Id` header) or — for the master key only —
    /// `deviceToken` names a stored installation updates it, anything else creates one. A client
    /// must name its installation id (135), and updates only its own (119, see
    /// ``InstallationRules/checkOwnDevice(_:_:)``). A new `installationId` arriving with a known
    /// token takes the token over: the installations that had it lose it.
    func create(body: [String: ParseValue], caller: Caller) async throws -> SaveResult {
        do {
            return try await upsert(body: body, caller: caller)
        } catch let error as ParseError where error.code == 137 {
            // Another save created the same installation id meanwhile: this one updates it.
            return try await upsert(body: body, caller: caller)
        }
    }

    private func upsert(body: [String: ParseValue], caller: Caller) async throws -> SaveResult {
        var body = try InstallationRules.normalized(InstallationRules.claimingCallersId(body, caller))
        try InstallationRules.bindUser(&body, to: caller)
        let installationId = body["installationId"]?.stringValue
        let token = body["deviceToken"]?.stringValue
        guard installationId != nil || token != nil else {
            throw ParseError(code: 135, message: "at least one ID field (deviceToken, installationId) must be specified in this operation")
        }
        guard installationId != nil || caller.isMaster else {
            throw ParseError(
                code: 135, message: "installationId must be specified in this operation: a client registers its own installation")
        }
        let writes = ObjectWrites(app)
        var saved: SaveResult
        let tokenToLookUp = caller.isMaster ? token : nil
        if let current = try await installationToUpdate(installationId: installationId, token: tokenToLookUp), let id = current.objectId {
            try InstallationRules.checkOwnDevice(current, caller)
            try InstallationRules.checkUnchanged(body, against: current)
            let changes = try WriteBody(body, isCreate: false).changes
            saved = try await writes.update(InstallationRules.className, id: id, changes: changes, caller: caller)
            saved.isNew = false
        } else {
            guard body["deviceType"]?.stringValue != nil else {
                throw ParseError(code: 135, message: "deviceType must be specified in this operation")
            }
            saved = try await writes.createObject(InstallationRules.className, body: body, caller: caller)
        }
        if let token { try await releaseDeviceToken(token, keptBy: saved.object.objectId) }
        return saved
    }

    /// Updates the installation `id` under Parse's rules: ids lowercased, `installationId` and
    /// `deviceType` unchanged (136), bound to the session's user; a new token is taken over. A client
    /// changes only its own installation (119, see ``InstallationRules/checkOwnDevice(_:_:)``).
    func update(id: String, body: [String: ParseValue], caller: Caller) async throws -> SaveResult {
        var body = try InstallationRules.normalized(body)
        try InstallationRules.bindUser(&body, to: caller)
        let writes = ObjectWrites(app)
        let current = try await writes.writable(InstallationRules.className, id: id, caller: caller)
        try InstallationRules.checkOwnDevice(current, caller)
        try InstallationRules.checkUnchanged(body, against: current)
        let changes = try WriteBody(body, isCreate: false).changes
        let saved = try await writes.update(InstallationRules.className, id: id, changes: changes, caller: caller)
        if let token = body["deviceToken"]?.stringValue { try await releaseDeviceToken(token, keptBy: id) }
        return saved
    }

    /// The stored installation a create turns into an update of: the one with the installation id,
    /// else the only one with the token when it or the body has no installation id. Nil for a new
    /// installation. Throws 132 when the token matches several and the body names no installation id.
    /// Clients pass no token: only the master key finds an installation by its token.
    private func installationToUpdate(installationId: String?, token: String?) async throws -> ParseObject? {
        if let installationId, let match = try await app.stores.objects.installations(with: .installationId, equalTo: installationId, limit: 1).first {
            return match
        }
        guard let token else { return nil }
        let holders = try await app.stores.objects.installations(with: .deviceToken, equalTo: token, limit: 2)
        if holders.count == 1, installationId == nil || holders[0]["installationId"] == nil { return holders[0] }
        if holders.count > 1, installationId == nil {
            throw ParseError(code: 132, message: "Must specify installationId when deviceToken matches multiple Installation objects")
        }
        return nil
    }

    /// Removes `token` from every installation but `keptBy`, so that a device's notifications go
    /// to the installation that registered its token last.
    private func releaseDeviceToken(_ token: String, keptBy keeper: String?) async throws {
        let release = ObjectChanges(fields: ["deviceToken": .operation(.delete)])
        // A token is held by one installation, or a few after a reinstall: one page of them is released.
        for holder in try await app.stores.objects.installations(with: .deviceToken, equalTo: token, limit: ParseQuery.defaultLimit) {
            guard let id = holder.objectId, id != keeper else { continue }
            do {
                _ = try await app.stores.objects.update(
                    InstallationRules.className, id: id, changes: release, updatedAt: app.clock.now, check: { _ in }, outbox: nil)
            } catch let error as ParseError where error.code == ParseError.objectNotFound().code {
                continue
            }
        }
    }
}
