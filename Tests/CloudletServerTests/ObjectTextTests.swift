import Cloudlet
import Foundation
import Testing

@testable import CloudletRuntime

/// The JSON text of an object kept beside it (for the after hooks' queued events and the REST
/// answers): what it quotes, and that the text reads back as the object.
@Suite struct ObjectTextTests {
    @Test(arguments: [
        "", "k3XqL9aB2c", "2026-11-27T19:00:00.000Z", "Zürich 😀", "say \"hi\"", "back\\slash", "tab\there", "line\nbreak",
        "\u{01}", "\u{7F}",
    ])
    func aQuotedTextIsItsJSONString(_ text: String) throws {
        let quoted = ObjectText.quoted(text)
        #expect(quoted == JSONWriter.string(.string(text)))
        #expect(try JSONParser.parse(quoted) == .string(text))
    }

    @Test func anObjectsRestTextReadsBackAsTheObject() throws {
        var object = ParseObject(className: "Note", fields: ["text": "a \"quoted\" line\n", "count": 3])
        object.objectId = "note\"1"
        object.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
        object.updatedAt = Date(timeIntervalSince1970: 1_700_000_060)
        let text = ObjectText(object)
        #expect(try JSONParser.parse(text.rest) == .object(object.json))
    }
}
