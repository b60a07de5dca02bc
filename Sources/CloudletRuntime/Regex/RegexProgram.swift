/// A `$regex` pattern compiled for a Thompson-NFA match: every character of the text is looked at
/// once, against at most every instruction, so a match costs at most (text length × program
/// size) steps whatever the pattern — `^(a+)+$` on `aaaa…!` included.
///
/// ```swift
/// let program = try RegexProgram(pattern: "^ab+c", options: "i")
/// var steps = 1_000_000
/// try program.matches("ABBBC", steps: &steps)   // true
/// ```
package struct RegexProgram: Sendable {
    enum Instruction: Sendable {
        case scalar(Unicode.Scalar)
        case caselessScalar(Unicode.Scalar)
        case any(dotAll: Bool)
        case set(Int)
        case assertion(RegexAssertion)
        case split(Int, Int)
        case jump(Int)
        case match
    }

    /// Thrown when a match needs more steps than it was given.
    package struct StepsExhausted: Error {
        package init() {}
    }

    /// The most instructions a pattern may compile to (`{m,n}` repeats its operand).
    static let maximumInstructions = 5000

    let instructions: [Instruction]
    let sets: [RegexCharacterSet]
    /// Whether every match must start at the beginning of the text (the pattern starts with `^` or `\A`).
    let anchoredAtStart: Bool

    /// Compiles `pattern` with `options` (letters among `imsx`); throws a refusal for a pattern
    /// outside the supported subset or too large.
    package init(pattern: String, options: String = "") throws(RegexNode.Refusal) {
        var compiler = RegexCompiler()
        let tree = try RegexNode.parse(pattern, options: options)
        try compiler.emit(tree)
        compiler.instructions.append(.match)
        instructions = compiler.instructions
        sets = compiler.sets
        if case .assertion(.textStart) = instructions.first { anchoredAtStart = true } else { anchoredAtStart = false }
    }
}

private struct RegexCompiler {
    var instructions: [RegexProgram.Instruction] = []
    var sets: [RegexCharacterSet] = []

    mutating func emit(_ node: RegexNode) throws(RegexNode.Refusal) {
        guard instructions.count < RegexProgram.maximumInstructions else {
            throw RegexNode.Refusal(message: "$regex is too large")
        }
        switch node {
        case .empty: break
        case .scalar(let scalar, let caseless):
            instructions.append(caseless ? .caselessScalar(RegexCase.folded(scalar)) : .scalar(scalar))
        case .any(let dotAll): instructions.append(.any(dotAll: dotAll))
        case .set(let set):
            sets.append(set)
            instructions.append(.set(sets.count - 1))
        case .assertion(let assertion): instructions.append(.assertion(assertion))
        case .sequence(let items): for item in items { try emit(item) }
        case .alternation(let branches):
            var jumpsToEnd: [Int] = []
            for (index, branch) in branches.enumerated() {
                let split = instructions.count
                if index < branches.count - 1 { instructions.append(.split(split + 1, -1)) }
                try emit(branch)
                if index < branches.count - 1 {
                    jumpsToEnd.append(instructions.count)
                    instructions.append(.jump(-1))
                    instructions[split] = .split(split + 1, instructions.count)
                }
            }
            for jump in jumpsToEnd { instructions[jump] = .jump(instructions.count) }
        case .repetition(let operand, let minimum, let maximum):
            for _ in 0..<minimum { try emit(operand) }
            if let maximum {
                var splits: [Int] = []
                for _ in minimum..<maximum {
                    splits.append(instructions.count)
                    instructions.append(.split(instructions.count + 1, -1))
                    try emit(operand)
                }
                for split in splits { instructions[split] = .split(split + 1, instructions.count) }
            } else {
                let loop = instructions.count
                instructions.append(.split(loop + 1, -1))
                try emit(operand)
                instructions.append(.jump(loop))
                instructions[loop] = .split(loop + 1, instructions.count)
            }
        }
    }
}
