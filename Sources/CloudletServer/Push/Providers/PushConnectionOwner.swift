import CloudletRuntime
import ServiceLifecycle

/// A provider that holds connections, closed by ``shutdown()`` once it is no longer used. An app's
/// ``PushProviders`` run as a service that does so when it ends (see ``PushProviders/run()``).
public protocol PushConnectionOwner: AnyObject, Sendable {
    /// Closes the provider's connections; sends still in flight fail.
    func shutdown() async
}

extension PushProviders: Service {
    /// Holds the providers' connections until graceful shutdown or cancellation of the calling
    /// task, then closes them: the app's supervisor runs it for as long as the app sends through
    /// these providers (until its push settings change, the app is removed or the server stops).
    public func run() async {
        try? await gracefulShutdown()
        await shutdown()
    }

    /// Closes the connections of every provider of the app.
    public func shutdown() async {
        let owners = (Array(byDeviceType.values) + [fallback].compactMap { $0 }).compactMap { $0 as? any PushConnectionOwner }
        var closed: Set<ObjectIdentifier> = []
        for owner in owners where closed.insert(ObjectIdentifier(owner)).inserted {
            await owner.shutdown()
        }
    }
}

extension PushProviders: CustomStringConvertible {
    /// The device types served, as a service group logs its services: never a key.
    public var description: String {
        "PushProviders(\(byDeviceType.keys.sorted().joined(separator: ", "))\(fallback == nil ? "" : ", fallback"))"
    }
}
