import CloudletRuntime

/// A provider that holds connections: whoever makes one calls ``shutdown()`` once it is no longer
/// used (the supervisor does when the app's push settings change, the app is removed or the
/// server stops).
public protocol PushConnectionOwner: AnyObject, Sendable {
    /// Closes the provider's connections; sends still in flight fail.
    func shutdown() async
}

extension PushProviders {
    /// Closes the connections of every provider of the app.
    public func shutdown() async {
        let owners = (Array(byDeviceType.values) + [fallback].compactMap { $0 }).compactMap { $0 as? any PushConnectionOwner }
        var closed: Set<ObjectIdentifier> = []
        for owner in owners where closed.insert(ObjectIdentifier(owner)).inserted {
            await owner.shutdown()
        }
    }
}
