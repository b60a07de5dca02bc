import ArgumentParser
import Cloudlet
import CloudletCLI
import Foundation
import Testing

/// The README and the reference pages say nothing the code does not do: every `cloudlet` command
/// they show parses with the real command line, their links lead somewhere, the README's test is
/// the test that runs, and the package recipe names products that exist.
@Suite struct DocumentationCommandTests {
    /// The command line of an app, whatever its hooks (parsing does not run them).
    enum NoHooks: HookModule {
        static func register(_ hooks: inout HookRegistry) {}
    }

    typealias Commands = CloudletCommand<NoHooks>

    /// The executables the pages show that are built with `CloudletCommand`.
    static let appExecutables: Set<String> = ["cloudlet", "shop", "watercooler", "contentalerts"]

    /// The arguments after the executable, if `words` run one built with `CloudletCommand`:
    /// `cloudlet …`, `swift run cloudlet …`, `.build/release/cloudlet …`.
    static func cloudletArguments(_ words: [String]) -> [String]? {
        var words = words[...]
        if words.starts(with: ["swift", "run"]) {
            words = words.dropFirst(2)
            if words.first == "-c" { words = words.dropFirst(2) }
        }
        guard let executable = words.first, appExecutables.contains(executable.split(separator: "/").last.map(String.init) ?? "") else {
            return nil
        }
        return Array(words.dropFirst())
    }

    /// Why `arguments` do not parse as a command of `Commands`, or nil when they do.
    static func parseFailure(_ arguments: [String]) -> String? {
        do {
            _ = try Commands.parseAsRoot(arguments)
            return nil
        } catch {
            // `--help` is a command that parses: it asks for help, and exits with success.
            return Commands.exitCode(for: error) == .success ? nil : Commands.fullMessage(for: error)
        }
    }

    /// Whether `arguments` (such as `jobs run`) are the names of a command and its subcommands.
    static func namesACommand(_ arguments: [String]) -> Bool {
        var command: any ParsableCommand.Type = Commands.self
        for name in arguments {
            guard let subcommand = command.configuration.subcommands.first(where: { $0._commandName == name }) else { return false }
            command = subcommand
        }
        return true
    }

    @Test func everyCommandInTheShellBlocksParses() throws {
        let commands = try DocumentationBlocks.shellCommands().compactMap { command in
            Self.cloudletArguments(command.words).map { (command.page, $0) }
        }
        #expect(commands.count >= 25, "the pages show \(commands.count) cloudlet commands")
        for (page, arguments) in commands {
            #expect(Self.parseFailure(arguments) == nil, "\(page): cloudlet \(arguments.joined(separator: " "))")
        }
    }

    /// An inline mention such as `cloudlet files prune <app> --dry-run` parses once its placeholders
    /// are filled in (`<app>` → a word, `client|master` → `client`); one that names only a command,
    /// such as `cloudlet jobs run`, names one that exists.
    @Test func everyCommandMentionedInTheProseParses() throws {
        let mentions = try DocumentationBlocks.inlineCommands(startingWith: ["cloudlet ", "swift run "])
        var checked = 0
        for mention in mentions {
            guard var arguments = Self.cloudletArguments(mention.words) else { continue }
            arguments = arguments.map { word in
                word.replacing(/<[^>]*>/, with: "x").split(separator: "|", maxSplits: 1).first.map(String.init) ?? word
            }
            let text = "\(mention.page): \(mention.words.joined(separator: " "))"
            checked += 1
            if arguments.contains(where: { $0.hasPrefix("-") }) {
                #expect(Self.parseFailure(arguments) == nil, "\(text)")
            } else {
                #expect(Self.parseFailure(arguments) == nil || Self.namesACommand(arguments), "\(text)")
            }
        }
        #expect(checked >= 20, "the prose mentions \(checked) cloudlet commands")
    }

