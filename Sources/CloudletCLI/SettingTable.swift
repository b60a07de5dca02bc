import ArgumentParser
import CloudletServer
import Foundation

/// One setting of a command: its config-file member (camelCase), its flag (the member in dash case
/// unless named otherwise), its environment variable (`CLOUDLET_` and the member in upper snake
/// case), its help and its default. Flags, variables, members and help all come from these.
struct Setting: Sendable {
    /// What the setting's value is written as.
    enum Kind: Sendable, Hashable {
        case integer(ClosedRange<Int>)
        case number
        case text
        case list
        case bool
        case json

        /// The range of an integer setting.
        var range: ClosedRange<Int>? {
            if case .integer(let range) = self { range } else { nil }
        }

        /// What a value must be, for error messages.
        var expectation: String {
            switch self {
            case .integer(let range) where range.upperBound == .max: "a whole number, \(range.lowerBound) or more"
            case .integer(let range): "a whole number from \(range.lowerBound) to \(range.upperBound)"
            case .number: "a number, 0 or more"
            case .text, .list: "see --help"
            case .bool: "true or false"
            case .json: "a JSON document"
            }
        }
    }

    let member: String
    let flag: String
    let kind: Kind
    let help: String
    /// The default as a value would give it, read like one; nil when it depends on the machine or
    /// the data folder (``defaultText`` says how).
    let defaultValue: String?
    let defaultText: String
    /// Whether its value is a key, never shown.
    let isSecret: Bool

    init(
        _ member: String, flag: String? = nil, _ kind: Kind, _ help: String, default value: String? = nil, defaultText: String? = nil,
        isSecret: Bool = false
    ) {
        self.member = member
        self.flag = flag ?? AppSettingField.dashCase(member)
        self.kind = kind
        self.help = help
        self.defaultValue = value
        self.defaultText = defaultText ?? value ?? "none"
        self.isSecret = isSecret
    }

    /// The app setting `field` (`workers`, `workerMemoryMb`), with its help and default from
    /// ``AppSettings/fields``, or the default the command uses instead (its value and how help says it).
    init(_ field: AppSettingField, member: String? = nil, default commandDefault: (value: String, text: String)? = nil) {
        let kind: Kind =
            switch field.kind {
            case .integer(let range): .integer(range)
            case .choice, .text: .text
            case .bool: .bool
            case .json: .json
            }
        self.init(
            member ?? field.member, flag: field.flag, kind, String(field.help.dropLast()), default: commandDefault?.value ?? field.defaultText,
            defaultText: commandDefault?.text)
    }

    /// `CLOUDLET_WORKER_MEMORY_MB`.
    var variable: String {
        "CLOUDLET_" + member.reduce(into: "") { name, character in
            if character.isUppercase { name += "_" }
            name += character == "." ? "_" : character.uppercased()
        }
    }
}

/// The settings a command reads through ``SettingsReader``: its help lines and the check of the
/// flags it was given.
struct SettingTable: Sendable {
    let entries: [Setting]
    /// Whether the settings are also read from `CLOUDLET_<NAME>` variables (and the help says so).
    let readsEnvironment: Bool

    /// Per setting, its flag, then what it sets, its variable and its default, indented and wrapped
    /// to 78 columns (which `--help` keeps as they are).
    var help: String {
        entries.map { setting in
            let variable = readsEnvironment ? " (\(setting.variable))" : ""
            let text = "\(setting.help)\(variable). Default \(setting.defaultText)."
            return "  --\(setting.flag) <\(setting.flag)>\n" + Self.wrap(text, indent: 8, width: 70)
        }.joined(separator: "\n")
    }

    /// `text` in lines of at most `width` characters where its words allow, each indented by `indent` spaces.
    private static func wrap(_ text: String, indent: Int, width: Int) -> String {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return (lines + [line]).map { String(repeating: " ", count: indent) + $0 }.joined(separator: "\n")
    }

    /// Throws a usage error for a flag that names no setting, a setting flag without its value, or
    /// a word that is no flag's value.
    func check(_ arguments: [String]) throws {
        var expecting: Setting?, valuesLeft = 0
        for argument in arguments {
            guard argument.hasPrefix("--") else {
                guard valuesLeft > 0 else { throw ValidationError("Unexpected argument '\(argument)'") }
                valuesLeft -= 1
                expecting = nil
                continue
            }
            if let expecting { throw ValidationError("Missing value for '--\(expecting.flag)'") }
            let name = argument.split(separator: "=", maxSplits: 1)[0].dropFirst(2)
            guard let setting = entries.first(where: { $0.flag == name }) else { throw ValidationError("Unknown option '--\(name)'") }
            let inline = argument.contains("=")
            valuesLeft = setting.kind == .list ? .max : inline ? 0 : 1
            expecting = inline || setting.kind == .bool ? nil : setting
        }
        if let expecting { throw ValidationError("Missing value for '--\(expecting.flag)'") }
    }

    /// The words of `arguments` that are no flag's value (a command's own arguments, such as an app
    /// id), apart from the flags and their values: the flags may come before, between or after them.
    /// A bool flag takes the next word as its value only when it is `true` or `false`.
    func separated(_ arguments: [String]) -> (words: [String], flags: [String]) {
        var words: [String] = [], flags: [String] = [], valuesLeft = 0, takesBool = false
        for argument in arguments {
            if argument.hasPrefix("--") {
                flags.append(argument)
                let name = argument.split(separator: "=", maxSplits: 1)[0].dropFirst(2)
                let kind = entries.first { $0.flag == name }?.kind
                takesBool = kind == .bool && !argument.contains("=")
                valuesLeft = argument.contains("=") || kind == .bool ? 0 : kind == .list ? .max : 1
            } else if valuesLeft > 0 || (takesBool && Bool(argument) != nil) {
                flags.append(argument)
                valuesLeft = max(valuesLeft - 1, 0)
                takesBool = false
            } else {
                words.append(argument)
                takesBool = false
            }
        }
        return (words, flags)
    }

    /// `arguments` (checked) with only the last of a repeated flag that takes one value, as
    /// ArgumentParser reads a repeated option; a list's flags all stay.
    func lastOccurrences(_ arguments: [String]) -> [String] {
        var given: [(flag: Substring, words: [String])] = []
        for argument in arguments {
            if argument.hasPrefix("--") {
                given.append((argument.split(separator: "=", maxSplits: 1)[0], [argument]))
            } else if !given.isEmpty {
                given[given.count - 1].words.append(argument)
            }
        }
        let lists = Set(entries.filter { $0.kind == .list }.map { "--\($0.flag)" })
        return given.indices.filter { index in
            lists.contains(String(given[index].flag)) || !given[(index + 1)...].contains { $0.flag == given[index].flag }
        }.flatMap { given[$0].words }
    }
}
