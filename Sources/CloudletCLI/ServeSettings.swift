import ArgumentParser
import Cloudlet
import Foundation

/// Where `serve` reads a setting: its flag, else the environment variable `CLOUDLET_<NAME>`, else
/// the config file's member, else the default.
struct ServeSettings {
    let environment: [String: String]
    let file: ServeConfigFile?

    init(_ environment: [String: String], file: ServeConfigFile?) {
        self.environment = environment
        self.file = file
    }

    /// The setting whose config-file member is `member` (camelCase; its variable is `CLOUDLET_` and
    /// the member in upper snake case), read from text by `parse`.
    func value<Value>(_ flag: Value?, _ member: String, default fallback: Value, parse: (String) -> Value?) throws -> Value {
        if let flag { return flag }
        let variable = Self.variableName(member)
        if let text = environment[variable] {
            guard let value = parse(text) else { throw ValidationError("\(variable) has an invalid value: \(text)") }
            return value
        }
        if let text = file?.text(of: member) {
            guard let value = parse(text) else { throw ValidationError("config file member \(member) has an invalid value: \(text)") }
            return value
        }
        return fallback
    }

    /// The text setting `member`, or nil.
    func optional(_ flag: String?, _ member: String) -> String? {
        flag ?? environment[Self.variableName(member)] ?? file?.text(of: member)
    }

    /// `mountPath` → `CLOUDLET_MOUNT_PATH`.
    static func variableName(_ member: String) -> String {
        "CLOUDLET_" + member.reduce(into: "") { name, character in
            if character.isUppercase { name += "_" }
            name += character.uppercased()
        }
    }
}
