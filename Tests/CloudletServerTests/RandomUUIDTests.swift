import Foundation
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

@Suite struct RandomUUIDTests {
    @Test func idsAreVersionFourUUIDsInUUIDStringsFormAndDoNotRepeat() {
        let ids = (0..<10_000).map { _ in RandomUUID.string() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(100) {
            #expect(UUID(uuidString: id)?.uuidString == id)
            let characters = Array(id)
            #expect(characters.count == 36)
            #expect(characters[14] == "4")
            #expect("89AB".contains(characters[19]))
        }
    }
}
