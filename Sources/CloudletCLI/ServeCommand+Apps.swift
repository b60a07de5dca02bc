import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation

/// Another app `serve` hosts, named on the command line as `--app id=path/to/executable`: its hooks
/// run in worker processes started from that executable (built with `CloudletCommand`).
struct HostedExecutable: ExpressibleByArgument {
    let appId: String
    let executablePath: String

    init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        appId = parts[0]
        executablePath = URL(fileURLWithPath: parts[1]).standardizedFileURL.path
    }
}

/// What `serve` tells the registry at start: the default app (this binary's hooks, with the app
/// settings `serve` takes), each `--app` (with the worker ones), and each app of the config file.
struct StartingApps {
    /// The apps made sure to exist, in the order they were first named; `masterKey` is set for those
    /// whose master key was made or given now (it is printed once).
    private(set) var ensured: [AppRegistry.EnsuredApp] = []

    init(
        registry: AppRegistry, defaultApp: String, clientKey: String?, masterKey: String?, serve: [ServeSettings.AppValue],
        otherApps: [HostedExecutable], file: ServeConfigFile?
    ) async throws {
        func stored(_ id: String) async throws -> AppSettings { try await registry.app(id)?.settings ?? AppSettings() }
        var main = try await stored(defaultApp)
        main.hooksExecutable = AppSettings.selfExecutable
        for given in serve { try given.field.apply(given.value, to: &main) }
        add(try await registry.ensure(defaultApp, settings: main, clientKey: clientKey, masterKey: masterKey))
        for other in otherApps {
            var settings = try await stored(other.appId)
            settings.hooksExecutable = other.executablePath
            settings.isolation = .process
            for given in serve where given.setsOtherApps { try given.field.apply(given.value, to: &settings) }
            add(try await registry.ensure(other.appId, settings: settings))
        }
        for app in file?.apps ?? [] {
            let settings = try await stored(app.id).applying(app.settings)
            add(try await registry.ensure(app.id, settings: settings, clientKey: app.clientKey, masterKey: app.masterKey))
        }
    }

    /// Adds `app`, or, when it was named before (the default app may also be in the file), updates
    /// it, keeping a master key made earlier in this start.
    private mutating func add(_ app: AppRegistry.EnsuredApp) {
        guard let index = ensured.firstIndex(where: { $0.record.id == app.record.id }) else { return ensured.append(app) }
        let earlierKey = ensured[index].masterKey
        ensured[index] = app
        ensured[index].masterKey = app.masterKey ?? earlierKey
    }

    /// The banner's lines about the apps other than the default one.
    var alsoServing: String {
        ensured.dropFirst().map {
            "  also serving app \"\($0.record.id)\": client key \($0.clientKey), master key \($0.masterKey ?? "kept hashed")\n"
        }.joined()
    }
}
