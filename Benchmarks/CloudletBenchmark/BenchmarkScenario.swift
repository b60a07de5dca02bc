import Cloudlet
import LoadSupport
import Logging

/// The three servers the benchmark compares.
enum BenchmarkScenario: CaseIterable {
    /// A bare Hummingbird + GRDB route: the floor.
    case bare
    /// Cloudlet with no hooks.
    case cloudlet
    /// Cloudlet with a `beforeSave` and an `afterSave` on the saved class.
    case cloudletWithHooks

    /// The name in the report.
    var title: String {
        switch self {
        case .bare: "bare baseline"
        case .cloudlet: "cloudlet, no hooks"
        case .cloudletWithHooks: "cloudlet, beforeSave+afterSave"
        }
    }

    /// Starts this scenario's server on fresh data.
    func start(logger: Logger) async throws -> RunningServer {
        switch self {
        case .bare:
            try await RunningServer.start { directory, onRunning in
                try BareBaseline.application(dataDirectory: directory, logger: logger, onServerRunning: onRunning)
            }
        case .cloudlet:
            try await RunningServer.start { directory, onRunning in
                try CloudletBenchServer.application(
                    registry: HookRegistry(), dataDirectory: directory, logger: logger, onServerRunning: onRunning)
            }
        case .cloudletWithHooks:
            try await RunningServer.start { directory, onRunning in
                try CloudletBenchServer.application(
                    registry: CloudletBenchServer.hooks, dataDirectory: directory, logger: logger,
                    onServerRunning: onRunning)
            }
        }
    }
}
