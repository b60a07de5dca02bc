import Cloudlet
import CloudletIsolation
import CloudletRuntime
import Foundation
import Logging
import Synchronization

extension AppSupervisor {
    /// Brings the served apps in line with the registry. With `strict`, the first failure is thrown
    /// (at start, where the server then exits); otherwise each failure is logged, the app keeps
    /// its previous version, and the failures are answered by app id. A new app the descriptors
    /// left cannot hold, or whose hooks executable is gone, is not started, strict or not: the
    /// reason is logged and answered, its requests are refused as from an app not running
    /// (``AppDirectory/isNotRunning(_:)``), and the server goes on with the others.
    func applyRegistry(strict: Bool) async throws -> [String: any Error] {
        var refused: [String: any Error] = [:]
        let records = try await registry.list()
        let current = entries.withLock { $0 }
        for record in records where current[record.id]?.record != record {
            do {
                if let entry = current[record.id] {
                    try await update(entry, to: record)
                } else if let problem = descriptorShortage(record) ?? missingExecutable(record) {
                    refused[record.id] = problem
                    logger.error("app not started", metadata: ["app": "\(record.id)", "reason": "\(problem.message)"])
                } else {
                    try await add(record, whileServing: !strict)
                }
            } catch {
                if strict { throw error }
                refused[record.id] = error
                logger.error(
                    "registry change refused; the app keeps its previous version",
                    metadata: ["app": "\(record.id)", "reason": "\((error as? ParseError)?.message ?? "\(error)")"])
            }
        }
        let kept = Set(records.map(\.id))
        directory.setNotRunning(entries.withLock { served in kept.filter { served[$0] == nil } })
        for id in current.keys where !kept.contains(id) {
            directory.remove(id)
            let removed = entries.withLock { $0.removeValue(forKey: id) }
            stop(removed?.pool)
            stop(removed?.checkpoints)
            stop(removed?.push, after: Self.pushProviderDrainTime)
            logger.notice("app deleted from the registry; no longer served", metadata: ["app": "\(id)"])
        }
        return refused
    }

    /// Starts serving `record`: its database, its executor (and pool), its runtime. An app added
    /// `whileServing` has its manifest logged. (The work an earlier run left queued, after hooks
    /// included, is claimed by the app's work loop once it is served.)
    private func add(_ record: AppRecord, whileServing: Bool) async throws {
        let (executor, pool) = try await self.executor(for: record)
        try await install(record, executor: executor, pool: pool)
        guard whileServing else { return }
        let manifest = AppManifest(appId: record.id, settings: record.settings, hooks: executor.hooks)
        logger.notice("app added from the registry\n\(manifest.text)", metadata: ["app": "\(record.id)"])
    }

    /// Serves `record` with `executor`, once its hooks are checked against the app's cap; `pool`
    /// then runs under this service, and is stopped if the app is refused.
    @discardableResult
    func install(_ record: AppRecord, executor: any HookExecutor, pool: WorkerPool?) async throws -> HostedApp {
        let group = pool.map(start)
        let manifest = AppManifest(appId: record.id, settings: record.settings, hooks: executor.hooks)
        let storage: AppStorage
        let pushProviders: PushProviders
        let email: EmailPolicy
        do {
            try manifest.checkTimeLimits()
            storage = try await openStorage(record)
            pushProviders = try PushProviders(settings: record.settings.push, appId: record.id, clock: clock, logger: logger)
            email = try emailPolicy(record)
        } catch {
            stop(group)
            throw error
        }
        let push = start(pushProviders)
        let checkpoints = storage.upkeep.map(start)
        let hosted = HostedApp(
            id: record.id, keys: record.acceptedKeys, fileSettings: record.settings.files,
            runtime: runtime(record, stores: storage.stores, files: storage.files, executor: executor),
            rateLimiter: rateLimiter(record.settings.rateLimits, sharedState: storage.sharedRateLimits), pushProviders: pushProviders,
            jobSchedules: record.settings.jobSchedules)
        hosted.runtime.context.emailPolicy = email
        hosted.runtime.context.stores.liveChanges.classNames = Set(record.settings.liveQuery.classNames)
        entries.withLock {
            $0[record.id] = Entry(
                record: record, hosted: hosted, manifest: manifest, pool: group, push: push, checkpoints: checkpoints,
                sharedRateLimits: storage.sharedRateLimits)
        }
        directory.set(hosted)
        return hosted
    }

