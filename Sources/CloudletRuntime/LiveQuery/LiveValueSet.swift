import Cloudlet

/// The values a field is compared with for equality (one, or the list of an `$in`), held so that
/// one object's value is looked up rather than compared with each, with the meaning the stores
/// give them: a value equals only a value of its own JSON type; an object holding an `iso` text
/// equals a Date of that text, one holding an `objectId` text a Pointer to that id; text and
/// arrays and objects compare byte by byte (as SQLite's `BINARY` and PostgreSQL's `jsonb` do).
struct LiveValueSet: Sendable {
    private var null = false
    private var booleans: Set<Bool> = []
    private var numbers: Set<Double> = []
    private var strings: Set<ExactText> = []
    private var dates: Set<ExactText> = []
    private var pointers: Set<ExactText> = []
    private var arrays: [ParseValue] = []
    private var objects: [ParseValue] = []

    init(_ operands: [QueryOperand]) {
        for operand in operands {
            switch operand {
            case .null: null = true
            case .bool(let flag): booleans.insert(flag)
            case .number(let number): numbers.insert(number)
            case .string(let text): strings.insert(ExactText(text))
            case .array(let array): arrays.append(array)
            case .object(let object): objects.append(object)
            case .date(let iso): dates.insert(ExactText(iso))
            case .pointer(let id): pointers.insert(ExactText(id))
            }
        }
    }

    /// Whether the field's `value` (nil when missing, which counts as null) equals one of the
    /// values, or is an array holding an element that does: a Boolean, number or string, or an
    /// object holding the `objectId` of a Pointer among them.
    func isEqual(to value: ParseValue?) -> Bool {
        guard let value else { return null }
        if holds(value) { return true }
        guard case .array(let elements) = value else { return false }
        return elements.contains { element in
            switch element {
            case .bool, .number, .string: holds(element)
            case .object(let members): members["objectId"]?.stringValue.map { pointers.contains(ExactText($0)) } ?? false
            case .null, .array: false
            }
        }
    }

    /// Whether `value` itself equals one of the values (an element of `$containedBy`'s array, or
    /// the field's value apart from its elements).
    func holds(_ value: ParseValue) -> Bool {
        switch value {
        case .null: return null
        case .bool(let flag): return booleans.contains(flag)
        case .number(let number): return numbers.contains(number)
        case .string(let text): return strings.contains(ExactText(text))
        case .array: return arrays.contains { $0.isIdentical(to: value) }
        case .object(let members):
            if let iso = members["iso"]?.stringValue, dates.contains(ExactText(iso)) { return true }
            if let id = members["objectId"]?.stringValue, pointers.contains(ExactText(id)) { return true }
            return objects.contains { $0.isIdentical(to: value) }
        }
    }
}

/// A string that equals and hashes by its UTF-8 bytes, as the stores compare text (not by
/// Unicode's canonical equivalence, as Swift's `String` does).
struct ExactText: Hashable, Sendable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in text.utf8 { hasher.combine(byte) }
        }
        hasher.combine(text.utf8.count)
    }

    /// -1, 0 or 1 as `lhs` sorts before, with or after `rhs`, byte by byte.
    static func order(_ lhs: String, _ rhs: String) -> Int {
        var right = rhs.utf8.makeIterator()
        for byte in lhs.utf8 {
            guard let other = right.next() else { return 1 }
            if byte != other { return byte < other ? -1 : 1 }
        }
        return right.next() == nil ? 0 : -1
    }
}

extension ParseValue {
    /// Whether `other` is the same JSON value, its strings (at every depth) the same bytes.
    func isIdentical(to other: ParseValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return ExactText(a) == ExactText(b)
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map(value.isIdentical(to:)) ?? false }
        default: return false
        }
    }
}
