import CloudletTesting
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP1
import PushStandIns
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// The HTTP/2 transport of the APNs and FCM providers against a stand-in server: requests as
/// frames on one connection, the base URL's path, time limits, refusals and shutdown.
@Suite(.timing) struct HTTP2PushTransportTests {
    @Test func requestsCarryTheirHeadersBodyAndTheBaseURLsPathAndShareOneConnection() async throws {
        let server = try await StandInServer { request in
            StandInResponse(
                status: 202, headers: [("x-echo", request.headers.first(name: "x-token") ?? "")],
                body: Array("\(request.method) \(request.path) \(String(decoding: request.body, as: UTF8.self))".utf8))
        }
        let transport = HTTP2PushTransport(baseURL: server.url + "/base/", trustRoots: server.trustRoots, connections: 1)
        let answers = try await withThrowingTaskGroup(of: PushHTTPResponse.self) { group in
            for index in 0..<50 {
                group.addTask {
                    try await transport.post("/send/\(index)", headers: ["x-token": "t\(index)"], body: Array("body \(index)".utf8))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 50)
        for answer in answers {
            let text = String(decoding: answer.body, as: UTF8.self)
            let index = try #require(text.split(separator: " ").last)
            #expect(answer.status == 202)
            #expect(text == "POST /base/send/\(index) body \(index)")
            #expect(answer.headers.first(name: "x-echo") == "t\(index)")
        }
        #expect(server.connectionCount == 1)
        #expect(server.streamCount == 50)
        await transport.shutdown()
        try await server.stop()
    }

    @Test func sendsOverTheServersStreamLimitWaitTheirTurnOnOneConnection() async throws {
        let server = try await StandInServer(maximumConcurrentStreams: 5, responseDelay: .milliseconds(20)) { _ in
            StandInResponse(status: 200)
        }
        let transport = HTTP2PushTransport(baseURL: server.url, trustRoots: server.trustRoots, connections: 1)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<60 { group.addTask { try await transport.post("/\(index)", headers: [:], body: [1]).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 60))
        #expect(server.connectionCount == 1)
        await transport.shutdown()
        try await server.stop()
    }

    @Test func afterGoAwayTheNextSendOpensANewConnection() async throws {
        let server = try await StandInServer { request in StandInResponse(status: 200, body: Array("\(request.connection)".utf8)) }
        let transport = HTTP2PushTransport(baseURL: server.url, trustRoots: server.trustRoots, connections: 1)
        #expect(try await transport.post("/first", headers: [:], body: [1]).body == Array("1".utf8))
        try await server.goAway()
        // A send that crosses the GOAWAY on the wire is above its last stream id: it is sent again on the new connection.
        #expect(try await transport.post("/second", headers: [:], body: [1]).body == Array("2".utf8))
        #expect(try await transport.post("/third", headers: [:], body: [1]).body == Array("2".utf8))
        #expect(server.connectionCount == 2)
        await transport.shutdown()
        try await server.stop()
    }

    @Test func aSendWithoutAnAnswerInTimeFails() async throws {
        let slow = try await StandInServer(responseDelay: .seconds(5)) { _ in StandInResponse(status: 200) }
        let transport = HTTP2PushTransport(baseURL: slow.url, trustRoots: slow.trustRoots, timeout: .milliseconds(500))
        let started = ContinuousClock.now
        await #expect(throws: HTTP2PushTransportError.self) { try await transport.post("/late", headers: [:], body: [1]) }
        // The deadlines are checked every second.
        #expect(started.duration(to: .now) < .seconds(3))
        await transport.shutdown()
        try await slow.stop()
    }

    @Test func aShutDownTransportFailsItsSendsInFlightAndRefusesLaterOnes() async throws {
        let slow = try await StandInServer(responseDelay: .seconds(5)) { _ in StandInResponse(status: 200) }
        let transport = HTTP2PushTransport(baseURL: slow.url, trustRoots: slow.trustRoots)
        let inFlight = Task { try await transport.post("/waiting", headers: [:], body: [1]) }
        while slow.streamCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
        await transport.shutdown()
        await #expect(throws: HTTP2PushTransportError.self) { try await inFlight.value }
        await #expect(throws: HTTP2PushTransportError.self) { try await transport.post("/later", headers: [:], body: [1]) }
        try await slow.stop()
    }

    @Test func aServerThatIsNotTrustedOrNotThereGetsNoRequest() async throws {
        let server = try await StandInServer { _ in StandInResponse(status: 200) }
        let untrusting = HTTP2PushTransport(baseURL: server.url)
        await #expect(throws: (any Error).self) { try await untrusting.post("/x", headers: [:], body: [1]) }
        #expect(server.streamCount == 0)
        await untrusting.shutdown()
        let url = server.url
        try await server.stop()
        let nobody = HTTP2PushTransport(baseURL: url, trustRoots: server.trustRoots)
        await #expect(throws: (any Error).self) { try await nobody.post("/x", headers: [:], body: [1]) }
        await nobody.shutdown()
    }

    @Test(arguments: ["http://127.0.0.1:1", "not a url", "https://"])
    func aBaseURLThatIsNotHTTPSIsRefusedAtEverySend(url: String) async throws {
        let transport = HTTP2PushTransport(baseURL: url)
        await #expect(throws: HTTP2PushTransportError.self) { try await transport.post("/x", headers: [:], body: [1]) }
        await transport.shutdown()
    }
}
