import Foundation

/// How one app's worker pool runs. Every member has a documented default; `serve` fills some from flags.
public struct WorkerPoolConfiguration: Sendable {
    /// The default ``longCallCores``: a quarter of a core per app. With it, a 2-core host saving
    /// back to back kept 0.80–1.04 of its throughput while another app's hooks spun (0.69–0.77
    /// with the idle group alone; the tenants benchmark).
    public static let defaultLongCallCores = 0.25

    /// The app whose hooks the workers run.
    public var appId: String
    /// The executable a worker runs: the app's own (built with `CloudletCommand`), or `cloudlet`.
    public var executablePath: String
    /// Arguments before `worker`. Default none.
    public var arguments: [String]
    /// How many workers run at once. Default: the number of cores.
    public var workerCount: Int
    /// Largest data segment of one worker, in MiB; 0 for no limit. Default
    /// ``defaultMemoryLimitMegabytes``.
    public var memoryLimitMegabytes: Int
    /// The memory limit of a worker unless an app says otherwise: 256 MiB. A hook that takes memory
    /// until its limit makes the kernel zero and free every page of it each time its worker dies;
    /// at 512 MiB that cost another app's p99 2.4–3× (the tenants benchmark), at 256 MiB 1.3–1.6×.
    public static let defaultMemoryLimitMegabytes = 256
    /// Most invocations one worker runs at once. Default 16.
    public var maximumInFlightPerWorker: Int
    /// Most invocations waiting for a free worker; past it calls fail with 503. Default 256.
    public var maximumQueuedInvocations: Int
    /// How long past its deadline a worker may still answer before it is killed. Default 250 ms.
    public var killGrace: Duration
    /// How long a worker may take to connect and say hello. Default 10 s.
    public var startupTimeout: Duration
    /// How long a worker that is being stopped (its pool stops, or a reload replaced it) has to end
    /// after SIGTERM before it is sent SIGKILL. Default ``defaultStopGrace``.
    public var stopGrace: Duration
    /// The default ``stopGrace``: 2 s. A worker ends at once when its host hangs up or sends it
    /// SIGTERM; only one whose hooks keep it from ending waits this long.
    public static let defaultStopGrace = Duration.seconds(2)
    /// How long one call may run before its worker yields the CPU to the host (see
    /// ``WorkerCPUShare``). Default 25 ms: a hook waiting on I/O takes no CPU, so only hooks that compute feel it.
    public var demotionDelay: Duration
    /// The most CPU, in cores, the app's workers take together while their calls run past
    /// ``demotionDelay``, where the host may use cgroups (see ``WorkerCPUShare``); 0 for no cap.
    /// Default ``defaultLongCallCores``.
    public var longCallCores: Double
    /// How often an idle worker is health-checked, and how long it may take to answer. Default 5 s each.
    public var healthCheckInterval: Duration
    /// How long a health check may go unanswered before the worker is killed. Default 5 s.
    public var healthCheckTimeout: Duration
    /// Crashes in a row of one hook that open its circuit. Default 3.
    public var crashesToOpenCircuit: Int
    /// How long an open circuit refuses calls before a probe. Default 10 s.
    public var circuitOpenDuration: Duration
    /// First delay between restarts of a crash-looping worker, doubling up to ``maximumRestartDelay``. Default 100 ms.
    public var restartDelay: Duration
    /// Longest delay between restarts. Default 5 s.
    public var maximumRestartDelay: Duration
    /// Restarts of the pool's workers, for whatever reason they ended, after a burst of
    /// ``restartBurst``: past them the next restart waits its turn. Default 4 a second.
    public var restartsPerSecond: Double
    /// Restarts the pool may make at once. Default 8.
    public var restartBurst: Int
    /// The workers' own folder: their working directory and `HOME`, created at launch; their
    /// `TMPDIR` is its `tmp` folder (see ``WorkerFolder``). Never the host's data folder. Default:
    /// `cloudlet-workers/<app>` in the temporary folder.
    public var workingFolder: String
    /// How workers are fenced in with Landlock; nil for not at all. Default nil.
    public var confinement: WorkerConfinement?
    /// How much of the workers' output reaches the hook log. Default: 200 lines and 64 KiB a second.
    var outputLimits = WorkerOutputRelay.Limits()

