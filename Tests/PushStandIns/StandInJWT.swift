import Cloudlet
import Foundation

/// A compact JWT as a stand-in reads it: header and claims decoded, the signature and the bytes it signs.
struct StandInJWT {
    var header: [String: ParseValue]
    var claims: [String: ParseValue]
    /// `header.claims`, as signed.
    var signingInput: Data
    var signature: Data

    /// The token in `text`, or nil if it is not three base64url parts of which the first two are JSON objects.
    init?(_ text: Substring) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Self.decode(parts[0]).flatMap(Self.object), let claims = Self.decode(parts[1]).flatMap(Self.object),
            let signature = Self.decode(parts[2])
        else { return nil }
        self.header = header
        self.claims = claims
        signingInput = Data(text.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        self.signature = signature
    }

    private static func object(_ data: Data) -> [String: ParseValue]? {
        (try? JSONParser.parse(Array(data)))?.objectValue
    }

    private static func decode(_ part: Substring) -> Data? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        return Data(base64Encoded: text)
    }
}
