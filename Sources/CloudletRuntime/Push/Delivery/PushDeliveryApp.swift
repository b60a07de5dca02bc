/// One app as the delivery service serves it: its storage (objects and deliveries) and the
/// providers its notifications go through.
public struct PushDeliveryApp: Sendable {
    /// The app id.
    public var id: String
    /// The app's storage.
    public var storage: any ObjectStorage & PushDeliveryStorage
    /// Where the app's notifications go, by device type.
    public var providers: PushProviders

    public init(id: String, storage: any ObjectStorage & PushDeliveryStorage, providers: PushProviders) {
        self.id = id
        self.storage = storage
        self.providers = providers
    }
}

/// The apps the delivery service serves, as they are now: apps come and go while it runs, and an
/// app's storage or providers may be replaced.
public struct PushDeliveryApps: Sendable {
    /// The ids of the apps served now.
    public let ids: @Sendable () -> [String]
    /// The app `id` as it is now, or nil once it is no longer served.
    public let app: @Sendable (String) -> PushDeliveryApp?
    /// Signalled when apps come, go or change; nil if they never do.
    public let changes: WakeSignal?

    public init(
        ids: @escaping @Sendable () -> [String], app: @escaping @Sendable (String) -> PushDeliveryApp?, changes: WakeSignal? = nil
    ) {
        self.ids = ids
        self.app = app
        self.changes = changes
    }

    /// Always `apps`.
    public static func fixed(_ apps: [PushDeliveryApp]) -> PushDeliveryApps {
        let byId = Dictionary(apps.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        return PushDeliveryApps(ids: { apps.map(\.id) }, app: { byId[$0] })
    }
}
