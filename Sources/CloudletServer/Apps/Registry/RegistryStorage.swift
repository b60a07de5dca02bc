import Cloudlet
import CloudletRuntime

/// Where an ``AppRegistry`` keeps its apps, their keys and the operator key: `host.sqlite` in the
/// data folder (``SQLiteRegistryStorage``), or the `cloudlet` schema of the PostgreSQL database
/// that several nodes share (``PostgresRegistryStorage``). Each method is one transaction; the
/// registry checks ids and makes keys, the storage keeps them.
protocol RegistryStorage: Sendable {
    /// The app `id` (nil: every app, by id).
    func records(_ id: String?) async throws -> [AppRecord]

    /// Stores a new app with its first keys (`keys`: values as kept). Throws 137 if an app of the
    /// same id, whatever its case, exists; 142 if the registry holds ``AppRegistry/maximumApps`` already.
    func insert(_ id: String, settings: AppSettings, keys: [(AppKeyKind, String)], at now: String) async throws -> AppRecord

    /// Applies `change` to the settings of app `id` and answers the app as changed; 101 if there is none.
    func update(_ id: String, _ change: @Sendable (inout AppSettings) throws -> Void) async throws -> AppRecord

    /// Deletes app `id` and its keys; 101 if there is none.
    func delete(_ id: String) async throws

    /// Changes the `kind` keys of app `id` as `change` says, in one transaction; 101 if there is no such app.
    func changeKeys(of id: String, _ kind: AppKeyKind, _ change: KeyChange, at now: String) async throws -> Int

    /// The host setting `name` (the operator key's hash), if set.
    func hostSetting(_ name: String) async throws -> String?

    /// Sets the host setting `name` to `value`; unless `replacing`, only if it has none. Answers
    /// whether it was set.
    @discardableResult
    func setHostSetting(_ name: String, _ value: String, replacing: Bool) async throws -> Bool

    /// A number that changes whenever the registry was changed by another process or node (polled
    /// every ``AppSupervisor/pollInterval``), and a signal that such a change wakes, where the
    /// storage can tell at once (nil: polling alone).
    func changeVersion() async throws -> Int

    /// The signal another node's change wakes, if the storage has one.
    func changeSignal() async -> WakeSignal?
}

/// A change of one kind of an app's keys.
enum KeyChange: Sendable {
    /// The active key becomes retiring, a key already retiring goes, and `value` is the new active one.
    case rotate(to: String)
    /// The retiring keys go.
    case retire
    /// Every key of the kind goes, and `value` is the one active key.
    case replace(with: String)
}
