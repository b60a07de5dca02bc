import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Glibc
import HTTPTypes
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// An app is created or started only if the most descriptors it may hold fit in what the process
/// has left, counted from the descriptors really open.
@Suite("Descriptor headroom for apps")
struct DescriptorHeadroomTests {
    @Test func theHeadroomIsCountedFromTheDescriptorsOpen() throws {
        let connections = OpenConnections(maximum: 10, maximumPerAddress: 10, trustedProxies: .none)
        let inUse = max(ProcessDescriptors.openCount(), AppDescriptors.hostBaseline)
        // Room for 200 more: far more than the test process opens or closes meanwhile.
        let descriptors = AppDescriptors(limit: inUse + 10 + 64 + 200, reserve: 64, connections: connections)
        #expect(descriptors.shortage("shop", cost: 15, started: 0) == nil)
        // Apps already started count for the most they may hold, even before they open it.
        #expect(descriptors.shortage("shop", cost: 15, started: inUse + 200) != nil)
        // 400 more open than the count started from leave none.
        let opened = (0..<(inUse - ProcessDescriptors.openCount() + 400)).map { _ in open("/dev/null", O_RDONLY) }
        defer { opened.forEach { close($0) } }
        let shortage = try #require(descriptors.shortage("shop", cost: 15, started: 0))
        #expect(shortage.code == 1 && shortage.httpStatus == 503)
        #expect(shortage.message.hasPrefix("app shop not started: it may need 15 file descriptors and "), "\(shortage.message)")
    }

    @Test func anAppTheDescriptorsLeftCannotHoldIsRefusedByTheAdminAPIAndTheServerServesOn() async throws {
        try await AdminAPITests.withServer(connections: ConnectionLimits(descriptorReserve: ProcessDescriptors.limit)) { admin, parse in
            let refused = try await AdminAPITests.asOperator(admin, .post, "/admin/apps", ["id": "shop", "isolation": "in-process"])
            Support.expectError(refused, status: 503, code: 1)
            #expect(refused["error"]?.stringValue?.hasPrefix("app shop not started: it may need 15 file descriptors") == true)
            Support.expectError(try await AdminAPITests.asOperator(admin, .get, "/admin/apps/shop"), status: 404, code: 101)
            #expect(try await parse("a", "a-client", "a-master").post("/classes/Posts", ["n": 1]).status == 201)
        }
    }
}
