import ArgumentParser
import Cloudlet
import Configuration
import Synchronization

/// Reads settings of a ``SettingTable`` from, in this order, their flags (the arguments the command
/// did not declare itself), their environment variables (`CLOUDLET_<NAME>`) and the config file's
/// members: swift-configuration's providers, under one `ConfigReader`, decide which one answers.
/// A value that does not read is an error naming the setting as its source spells it
/// (`--workers`, `CLOUDLET_WORKERS`, `config file member workers`).
struct SettingsReader {
    private let reader: ConfigReader
    private let sources: SourceRecorder
    private let flags: CommandLineArgumentsProvider

    /// Reads `settings` from `arguments` (flags only), then `environment`, then `file`'s members.
    init(_ settings: SettingTable, arguments: [String], environment: [String: String] = [:], file: ServeConfigFile? = nil) {
        let flagNames = Dictionary(uniqueKeysWithValues: settings.entries.map { ($0.member, $0.flag) })
        // The provider skips the first argument, as it does a program's name.
        flags = CommandLineArgumentsProvider(arguments: ["settings"] + settings.lastOccurrences(arguments))
        var fileValues: [AbsoluteConfigKey: ConfigValue] = [:]
        for entry in settings.entries {
            guard let text = file?.text(of: entry.member) else { continue }
            fileValues[AbsoluteConfigKey([entry.member])] = ConfigValue(.stringArray([text]), isSecret: entry.isSecret)
        }
        sources = SourceRecorder()
        reader = ConfigReader(
            providers: [
                flags.mapKeys { key in AbsoluteConfigKey([flagNames[key.components.joined(separator: ".")] ?? key.description]) },
                EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: ConfigKey(["cloudlet"])),
                InMemoryProvider(name: SettingSource.fileProviderName, values: fileValues),
            ], accessReporter: sources)
    }

    /// The setting's text as its first source gives it (a list joined with commas), or nil.
    func text(_ setting: Setting) -> String? {
        reader.stringArray(forKey: ConfigKey([setting.member]), isSecret: setting.isSecret)?.joined(separator: ",")
    }

    /// The setting read by `parse`, or its default read so (nil if it has none); a usage error naming
    /// the setting's source when `parse` refuses the text.
    func optional<Value>(_ setting: Setting, _ parse: (String) -> Value?) throws -> Value? {
        guard let text = text(setting) else { return try setting.defaultValue.map { try self.parsed($0, setting, parse) } }
        return try parsed(text, setting, parse)
    }

    /// The setting read by `parse`, or its default (which it must have).
    func read<Value>(_ setting: Setting, _ parse: (String) -> Value?) throws -> Value {
        guard let value = try optional(setting, parse) else { preconditionFailure("\(setting.member) has no default") }
        return value
    }

    /// The setting read by `parse`, or `fallback`, which the machine decides.
    func read<Value>(_ setting: Setting, default fallback: Value, _ parse: (String) -> Value?) throws -> Value {
        try optional(setting, parse) ?? fallback
    }

    /// A whole number in the setting's range, or its default, or nil.
    func optionalInteger(_ setting: Setting) throws -> Int? {
        try optional(setting) { text in Int(text).flatMap { setting.kind.range?.contains($0) == false ? nil : $0 } }
    }

    /// A whole number in the setting's range, or its default (which it must have).
    func integer(_ setting: Setting) throws -> Int {
        guard let value = try optionalInteger(setting) else { preconditionFailure("\(setting.member) has no default") }
        return value
    }

    /// Whether the setting was given as a flag.
    func isFlag(_ setting: Setting) -> Bool {
        (try? flags.value(forKey: AbsoluteConfigKey([setting.flag]), type: .stringArray).value) != nil
    }

    /// A usage error: `<source> has an invalid value: <text> (<what it takes>)`.
    private func parsed<Value>(_ text: String, _ setting: Setting, _ parse: (String) -> Value?) throws -> Value {
        guard let value = parse(text) else {
            let source = sources.source(of: setting.member)?.name(of: setting) ?? "the default of --\(setting.flag)"
            throw ValidationError("\(source) has an invalid value: \(text) (\(setting.kind.expectation))")
        }
        return value
    }
}

/// Where a setting's value came from.
enum SettingSource {
    case flag, variable, file

    static let fileProviderName = "config file"

    /// The setting as this source spells it.
    func name(of setting: Setting) -> String {
        switch self {
        case .flag: "--\(setting.flag)"
        case .variable: setting.variable
        case .file: "config file member \(setting.member)"
        }
    }
}

/// Keeps, from swift-configuration's access events, which source answered each setting last.
private final class SourceRecorder: AccessReporter {
    private let answered = Mutex<[String: SettingSource]>([:])

    func report(_ event: AccessEvent) {
        guard let answer = event.providerResults.last(where: { (try? $0.result.get().value) != nil }) else { return }
        let source: SettingSource =
            answer.providerName.contains("CommandLineArguments") ? .flag : answer.providerName.contains("EnvironmentVariables") ? .variable : .file
        let member = event.metadata.key.components.last ?? ""
        answered.withLock { $0[member] = source }
    }

    func source(of member: String) -> SettingSource? {
        answered.withLock { $0[member] }
    }
}