    public init(
        appId: String, executablePath: String, arguments: [String] = [],
        workerCount: Int = ProcessInfo.processInfo.activeProcessorCount, memoryLimitMegabytes: Int = Self.defaultMemoryLimitMegabytes,
        maximumInFlightPerWorker: Int = 16, maximumQueuedInvocations: Int = 256, killGrace: Duration = .milliseconds(250),
        startupTimeout: Duration = .seconds(10), healthCheckInterval: Duration = .seconds(5),
        healthCheckTimeout: Duration = .seconds(5), crashesToOpenCircuit: Int = 3, circuitOpenDuration: Duration = .seconds(10),
        restartDelay: Duration = .milliseconds(100), maximumRestartDelay: Duration = .seconds(5), restartsPerSecond: Double = 4,
        restartBurst: Int = 8, workingFolder: String? = nil,
        confinement: WorkerConfinement? = nil, demotionDelay: Duration = .milliseconds(25),
        longCallCores: Double = defaultLongCallCores, stopGrace: Duration = defaultStopGrace
    ) {
        self.stopGrace = stopGrace
        self.demotionDelay = demotionDelay
        self.longCallCores = longCallCores
        self.appId = appId
        self.executablePath = executablePath
        self.arguments = arguments
        self.workerCount = max(1, workerCount)
        self.memoryLimitMegabytes = memoryLimitMegabytes
        self.maximumInFlightPerWorker = max(1, maximumInFlightPerWorker)
        self.maximumQueuedInvocations = maximumQueuedInvocations
        self.killGrace = killGrace
        self.startupTimeout = startupTimeout
        self.healthCheckInterval = healthCheckInterval
        self.healthCheckTimeout = healthCheckTimeout
        self.crashesToOpenCircuit = crashesToOpenCircuit
        self.circuitOpenDuration = circuitOpenDuration
        self.restartDelay = restartDelay
        self.maximumRestartDelay = maximumRestartDelay
        self.restartsPerSecond = max(0.01, restartsPerSecond)
        self.restartBurst = max(1, restartBurst)
        // Absolute: the folder is named to the worker's launcher, which already runs inside it.
        self.workingFolder =
            workingFolder.map { URL(fileURLWithPath: $0).absoluteURL.standardizedFileURL.path }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-workers/\(appId)").path
        self.confinement = confinement
    }

    /// The whole environment a worker starts with: nothing of the host's but the language and the
    /// backtrace setting (no `CLOUDLET_*` variable, no key, no credential).
    var workerEnvironment: [String: String] {
        let host = ProcessInfo.processInfo.environment
        return [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": workingFolder, "TMPDIR": WorkerFolder.temporaryFolder(of: workingFolder),
            "LANG": host["LANG"] ?? "C.UTF-8",
            // A trap ends the worker at once instead of after seconds of backtracing, unless asked otherwise.
            "SWIFT_BACKTRACE": host["SWIFT_BACKTRACE"] ?? "enable=no",
        ]
    }

    /// The command line of a worker: confined, if so configured.
    var workerCommand: [String] {
        let command = [executablePath] + arguments + ["worker", "--memory-limit-mb", String(memoryLimitMegabytes)]
        return confinement?.command(command, workingFolder: workingFolder) ?? command
    }

    var lifecycleLimits: WorkerLifecycle.Limits {
        WorkerLifecycle.Limits(
            startupTimeout: startupTimeout, killGrace: killGrace, healthCheckInterval: healthCheckInterval,
            healthCheckTimeout: healthCheckTimeout, maximumInFlight: maximumInFlightPerWorker)
    }
}
