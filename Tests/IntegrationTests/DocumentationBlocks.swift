import Foundation

/// The README's and the reference pages' shell examples, read as a shell reads them: the fenced
/// `sh` blocks and the inline code spans that start with a command, split into commands of words.
struct DocumentationBlocks {
    /// One command of an example: its words (quotes removed, variables left as written), the page it
    /// is on, and the comment lines that follow it (what the page shows it answering).
    struct Command {
        var words: [String]
        let page: String
        let answer: [String]
    }

    /// The repository's root folder.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    /// The pages whose examples must work: the README, then the reference pages in `docs/`.
    static var pages: [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    /// The text of `page` (a path from the root).
    static func text(_ page: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
    }

    /// The bodies of the fenced blocks of `language` in `text`.
    static func fencedBlocks(_ language: String, in text: String) -> [String] {
        text.matches(of: /(?m)^ *```(\w*)\n([\s\S]*?)^ *```/).filter { $0.1 == language }.map { String($0.2) }
    }

    /// The commands of every `sh` block of every page, in page order.
    static func shellCommands() throws -> [Command] {
        var arrays: [String: [String]] = [:]
        return try pages.flatMap { page in try fencedBlocks("sh", in: text(page)).flatMap { commands(inBlock: $0, page: page, arrays: &arrays) } }
    }

    /// The inline code spans of every page that start with `prefix` (such as `cloudlet `), as commands.
    static func inlineCommands(startingWith prefixes: [String]) throws -> [Command] {
        try pages.flatMap { page in
            let prose = try text(page).replacing(/(?m)^ *```\w*\n[\s\S]*?^ *```/, with: "")
            return prose.matches(of: /`([^`\n]+)`/).map { String($0.1) }.filter { span in prefixes.contains { span.hasPrefix($0) } }
                .flatMap { span in
                    var arrays: [String: [String]] = [:]
                    return commands(inBlock: span, page: page, arrays: &arrays)
                }
        }
    }

    /// The commands of one block: lines joined at a trailing `\`, comments dropped (a comment line
    /// right after a command is kept as its answer), split at `;`, `&&`, `||`, `|` and `&`, with
    /// leading `do`/`then`/`else` and variable assignments removed. `"${NAME[@]}"` expands to the
    /// words of the array `NAME=(…)` assigned earlier (in `arrays`, which keeps it for later blocks).
    static func commands(inBlock block: String, page: String, arrays: inout [String: [String]]) -> [Command] {
        var result: [Command] = []
        var lines = block.replacingOccurrences(of: "\\\n", with: " ").components(separatedBy: "\n")[...]
        while let line = lines.popFirst() {
            var answer: [String] = []
            while let next = lines.first, next.trimmingCharacters(in: .whitespaces).hasPrefix("#") {
                answer.append(next.trimmingCharacters(in: .whitespaces).dropFirst().trimmingCharacters(in: .whitespaces))
                lines.removeFirst()
            }
            if let assignment = line.firstMatch(of: /^\s*(\w+)=\((.*)\)\s*$/) {
                arrays[String(assignment.1)] = ShellWords.split(String(assignment.2)).first ?? []
                continue
            }
            for var words in ShellWords.split(line) {
                while let first = words.first, ["do", "then", "else"].contains(first) || first.contains(/^\w+=/) { words.removeFirst() }
                words = words.flatMap { word in
                    word.firstMatch(of: /^\$\{(\w+)\[@\]\}$/).map { arrays[String($0.1)] ?? [] } ?? [word]
                }
                if !words.isEmpty { result.append(Command(words: words, page: page, answer: answer)) }
            }
        }
        return result
    }
}

/// Splits a line of shell into commands of words, as `sh` would before expanding variables.
enum ShellWords {
    /// The commands of `line`: split at unquoted `;`, `&&`, `||`, `|` and `&`, up to an unquoted `#`
    /// that starts a word. Quotes are removed; `$VAR`, `${…}` and `$(…)` stay as written.
    static func split(_ line: String) -> [[String]] {
        var commands: [[String]] = []
        var words: [String] = []
        var word: String?
        var characters = Array(line)[...]
        func endWord() {
            if let word { words.append(word) }
            word = nil
        }
        func endCommand() {
            endWord()
            if !words.isEmpty { commands.append(words) }
            words = []
        }
        while let character = characters.popFirst() {
            switch character {
            case " ", "\t":
                endWord()
            case "#" where word == nil:
                characters.removeAll()
            case ";", "|", "&":
                if characters.first == character { characters.removeFirst() }
                endCommand()
            case "'":
                word = (word ?? "") + String(characters.prefix { $0 != "'" })
                characters = characters.drop { $0 != "'" }.dropFirst()
            case "\"":
                word = (word ?? "") + doubleQuoted(&characters)
            case "$" where characters.first == "(":
                word = (word ?? "") + "$" + substitution(&characters)
            case "\\":
                word = (word ?? "") + String(characters.popFirst() ?? "\\")
            default:
                word = (word ?? "") + String(character)
            }
        }
        endCommand()
        return commands
    }

    /// The text of a double-quoted string whose opening quote was read, with `\"` and `\\` unescaped
    /// and `$(…)` kept whole.
    private static func doubleQuoted(_ characters: inout ArraySlice<Character>) -> String {
        var text = ""
        while let character = characters.popFirst(), character != "\"" {
            if character == "\\", let next = characters.first, "\"\\$`".contains(next) {
                text.append(characters.removeFirst())
            } else if character == "$", characters.first == "(" {
                text += "$" + substitution(&characters)
            } else {
                text.append(character)
            }
        }
        return text
    }

    /// A `$(…)` command substitution whose `(` is next, kept as written up to its closing `)`.
    private static func substitution(_ characters: inout ArraySlice<Character>) -> String {
        var text = ""
        var depth = 0
        while let character = characters.popFirst() {
            text.append(character)
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if depth == 0 { break }
        }
        return text
    }
}
