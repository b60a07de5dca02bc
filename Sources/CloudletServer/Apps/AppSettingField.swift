import Cloudlet
import Foundation

/// One app setting as a member of the settings document (the registry's, the admin API's, the config
/// file's `apps` entries): its name, its help, what the command line writes for it, and how it is read
/// into and written from ``AppSettings``. ``AppSettings/fields`` is the table of them; its flags,
/// help and documentation members come from it.
///
/// ```swift
/// .integer("workerMemoryMb", \.workerMemoryMegabytes, in: 0...65_536, help: "Memory limit of each worker in MiB, 0 for none.")
/// ```
public struct AppSettingField: Sendable {
    /// How a command line writes a value of the setting.
    public enum Kind: Sendable, Hashable {
        /// A whole number in a range.
        case integer(ClosedRange<Int>)
        /// One of a few words.
        case choice([String])
        /// `true` or `false`.
        case bool
        /// Text: a path, a quota.
        case text
        /// A JSON document.
        case json
    }

    /// The member in the settings document, in camelCase (`workerMemoryMb`).
    public let member: String
    /// Its flag in `cloudlet apps create|update` (and `serve`, for the settings it also sets), without
    /// the dashes: the member in dash case unless named otherwise (`worker-memory-mb`).
    public let flag: String
    /// What it sets, in one sentence (its default is ``defaultText``).
    public let help: String
    /// What the command line writes.
    public let kind: Kind
    let read: @Sendable (inout AppSettings, ParseValue) throws -> Void
    let write: @Sendable (AppSettings) -> ParseValue

    init(
        _ member: String, flag: String? = nil, kind: Kind, help: String, read: @escaping @Sendable (inout AppSettings, ParseValue) throws -> Void,
        write: @escaping @Sendable (AppSettings) -> ParseValue
    ) {
        self.member = member
        self.flag = flag ?? Self.dashCase(member)
        self.kind = kind
        self.help = help
        self.read = read
        self.write = write
    }

    /// The default of ``AppSettings/init()`` as a command line writes it (`256`, `self`), read off it
    /// rather than restated.
    public var defaultText: String {
        let value = write(AppSettings())
        // A document with a space after each member, so that help can wrap it.
        let document = JSONWriter.string(value).replacingOccurrences(of: ",\"", with: ", \"")
        return value.stringValue ?? value.intValue.map(String.init) ?? value.boolValue.map(String.init) ?? document
    }

    /// Sets the setting in `settings` to `value`, as the settings document writes it; throws 142
    /// naming the member when the value is out of bounds.
    public func apply(_ value: ParseValue, to settings: inout AppSettings) throws {
        try read(&settings, value)
    }

    /// `workerMemoryMb` → `worker-memory-mb`.
    public static func dashCase(_ member: String) -> String {
        member.reduce(into: "") { name, character in
            if character.isUppercase { name += "-" }
            name += character.lowercased()
        }
    }

    /// An integer setting in `range` (`"workers must be an integer from 1 to 64"` otherwise).
    static func integer(
        _ member: String, _ keyPath: any WritableKeyPath<AppSettings, Int> & Sendable, in range: ClosedRange<Int>, help: String
    ) -> AppSettingField {
        AppSettingField(
            member, kind: .integer(range), help: help,
            read: { settings, value in settings[keyPath: keyPath] = try integer(value, member, in: range) },
            write: { .number(Double($0[keyPath: keyPath])) })
    }

    /// A duration setting written as whole milliseconds in `range`.
    static func milliseconds(
        _ member: String, _ keyPath: any WritableKeyPath<AppSettings, Duration> & Sendable, in range: ClosedRange<Int>, help: String
    ) -> AppSettingField {
        AppSettingField(
            member, kind: .integer(range), help: help,
            read: { settings, value in settings[keyPath: keyPath] = .milliseconds(try integer(value, member, in: range)) },
            write: { .number(Double($0[keyPath: keyPath].wholeMilliseconds)) })
    }

    /// A `true`/`false` setting (the command line's text `true` or `false` too).
    static func bool(_ member: String, _ keyPath: any WritableKeyPath<AppSettings, Bool> & Sendable, help: String) -> AppSettingField {
        AppSettingField(
            member, kind: .bool, help: help,
            read: { settings, value in
                guard let flag = value.boolValue ?? value.stringValue.flatMap(Bool.init) else {
                    throw AppSettings.invalid("\(member) must be true or false")
                }
                settings[keyPath: keyPath] = flag
            },
            write: { .bool($0[keyPath: keyPath]) })
    }

    /// A setting that is one of the cases of `Value`.
    static func choice<Value: RawRepresentable & CaseIterable & Sendable>(
        _ member: String, _ keyPath: any WritableKeyPath<AppSettings, Value> & Sendable, help: String
    ) -> AppSettingField where Value.RawValue == String {
        let names = Value.allCases.map(\.rawValue)
        return AppSettingField(
            member, kind: .choice(names), help: help,
            read: { settings, value in
                guard let choice = value.stringValue.flatMap(Value.init(rawValue:)) else {
                    throw AppSettings.invalid("\(member) must be \(names.joined(separator: " or "))")
                }
                settings[keyPath: keyPath] = choice
            },
            write: { .string($0[keyPath: keyPath].rawValue) })
    }

    /// A list of up to ``maximumNames`` names (each 1 to 255 bytes, no spaces or commas), written as
    /// a JSON array of strings or, on a command line, as one comma-separated string (empty for none).
    static func names(_ member: String, _ keyPath: any WritableKeyPath<AppSettings, [String]> & Sendable, help: String) -> AppSettingField {
        AppSettingField(
            member, kind: .text, help: help,
            read: { settings, value in
                let names = value.stringValue.map { $0.split(separator: ",").map(String.init) } ?? value.arrayValue?.compactMap(\.stringValue)
                guard let names, names.count == (value.arrayValue?.count ?? names.count), names.count <= maximumNames,
                    names.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 255 && !$0.contains(where: { $0 == "," || $0.isWhitespace }) })
                else { throw AppSettings.invalid("\(member) must be a list of at most \(maximumNames) names, as a JSON array or separated by commas") }
                settings[keyPath: keyPath] = names
            },
            write: { .array($0[keyPath: keyPath].map(ParseValue.string)) })
    }

    /// The most names a list setting holds.
    public static let maximumNames = 32

    /// A JSON document setting, read and written by its own type.
    static func document(
        _ member: String, help: String, read: @escaping @Sendable (inout AppSettings, ParseValue) throws -> Void,
        write: @escaping @Sendable (AppSettings) -> ParseValue
    ) -> AppSettingField {
        AppSettingField(member, kind: .json, help: help, read: read, write: write)
    }

    private static func integer(_ value: ParseValue, _ member: String, in range: ClosedRange<Int>) throws -> Int {
        guard let number = value.intValue, range.contains(number) else {
            throw AppSettings.invalid("\(member) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