    /// Every command under `command` (itself included), hidden ones too.
    static func allCommands(under command: any ParsableCommand.Type = Commands.self) -> [any ParsableCommand.Type] {
        [command] + command.configuration.subcommands.flatMap { allCommands(under: $0) }
    }

    /// docs/configuration.md names every flag of every command and every `CLOUDLET_` variable their
    /// help mentions, as the commands' own help lists them.
    @Test func theConfigurationPageNamesEveryFlagAndVariable() throws {
        let page = try DocumentationBlocks.text("docs/configuration.md")
        var flags: Set<String> = []
        for command in Self.allCommands() {
            let help = Commands.helpMessage(for: command, includeHidden: true, columns: 10_000)
            let words = help.split { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }.map(String.init)
            let named = words.filter { $0.contains(/^--[a-z]/) || $0.hasPrefix("CLOUDLET_") }
            for name in named where name != "--help" && name != "--version" {
                flags.insert(name)
                #expect(Self.names(page, name), "docs/configuration.md does not name \(name) (of `\(command._commandName)`)")
            }
        }
        #expect(flags.count >= 60, "\(flags.count) flags and variables")
    }

    /// Whether `text` holds `name` as a whole word (`--data` is not named by `--data-folder`).
    static func names(_ text: String, _ name: String) -> Bool {
        func partOfAName(_ character: Character) -> Bool { character.isLetter || character.isNumber || character == "-" || character == "_" }
        return text.ranges(of: name).contains { range in
            (range.lowerBound == text.startIndex || !partOfAName(text[text.index(before: range.lowerBound)]))
                && (range.upperBound == text.endIndex || !partOfAName(text[range.upperBound]))
        }
    }

    @Test func aCommandThatDoesNotExistIsCaught() {
        #expect(!Self.names("`--data-folder`", "--data") && Self.names("`--data` and", "--data"))
        #expect(Self.parseFailure(["serve", "--no-such-flag"]) != nil)
        #expect(Self.parseFailure(["apps", "rename", "shop"]) != nil)
        #expect(!Self.namesACommand(["nosuch"]))
        #expect(Self.namesACommand(["jobs", "run"]))
        #expect(Self.parseFailure(["serve", "--port", "0", "--durability", "full"]) == nil)
    }

    @Test func theReadmeTestIsTheTestThatRuns() throws {
        let readme = try DocumentationBlocks.text("README.md")
        let test = try DocumentationBlocks.text("Tests/HooksTests/ReadmeExampleTests.swift")
        #expect(DocumentationBlocks.fencedBlocks("swift", in: readme).contains(test), "the README shows ReadmeExampleTests.swift as it is")
    }

    @Test func continuousIntegrationRunsTheReadmesTestCommand() throws {
        let readme = try DocumentationBlocks.text("README.md")
        let ci = try DocumentationBlocks.text(".ci/run")
        let lines = DocumentationBlocks.fencedBlocks("sh", in: readme).joined(separator: "\n").split(separator: "\n")
        let command = try #require(lines.first { $0.contains("swift test") }?.split(separator: "#").first, "the README shows its test command")
        let trimmed = command.trimmingCharacters(in: .whitespaces)
        #expect(ci.split(separator: "\n").last.map(String.init) == trimmed, "`.ci/run` ends with the README's `\(trimmed)`")
        #expect(ci.contains("apt-get install -y -q"))
        #expect(ci.contains("missing+=(libsqlite3-dev)") && ci.contains("missing+=(postgresql)"), "it installs SQLite's headers and PostgreSQL")
    }

