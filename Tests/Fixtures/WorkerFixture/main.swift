import Cloudlet
import CloudletWorker

/// An app whose executable is a worker only: it links the SDK and `CloudletWorker`, no server.
enum WorkerFixtureHooks: HookModule {
    static func register(_ hooks: inout HookRegistry) {
        hooks.function("hello") { request in
            .string("Hello from a worker, \(request.params["name"]?.stringValue ?? "world")!")
        }
        hooks.job("tidy", timeLimit: .seconds(30)) { request in
            request.logger.info("tidied")
        }
    }
}

await CloudletWorker.run(WorkerFixtureHooks.self)
