import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// The bound by address: IPv4 addresses one by one, IPv6 by /64 network, trusted proxies not at all.
@Suite("Open connections by address")
struct OpenConnectionsTests {
    @Test func anIPv6NetworkIsBoundedAsOneAddressAndAMappedIPv4AddressAsItsIPv4() throws {
        let connections = OpenConnections(maximum: 100, maximumPerAddress: 2, trustedProxies: try TrustedProxies(["10.9.0.0/16"]))
        #expect(connections.open(from: "2001:db8::1") == nil)
        #expect(connections.open(from: "2001:db8::ffff:2") == nil)
        #expect(connections.open(from: "2001:db8::3") == .address, "the same /64")
        #expect(connections.open(from: "2001:db8:0:1::1") == nil, "another /64")
        #expect(connections.open(from: "10.0.0.1") == nil)
        #expect(connections.open(from: "::ffff:10.0.0.1") == nil)
        #expect(connections.open(from: "10.0.0.1") == .address, "the mapped address counted as the IPv4 one")
        for _ in 0..<5 { #expect(connections.open(from: "10.9.1.1") == nil, "a trusted proxy counts toward the total only") }
        connections.close(from: "2001:db8::1")
        #expect(connections.open(from: "2001:db8::4") == nil, "a connection closed gives its place back")
        #expect(connections.count == 10)
    }

    @Test func theTotalBoundsEveryAddress() {
        let connections = OpenConnections(maximum: 2, maximumPerAddress: 2, trustedProxies: .none)
        #expect(connections.open(from: "10.0.0.1") == nil)
        #expect(connections.open(from: nil) == nil)
        #expect(connections.open(from: "10.0.0.2") == .total)
    }
}
