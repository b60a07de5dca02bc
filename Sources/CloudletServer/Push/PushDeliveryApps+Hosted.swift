import CloudletRuntime

extension PushDeliveryApp {
    /// The hosted app `app`.
    public init(_ app: HostedApp) {
        self.init(id: app.id, storage: app.runtime.storage, providers: app.pushProviders)
    }
}

extension PushDeliveryApps {
    /// The apps of `directory`.
    public static func hosted(by directory: AppDirectory) -> PushDeliveryApps {
        PushDeliveryApps(
            ids: { directory.all.map(\.id) }, app: { directory.app($0).map(PushDeliveryApp.init) }, changes: directory.changes)
    }
}
