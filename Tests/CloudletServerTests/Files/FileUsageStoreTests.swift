import Cloudlet
import CloudletRuntime
import Foundation
import Testing

/// The running total of an app's stored file bytes on each store: started once, added to within a
/// limit that holds when adds race, never under 0; and the file names objects reference.
@Suite struct FileUsageStoreTests {
    @Test(arguments: TestStore.allCases) func theTotalIsUncountedUntilStartedAndStartsOnce(_ store: TestStore) async throws {
        try await store.with(TestApp.fileUsage) { usage, reopen async throws in
            #expect(try await usage.storedFileBytes() == nil)
            #expect(try await usage.addStoredFileBytes(10, limit: nil) == false, "nothing is added to a total never counted")
            #expect(try await usage.storedFileBytes() == nil)
            #expect(try await usage.startStoredFileBytes(at: 42) == 42)
            #expect(try await usage.startStoredFileBytes(at: 7) == 42)
            #expect(try await reopen().storedFileBytes() == 42)
        }
    }

    @Test(arguments: TestStore.allCases) func addsWithinTheLimitCountAndAddsPastItAreRefused(_ store: TestStore) async throws {
        try await store.with(TestApp.fileUsage) { usage, _ in
            _ = try await usage.startStoredFileBytes(at: 0)
            #expect(try await usage.addStoredFileBytes(60, limit: 100))
            #expect(try await usage.addStoredFileBytes(50, limit: 100) == false)
            #expect(try await usage.addStoredFileBytes(40, limit: 100), "a total reaching the limit exactly is within it")
            #expect(try await usage.addStoredFileBytes(Int64.max, limit: 100) == false)
            #expect(try await usage.storedFileBytes() == 100)
            #expect(try await usage.addStoredFileBytes(-30, limit: 10), "files removed always count")
            #expect(try await usage.addStoredFileBytes(1_000, limit: nil))
            #expect(try await usage.storedFileBytes() == 1_070)
            #expect(try await usage.addStoredFileBytes(-5_000, limit: nil))
            #expect(try await usage.storedFileBytes() == 0, "the total never goes under 0")
        }
    }

    @Test(arguments: TestStore.allCases) func addsAtOnceNeverPassTheLimitAndStartsAtOnceAgree(_ store: TestStore) async throws {
        try await store.with(TestApp.fileUsage) { usage, _ in
            let starts = try await withThrowingTaskGroup(of: Int64.self) { group in
                for bytes in 0..<8 { group.addTask { try await usage.startStoredFileBytes(at: Int64(bytes)) } }
                return try await group.reduce(into: Set<Int64>()) { $0.insert($1) }
            }
            #expect(starts.count == 1)
            _ = try await usage.addStoredFileBytes(-100, limit: nil)
            let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 { group.addTask { try await usage.addStoredFileBytes(10, limit: 55) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(accepted == 5)
            #expect(try await usage.storedFileBytes() == 50)
        }
    }

    @Test(arguments: TestStore.allCases) func theFileNamesObjectsReferenceAreFoundAtAnyDepth(_ store: TestStore) async throws {
        try await store.with(TestApp.fileUsageWithObjects) { stores, reopen async throws in
            #expect(try await stores.usage.referencedFileNames() == [])
            func file(_ name: String) -> ParseValue { ["__type": "File", "name": .string(name), "url": .string("http://x/" + name)] }
            let objects: [[String: ParseValue]] = [
                ["photo": file("top.jpg"), "again": file("top.jpg")],
                ["album": ["cover": file("nested.jpg"), "pages": [file("in-array.jpg"), ["deeper": [file("deep.jpg")]]]]],
                ["note": ["__type": "Other", "name": "not-a-file"], "bad": ["__type": "File", "name": 42], "text": "File"],
            ]
            for (index, fields) in objects.enumerated() {
                var object = ParseObject(className: index == 1 ? "Album" : "Photo", fields: fields)
                object.objectId = "obj\(index)"
                object.createdAt = Date()
                object.updatedAt = object.createdAt
                try await stores.insert(object)
            }
            let expected: Set<String> = ["top.jpg", "nested.jpg", "in-array.jpg", "deep.jpg"]
            let found = try await stores.usage.referencedFileNames()
            #expect(found == expected, "\(found.sorted())")
            #expect(try await reopen().usage.referencedFileNames() == expected)
        }
    }
}
