import Foundation

/// What a `Range` header asks of a file of `size` bytes, as RFC 9110 reads it for one range:
/// `bytes=a-b`, `bytes=a-` or `bytes=-n`. A header that is absent, not in bytes, malformed or asks
/// for several ranges is answered with the whole file; a range that starts past the end is
/// unsatisfiable (416).
enum FileRange: Equatable {
    case whole
    case part(Range<Int64>)
    case unsatisfiable

    init(_ header: String?, size: Int64) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else {
            self = .whole
            return
        }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let bounds = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, bounds[0].count <= 18, bounds[1].count <= 18 else {
            self = .whole
            return
        }
        let first = Int64(bounds[0]), last = Int64(bounds[1])
        switch (first, last) {
        case (let first?, nil) where bounds[1].isEmpty:
            self = first < size ? .part(first..<size) : .unsatisfiable
        case (let first?, let last?) where first <= last:
            self = first < size ? .part(first..<min(last + 1, size)) : .unsatisfiable
        case (nil, let suffix?) where bounds[0].isEmpty:
            self = suffix > 0 && size > 0 ? .part(max(0, size - suffix)..<size) : .unsatisfiable
        default:
            self = .whole
        }
    }
}
