import Cloudlet
import CloudletRuntime
import CloudletServer
import CloudletServerTesting
import Foundation
import HTTPTypes
import Testing

/// The app setting `liveQuery` (`{"classNames": […]}`, as Parse Server's option): read and
/// checked as every setting is, and followed by the app's LiveQuery feed while it is served; every
/// write path of the REST API publishes to the feed.
@Suite struct LiveQuerySettingTests {
    static func settings(_ liveQuery: ParseValue) throws -> AppSettings {
        try AppSettings().applying(["liveQuery": liveQuery])
    }

    @Test func classNamesAreReadCheckedAndWrittenBack() throws {
        #expect(AppSettings().liveQuery.classNames.isEmpty)
        let read = try Self.settings(["classNames": ["Message", "_User", "Message", "_Installation"]])
        #expect(read.liveQuery.classNames == ["Message", "_User", "_Installation"])
        #expect(read.json["liveQuery"] == ["classNames": ["Message", "_User", "_Installation"]])
        #expect(try JSONDecoder().decode(AppSettings.self, from: JSONEncoder().encode(read)) == read)

        let refused: [ParseValue] = [
            "Message", ["classNames": ["_Session"]], ["classNames": ["has space"]], ["classNames": [1]],
            ["classNames": .array((0...LiveQuerySettings.maximumClassNames).map { .string("C\($0)") })], ["classes": ["Message"]],
        ]
        for value in refused {
            #expect(throws: ParseError.self, "\(value)") { try Self.settings(value) }
            do {
                _ = try Self.settings(value)
            } catch let error as ParseError {
                #expect(error.code == 142 && error.httpStatus == 400 && error.message.contains("liveQuery"), "\(error.message)")
            }
        }
    }

    @Test func theFlagTakesClassNamesSeparatedByCommas() throws {
        let flag = try #require(AppSettings.shortcuts.first { $0.flag == "live-query-classes" })
        var settings = AppSettings()
        try flag.apply("Message, Comment", to: &settings)
        #expect(try Self.settings(["classNames": "Message,Comment"]).liveQuery.classNames == ["Message", "Comment"], "as the other lists of names")
        #expect(settings.liveQuery.classNames == ["Message", "Comment"])
        try flag.apply("", to: &settings)
        #expect(settings.liveQuery.classNames.isEmpty)
        #expect(throws: ParseError.self) { try flag.apply("Message,_Session", to: &settings) }
        #expect(AppSettings.fields.contains { $0.member == "liveQuery" && $0.flag == "live-query" })
    }

    /// Sets app `test`'s `liveQuery.classNames` in the registry and applies it, as the admin API does.
    static func publish(_ classNames: [String], on server: CloudletApplication) async throws {
        _ = try await server.registry.update("test") { $0 = try $0.applying(["liveQuery": ["classNames": .array(classNames.map(ParseValue.string))]]) }
        let refused = await server.supervisor.reload()
        #expect(refused.isEmpty, "\(refused)")
    }

    @Test(arguments: TestStore.allCases)
    func everyWritePathPublishesAndTheSettingChangesWhileServed(_ store: TestStore) async throws {
        var hooks = HookRegistry()
        hooks.function("note") { request in
            .string(try await request.store.save(ParseObject(className: "Note", json: ["by": "hook"])).objectId ?? "")
        }
        try await store.withServer(registry: hooks) { client, server in
            let feed = try #require(server.apps.app("test")).runtime.context.stores.liveChanges
            #expect(feed.classNames.isEmpty)
            let heard = LiveRecorder(feed)
            try await Self.publish(["Note", "_Installation"], on: server)
            #expect(feed.classNames == ["Note", "_Installation"])

            let first = try await Support.create(client, "Note", ["by": "rest"])
            _ = try await Support.create(client, "Other", ["by": "rest"])
            let batch = try await client.post(
                "/batch",
                [
                    "requests": [
                        ["method": "POST", "path": "/parse/classes/Note", "body": ["by": "batch"]],
                        ["method": "PUT", "path": .string("/parse/classes/Note/\(first)"), "body": ["by": "batch"]],
                        ["method": "POST", "path": "/parse/classes/Other", "body": ["by": "batch"]],
                    ]
                ])
            #expect(batch.body.arrayValue?.allSatisfy { $0["success"] != nil } == true, "\(batch.body)")
            let rolledBack = try await client.post(
                "/batch",
                [
                    "requests": [
                        ["method": "POST", "path": "/parse/classes/Note", "body": ["by": "rolled back"]],
                        ["method": "PUT", "path": "/parse/classes/Note/missing", "body": ["by": "rolled back"]],
                    ], "transaction": true,
                ])
            #expect(rolledBack.status >= 400, "\(rolledBack.body)")
            let transaction = try await client.post(
                "/batch", ["requests": [["method": "POST", "path": "/parse/classes/Note", "body": ["by": "transaction"]]], "transaction": true])
            #expect(transaction.body.arrayValue?.first?["success"] != nil, "\(transaction.body)")
            #expect(try await client.post("/functions/note").status == 200)
            // An installation saved twice: created, then updated by its installationId (an upsert).
            for token in ["t1", "t2"] {
                let saved = try await client.request(
                    .post, "/installations", body: ["installationId": "device-1", "deviceType": "ios", "deviceToken": .string(token)],
                    headers: InstallationTests.device("device-1"))
                #expect(saved.status < 300, "\(saved.body)")
            }
            #expect(try await client.delete("/classes/Note/\(first)").status == 200)

            // Changed while served: Note no longer publishes, Marker does.
            try await Self.publish(["Marker"], on: server)
            #expect(feed.classNames == ["Marker"])
            _ = try await Support.create(client, "Note", ["by": "after"])
            let marker = try await Support.create(client, "Marker", ["by": "marker"])

            let changes = try await heard.changes(of: marker)
            #expect(
                changes.map { "\($0.kind) \($0.object.className) \($0.object["by"]?.stringValue ?? "-")" } == [
                    "create Note rest", "create Note batch", "update Note batch", "create Note transaction", "create Note hook",
                    "create _Installation -", "update _Installation -", "delete Note batch", "create Marker marker",
                ])
            #expect(changes[2].original?["by"] == "rest")
            #expect(changes[6].object["deviceToken"] == "t2" && changes[6].original?["deviceToken"] == "t1")
            let stored = try await client.get("/classes/Marker/\(marker)")
            #expect(changes.last?.object.json == stored.body.objectValue, "the object as a read answers it")
        }
    }
}