    @Test func thePackageRecipeNamesProductsThatExist() throws {
        let readme = try DocumentationBlocks.text("README.md")
        let manifest = try DocumentationBlocks.text("Package.swift")
        let recipe = try #require(DocumentationBlocks.fencedBlocks("swift", in: readme).first { $0.contains("import PackageDescription") })
        let products = Set(recipe.matches(of: /\.product\(name: "(\w+)", package: "cloudlet"\)/).map { String($0.1) })
        #expect(products == ["Cloudlet", "CloudletWorker", "CloudletTesting"])
        for product in products { #expect(manifest.contains(".library(name: \"\(product)\""), "\(product) is a library product") }
        #expect(manifest.contains("name: \"cloudlet\","), "the package is named cloudlet")
        let tools = try #require(manifest.firstMatch(of: /swift-tools-version:([\d.]+)/)).1
        #expect(recipe.contains("swift-tools-version:\(tools)"))
        #expect(readme.contains("**Swift \(tools)** or later"))
    }

    /// Each `swift build --product X` or `swift run X` names a product of the package it builds: the
    /// root's, or the one `--package-path` names (the benchmarks are a package of their own).
    @Test func everyBuiltProductTheExamplesNameExists() throws {
        let commands = try DocumentationBlocks.shellCommands()
        var named: [(product: String, package: String)] = []
        for words in commands.map(\.words) where words.starts(with: ["swift", "build"]) || words.starts(with: ["swift", "run"]) {
            let package = words.firstIndex(of: "--package-path").flatMap { words.indices.contains($0 + 1) ? words[$0 + 1] : nil } ?? "."
            if let index = words.firstIndex(of: "--product"), index + 1 < words.count { named.append((words[index + 1], package)) }
            if words[1] == "run" {
                // The first word that is neither an option nor the value of one is the product.
                var rest = words.dropFirst(2)
                while let word = rest.first, word.hasPrefix("-") {
                    rest = rest.dropFirst(["-c", "--configuration", "--package-path"].contains(word) ? 2 : 1)
                }
                if let product = rest.first { named.append((product, package)) }
            }
        }
        #expect(Set(named.map(\.product)).count >= 5)
        for (product, package) in named {
            let manifest = try DocumentationBlocks.text(package == "." ? "Package.swift" : package + "/Package.swift")
            #expect(manifest.contains("name: \"\(product)\""), "no product \(product) in the package at \(package)")
        }
    }

    @Test func everyLinkLeadsToAFileAndHeadingThatExist() throws {
        let examples = ((try? FileManager.default.contentsOfDirectory(atPath: DocumentationBlocks.root.appendingPathComponent("Examples").path)) ?? [])
            .map { "Examples/\($0)/README.md" }
        var links = 0
        for page in DocumentationBlocks.pages + ["Benchmarks/README.md"] + examples {
            let prose = try DocumentationBlocks.text(page).replacing(/(?m)^ *```\w*\n[\s\S]*?^ *```/, with: "")
            for match in prose.matches(of: /\]\(([^)\s]+)\)/) where !match.1.contains(/^[a-z]+:/) {
                links += 1
                let parts = match.1.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let folder = (page as NSString).deletingLastPathComponent
                let target = parts[0].isEmpty ? page : ((folder as NSString).appendingPathComponent(parts[0]) as NSString).standardizingPath
                let exists = FileManager.default.fileExists(atPath: DocumentationBlocks.root.appendingPathComponent(target).path)
                #expect(exists, "\(page) links to \(match.1): no \(target)")
                if exists, parts.count == 2, target.hasSuffix(".md") {
                    #expect(try Self.anchors(of: target).contains(parts[1]), "\(page) links to \(match.1): no such heading")
                }
            }
        }
        #expect(links >= 100, "\(links) links checked")
    }

    /// The anchors of `page`'s headings, as GitHub makes them: lowercase, punctuation dropped,
    /// spaces as `-`.
    static func anchors(of page: String) throws -> Set<String> {
        let prose = try DocumentationBlocks.text(page).replacing(/(?m)^ *```\w*\n[\s\S]*?^ *```/, with: "")
        return Set(
            prose.matches(of: /(?m)^#+ (.*)$/).map { heading in
                String(heading.1.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == " " || $0 == "_" })
                    .replacingOccurrences(of: " ", with: "-")
            })
    }
}
