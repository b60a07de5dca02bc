import Cloudlet
import Foundation
import Testing

@testable import CloudletRuntime

/// The JSON text of an object kept beside it (for the after hooks' queued events and the REST
/// answers): it reads back as the object.
@Suite struct ObjectTextTests {
    @Test func anObjectsRestTextReadsBackAsTheObject() throws {
        var object = ParseObject(className: "Note", fields: ["text": "a \"quoted\" line\n with a back\\slash", "count": 3])
        object.objectId = "note\"1\\x"
        object.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
        object.updatedAt = Date(timeIntervalSince1970: 1_700_000_060)
        let text = ObjectText(object)
        #expect(try JSONParser.parse(text.rest) == .object(object.json))
    }
}
