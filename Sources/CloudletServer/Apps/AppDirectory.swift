import CloudletRuntime
import Synchronization

/// The apps a server hosts, by id: read on every request (one lock, one dictionary lookup) and
/// changed while the server runs as the registry changes.
public final class AppDirectory: Sendable {
    private let apps: Mutex<[String: HostedApp]>
    private let notRunning = Mutex<Set<String>>([])
    /// Signalled whenever an app is hosted, replaced or removed.
    public let changes = WakeSignal()
    /// Signalled when an app's hook log buffers a run to write (``HookRunWriter`` sleeps on it).
    public let hookRunBuffered = WakeSignal()

    /// A directory of `apps`.
    public init(_ apps: [HostedApp] = []) {
        self.apps = Mutex(Dictionary(apps.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last }))
    }

    /// The app `id`, or nil.
    public func app(_ id: String) -> HostedApp? { apps.withLock { $0[id] } }

    /// Whether app `id` is in the registry but could not be started (the server's log says why).
    public func isNotRunning(_ id: String) -> Bool { notRunning.withLock { $0.contains(id) } }

    /// Records which apps of the registry could not be started.
    func setNotRunning(_ ids: Set<String>) { notRunning.withLock { $0 = ids } }

    /// Every hosted app.
    public var all: [HostedApp] { apps.withLock { Array($0.values) } }

    /// Hosts `app`, in place of the app with its id if there is one.
    func set(_ app: HostedApp) {
        apps.withLock { $0[app.id] = app }
        changes.signal()
    }

    /// Stops hosting app `id`: from now on its requests are refused as from an unknown app.
    func remove(_ id: String) {
        apps.withLock { _ = $0.removeValue(forKey: id) }
        changes.signal()
    }
}
