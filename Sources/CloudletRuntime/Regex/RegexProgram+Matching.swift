extension RegexProgram {
    /// Whether the pattern matches somewhere in `text`. Each instruction visited costs one of
    /// `steps`; throws ``StepsExhausted`` (leaving `steps` at or below zero) when they run out.
    package func matches(_ text: String, steps: inout Int) throws(StepsExhausted) -> Bool {
        var run = NFARun(program: self)
        var scalars = text.unicodeScalars.makeIterator()
        let first = scalars.next()
        var context = Context(previous: nil, current: first, following: first == nil ? nil : scalars.next())
        var advanced: [Int] = []
        while true {
            run.startPosition()
            for pc in advanced where try run.add(pc, context, steps: &steps) { return true }
            if context.previous == nil || !anchoredAtStart {
                if try run.add(0, context, steps: &steps) { return true }
            }
            guard let scalar = context.current, !(run.threads.isEmpty && anchoredAtStart) else { return false }
            advanced.removeAll(keepingCapacity: true)
            for pc in run.threads {
                steps -= 1
                if consumes(instructions[pc], scalar) { advanced.append(pc + 1) }
            }
            context = Context(previous: scalar, current: context.following, following: scalars.next())
        }
    }

    private func consumes(_ instruction: Instruction, _ scalar: Unicode.Scalar) -> Bool {
        switch instruction {
        case .scalar(let expected): return scalar == expected
        case .caselessScalar(let expected): return RegexCase.folded(scalar) == expected
        case .any(let dotAll): return dotAll || !Context.isLineBreak(scalar)
        case .set(let index): return sets[index].contains(scalar)
        case .assertion, .split, .jump, .match: return false
        }
    }

    /// The characters around a position in the text: before it, at it, and the one after that.
    struct Context {
        var previous: Unicode.Scalar?
        var current: Unicode.Scalar?
        var following: Unicode.Scalar?

        static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar {
            case "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}": true
            default: false
            }
        }

        private static func isWord(_ scalar: Unicode.Scalar?) -> Bool {
            scalar.map(RegexCharacterSet.Shorthand.word.contains) ?? false
        }

        func holds(_ assertion: RegexAssertion) -> Bool {
            switch assertion {
            case .textStart: return previous == nil
            case .textEnd: return current == nil
            case .textEndBeforeNewline: return current == nil || (current == "\n" && following == nil)
            case .lineStart: return previous.map(Self.isLineBreak) ?? true
            case .lineEnd: return current.map(Self.isLineBreak) ?? true
            case .wordBoundary: return Self.isWord(previous) != Self.isWord(current)
            case .notWordBoundary: return Self.isWord(previous) == Self.isWord(current)
            }
        }
    }

    /// The threads of one match: the instructions waiting for the next character, each at most once.
    private struct NFARun {
        let program: RegexProgram
        var threads: [Int] = []
        private var visited: [Int]
        private var generation = 0
        private var stack: [Int] = []

        init(program: RegexProgram) {
            self.program = program
            visited = Array(repeating: -1, count: program.instructions.count)
        }

        /// Starts the threads of the next position in the text: each instruction may be added once again.
        mutating func startPosition() {
            generation += 1
            threads.removeAll(keepingCapacity: true)
        }

        /// Adds the thread at `pc` and everything it reaches without a character; true if that is a match.
        mutating func add(_ pc: Int, _ context: Context, steps: inout Int) throws(StepsExhausted) -> Bool {
            stack.append(pc)
            while let pc = stack.popLast() {
                guard visited[pc] != generation else { continue }
                visited[pc] = generation
                steps -= 1
                guard steps > 0 else {
                    stack.removeAll()
                    throw StepsExhausted()
                }
                switch program.instructions[pc] {
                case .jump(let target): stack.append(target)
                case .split(let first, let second):
                    stack.append(second)
                    stack.append(first)
                case .assertion(let assertion): if context.holds(assertion) { stack.append(pc + 1) }
                case .match:
                    stack.removeAll()
                    return true
                case .scalar, .caselessScalar, .any, .set: threads.append(pc)
                }
            }
            return false
        }
    }
}