    /// Swaps in what changed: keys, limits and, when its executable or worker settings changed, a new pool.
    private func update(_ entry: Entry, to record: AppRecord) async throws {
        let needsExecutor = entry.record.settings.needsNewExecutor(for: record.settings) && definitions[record.id] == nil
        var runtime = entry.hosted.runtime
        var group = entry.pool
        if needsExecutor {
            // The old pool runs on until its calls could have ended, beside the new one.
            if let shortage = descriptorShortage(record) { throw shortage }
            let (executor, pool) = try await self.executor(for: record)
            group = pool.map(start)
            runtime = self.runtime(record, stores: runtime.context.stores, files: runtime.context.fileStorage, executor: executor)
        }
        let manifest = AppManifest(appId: record.id, settings: record.settings, hooks: runtime.context.executor.hooks)
        let pushChanged = entry.record.settings.push != record.settings.push
        var pushProviders = entry.hosted.pushProviders
        var push = entry.push
        let email: EmailPolicy
        do {
            try manifest.checkTimeLimits()
            email = try emailPolicy(record)
            if pushChanged {
                pushProviders = try PushProviders(settings: record.settings.push, appId: record.id, clock: clock, logger: logger)
            }
        } catch {
            if needsExecutor { stop(group) }
            throw error
        }
        if pushChanged { push = start(pushProviders) }
        let policy = record.settings.rateLimits
        let rateLimiter =
            entry.record.settings.rateLimits == policy
            ? entry.hosted.rateLimiter : self.rateLimiter(policy, sharedState: entry.sharedRateLimits)
        runtime.context.bulkhead.resize(maximumRunning: policy.maximumConcurrentHooks, maximumWaiting: policy.maximumQueuedHooks)
        runtime.context.sessionLifetime = .seconds(record.settings.sessionLength)
        runtime.context.emailPolicy = email
        runtime.context.authProviders = record.settings.authProviders
        runtime.context.allowsClientClassCreation = record.settings.allowClientClassCreation
        runtime.context.stores.liveChanges.classNames = Set(record.settings.liveQuery.classNames)
        let hosted = HostedApp(
            id: record.id, keys: record.acceptedKeys, fileSettings: record.settings.files, runtime: runtime, rateLimiter: rateLimiter,
            pushProviders: pushProviders, jobSchedules: record.settings.jobSchedules)
        entries.withLock {
            $0[record.id] = Entry(
                record: record, hosted: hosted, manifest: manifest, pool: group, push: push, checkpoints: entry.checkpoints,
                sharedRateLimits: entry.sharedRateLimits)
        }
        directory.set(hosted)
        // Sends already made through the old providers keep their connections until they could have ended.
        if pushChanged { stop(entry.push, after: Self.pushProviderDrainTime) }
        if needsExecutor {
            // Calls already on the old pool end within their hooks' time limits; then it stops.
            let longest = entry.manifest.hooks.map(\.timeLimit).max() ?? .zero
            stop(entry.pool, after: longest + .seconds(1))
        }
        if entry.record.settings != record.settings {
            logger.notice("app changed in the registry\n\(manifest.text)", metadata: ["app": "\(record.id)"])
        }
    }

    /// How `record`'s app handles emails, its links under the server's public URL.
    private func emailPolicy(_ record: AppRecord) throws -> EmailPolicy {
        let links = EmailLinks(origin: serverOrigin, mountPath: configuration.normalizedMountPath, appId: record.id)
        return try record.settings.email.policy(appId: record.id, links: links, logger: logger)
    }

    /// The most descriptors app `id` with `settings` may hold.
    private func descriptorCost(_ settings: AppSettings, of id: String) -> Int {
        AppDescriptors.cost(of: settings, ownExecutor: definitions[id] != nil)
    }

    /// Why `record` cannot start beside the apps started, for want of descriptors; nil if it can.
    private func descriptorShortage(_ record: AppRecord) -> ParseError? {
        let started = entries.withLock { $0.values.reduce(0) { $0 + descriptorCost($1.record.settings, of: $1.record.id) } }
        return descriptors.shortage(record.id, cost: descriptorCost(record.settings, of: record.id), started: started)
    }

    /// Why `record`'s hooks executable cannot be run (it was removed or changed after the app was
    /// registered); nil if it can, or if the app runs no executable of its own.
    private func missingExecutable(_ record: AppRecord) -> ParseError? {
        let path = record.settings.hooksExecutable
        guard definitions[record.id] == nil, record.settings.isolation == .process, path != AppSettings.selfExecutable,
            let problem = AppSettings.executableProblem(path)
        else { return nil }
        return AppSettings.invalid("app \(record.id): hooks: \(problem)")
    }

    private func executor(for record: AppRecord) async throws -> (executor: any HookExecutor, pool: WorkerPool?) {
        if let definition = definitions[record.id] { return (definition.executor, nil) }
        return try await launcher.executor(for: record.id, record.settings, dataDirectory: configuration.dataDirectory, metrics: metrics)
    }

    private func runtime(
        _ record: AppRecord, stores: AppStores, files: (any FileStorage)?, executor: any HookExecutor
    ) -> AppRuntime {
        let policy = record.settings.rateLimits
        metrics.register(app: record.id)
        return AppRuntime(
            appId: record.id, stores: stores, files: files, executor: executor, clock: clock,
            limits: AppRuntime.Limits(
                sessionLifetime: .seconds(record.settings.sessionLength), passwordHasher: PasswordHasher(cost: configuration.passwordHashCost),
                maximumConcurrentHooks: policy.maximumConcurrentHooks, maximumQueuedHooks: policy.maximumQueuedHooks,
                maximumResponseBytes: configuration.maximumResponseBytes, freeDiskFloor: configuration.freeDiskFloor,
                authProviders: record.settings.authProviders,
                allowsClientClassCreation: record.settings.allowClientClassCreation),
            protectedFields: definitions[record.id]?.protectedFields ?? .standard, logger: logger,
            hookLogger: launcher.hookLogger,
            hookRuns: HookRunLog(
                appId: record.id, storage: stores.hookRuns, retention: configuration.hookRunRetention, metrics: metrics,
                buffered: directory.hookRunBuffered),
            metrics: metrics, identityTokens: identityTokens)
    }
}
