import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation

extension AppsCommand {
    struct RotateKey: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "rotate-key",
                abstract: "Make a new client or master key and print it; the old one stays valid until retire-key.")
        }

        @Argument(help: "The app id.") var id: String
        @Argument(help: "client or master.") var kind: AppKeyKind
        @Flag(help: "Retire the old key at once (it stops being valid).") var retireOld = false
        @OptionGroup var options: DataOptions

        func run() async throws {
            try await reportingErrors {
                let registry = try await options.registry()
                let key = try await registry.rotateKey(of: id, kind)
                if retireOld { try await registry.retireKeys(of: id, kind) }
                print(key)
            }
        }
    }

    struct RetireKey: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "retire-key", abstract: "Stop accepting the app's old (retiring) client or master key.")
        }

        @Argument(help: "The app id.") var id: String
        @Argument(help: "client or master.") var kind: AppKeyKind
        @OptionGroup var options: DataOptions

        func run() async throws {
            try await reportingErrors {
                let retired = try await options.registry().retireKeys(of: id, kind)
                print("retired \(retired) \(kind.rawValue) key\(retired == 1 ? "" : "s") of app \"\(id)\"")
            }
        }
    }
}

/// The app settings `cloudlet apps create|update` take: one flag per entry of ``AppSettings/fields``
/// and ``AppSettings/shortcuts``, with their help; each, when given, replaces the setting.
enum AppSettingFlags {
    static let fields = AppSettings.fields + AppSettings.shortcuts
    static let table = SettingTable(entries: fields.map { Setting($0) }, readsEnvironment: false)

    /// The help of the flags, for the commands' discussion.
    static var help: String { "Settings (the admin API's members of the same name in camelCase):\n\n" + table.help }

    /// The one word among `arguments` that is no flag's value: the app id.
    static func appId(in arguments: [String]) -> String {
        table.separated(arguments).words.first ?? ""
    }

    /// Throws a usage error unless `arguments` are one app id and well-formed settings' flags.
    static func check(_ arguments: [String]) throws {
        let (words, flags) = table.separated(arguments)
        guard let first = words.first else { throw ValidationError("Missing expected argument '<id>'") }
        guard words.count == 1 else { throw ValidationError("Unexpected argument '\(words[1])' after the app id '\(first)'") }
        try table.check(flags)
    }

    /// `settings` with the flags among `arguments` applied, checked as the admin API checks them.
    static func applied(_ arguments: [String], to settings: AppSettings) throws -> AppSettings {
        let reader = SettingsReader(table, arguments: arguments)
        var members: [String: ParseValue] = [:], shortcuts: [(AppSettingField, ParseValue)] = []
        for (field, setting) in zip(fields, table.entries) where reader.text(setting) != nil {
            guard let value = try reader.optional(setting, { value($0, of: field) }) else { continue }
            if AppSettings.memberNames.contains(field.member) { members[field.member] = value } else { shortcuts.append((field, value)) }
        }
        var result = try settings.applying(members)
        for (field, value) in shortcuts { try field.apply(value, to: &result) }
        return result
    }

    /// `text` as the settings document writes the value of `field`, or nil if it writes none or one
    /// the field refuses; a hooks path is made absolute.
    static func value(_ text: String, of field: AppSettingField) -> ParseValue? {
        let value: ParseValue?
        switch field.kind {
        case .integer: value = Int(text).map { .number(Double($0)) }
        case .bool: value = text.isEmpty ? .bool(true) : Bool(text).map(ParseValue.bool)
        case .json: value = try? JSONParser.parse(text)
        case .choice, .text:
            let isPath = field.member == "hooks" && text != AppSettings.selfExecutable
            value = .string(isPath ? URL(fileURLWithPath: text).standardizedFileURL.path : text)
        }
        var trial = AppSettings()
        guard let value, (try? field.apply(value, to: &trial)) != nil else { return nil }
        return value
    }
}
