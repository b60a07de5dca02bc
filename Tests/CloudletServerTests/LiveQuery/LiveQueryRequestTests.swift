import Cloudlet
import CloudletRuntime
import Foundation
import Synchronization
import Testing

/// LiveQuery requests read as Parse Server's request schema reads them, without a socket.
@Suite("LiveQuery requests")
struct LiveQueryRequestTests {
    static func read(_ text: String) -> Result<LiveQueryRequest, LiveQueryRefusal> {
        Result { () throws(LiveQueryRefusal) in try LiveQueryRequest(json: Array(text.utf8)) }
    }

    @Test("connect takes the client key under each SDK's name, and the master key, session and installation")
    func connect() throws {
        for name in ["clientKey", "javascriptKey", "restAPIKey", "windowsKey"] {
            let request = try Self.read(#"{"op":"connect","applicationId":"a","\#(name)":"k","sessionToken":"r:1","installationId":"i"}"#).get()
            #expect(request == .connect(LiveQueryConnect(applicationId: "a", clientKey: "k", sessionToken: "r:1", installationId: "i")))
        }
        #expect(try Self.read(#"{"op":"connect","applicationId":"a","masterKey":"m","extra":1}"#).get() == .connect(LiveQueryConnect(applicationId: "a", masterKey: "m")))
    }

    @Test("subscribe and update read the query; keys (or fields) and watch are lists of distinct names")
    func subscribe() throws {
        let text = #"{"op":"subscribe","requestId":3,"query":{"className":"M","where":{"a":{"$gt":1}},"fields":["a"],"watch":["b"]},"sessionToken":"r:2"}"#
        let expected = LiveQuerySubscribe(requestId: 3, className: "M", constraints: ["a": ["$gt": 1]], keys: ["a"], watch: ["b"], sessionToken: "r:2")
        #expect(try Self.read(text).get() == .subscribe(expected))
        #expect(try Self.read(text.replacingOccurrences(of: "subscribe", with: "update")).get() == .update(expected))
        #expect(try Self.read(#"{"op":"unsubscribe","requestId":3}"#).get() == .unsubscribe(requestId: 3))
    }

    @Test("what is not a request is refused with code 1 (3 for an unknown op), naming the subscription where it can", arguments: [
        (#"nope"#, 1, nil), (#"[]"#, 1, nil), (#"{"op":1}"#, 1, nil), (#"{"applicationId":"a"}"#, 1, nil), (#"{"op":"dance"}"#, 3, nil),
        (#"{"op":"connect"}"#, 1, nil), (#"{"op":"connect","applicationId":7}"#, 1, nil),
        (#"{"op":"subscribe","query":{"className":"M","where":{}}}"#, 1, nil),
        (#"{"op":"subscribe","requestId":1.5,"query":{"className":"M","where":{}}}"#, 1, nil),
        (#"{"op":"subscribe","requestId":2,"query":{"where":{}}}"#, 1, 2), (#"{"op":"subscribe","requestId":2,"query":{"className":"M"}}"#, 1, 2),
        (#"{"op":"subscribe","requestId":2,"query":{"className":"M","where":[]}}"#, 1, 2),
        (#"{"op":"subscribe","requestId":2,"query":{"className":"M","where":{},"keys":[]}}"#, 1, 2),
        (#"{"op":"subscribe","requestId":2,"query":{"className":"M","where":{},"keys":["a","a"]}}"#, 1, 2),
        (#"{"op":"subscribe","requestId":2,"query":{"className":"M","where":{},"watch":[1]}}"#, 1, 2),
        (#"{"op":"unsubscribe"}"#, 1, nil),
    ] as [(String, Int, Int?)])
    func refused(text: String, code: Int, requestId: Int?) {
        guard case .failure(let refusal) = Self.read(text) else {
            Issue.record("\(text) was read")
            return
        }
        #expect(refusal.code == code && refusal.requestId == requestId && !refusal.reconnect, "\(refusal)")
    }

    @Test("nesting past the bound is refused, not read")
    func deepNesting() {
        let deep = #"{"op":"subscribe","requestId":1,"query":{"className":"M","where":"# + String(repeating: "{\"a\":", count: 100) + "1"
            + String(repeating: "}", count: 100) + "}}"
        guard case .failure(let refusal) = Self.read(deep) else {
            Issue.record("read")
            return
        }
        #expect(refusal.code == 1)
    }
}

/// The event a write is to one subscriber, decided from what it sees before and after.
@Suite("LiveQuery events")
struct LiveEventTests {
    static let before = ParseObject(className: "M", objectId: "1", fields: ["a": 1, "b": 1])
    static let after = ParseObject(className: "M", objectId: "1", fields: ["a": 2, "b": 1])

    @Test("seen before and after: update; before only: leave; after only: enter, or create for a new object; neither: none")
    func decisions() {
        let update = CommittedObjectChange(kind: .update, object: Self.after, original: Self.before)
        let create = CommittedObjectChange(kind: .create, object: Self.after, original: nil)
        let delete = CommittedObjectChange(kind: .delete, object: Self.before, original: nil)
        #expect(LiveEvent.of(update, seenBefore: true, seenAfter: true, watch: nil) == .update)
        #expect(LiveEvent.of(update, seenBefore: true, seenAfter: false, watch: nil) == .leave)
        #expect(LiveEvent.of(update, seenBefore: false, seenAfter: true, watch: nil) == .enter)
        #expect(LiveEvent.of(update, seenBefore: false, seenAfter: false, watch: nil) == nil)
        #expect(LiveEvent.of(create, seenBefore: false, seenAfter: true, watch: nil) == .create)
        #expect(LiveEvent.of(delete, seenBefore: true, seenAfter: false, watch: nil) == .delete)
        #expect(LiveEvent.of(delete, seenBefore: false, seenAfter: false, watch: nil) == nil)
    }

    @Test("watch: an update or a create is an event only when a watched field changed; enter and leave always are")
    func watch() {
        let update = CommittedObjectChange(kind: .update, object: Self.after, original: Self.before)
        let create = CommittedObjectChange(kind: .create, object: Self.after, original: nil)
        #expect(LiveEvent.of(update, seenBefore: true, seenAfter: true, watch: ["a"]) == .update)
        #expect(LiveEvent.of(update, seenBefore: true, seenAfter: true, watch: ["b"]) == nil)
        #expect(LiveEvent.of(update, seenBefore: true, seenAfter: false, watch: ["b"]) == .leave)
        #expect(LiveEvent.of(update, seenBefore: false, seenAfter: true, watch: ["b"]) == .enter)
        #expect(LiveEvent.of(create, seenBefore: false, seenAfter: true, watch: ["b"]) == .create)
        #expect(LiveEvent.of(create, seenBefore: false, seenAfter: true, watch: ["c"]) == nil)
    }
}

/// A connection's outbox keeps its bounds without waiting on its writer.
@Suite("LiveQuery outbox")
struct LiveQueryOutboxTests {
    @Test("messages wait in order; one past the bound of messages or bytes ends the outbox and drops what waited")
    func bounds() async {
        let outbox = LiveQueryOutbox(maximumMessages: 3, maximumBytes: 100)
        #expect(outbox.send([1]) && outbox.send([2]) && outbox.send([3]))
        #expect(await outbox.next() == [1])
        #expect(outbox.send([4]))
        #expect(!outbox.send([5]))
        #expect(outbox.end == .overflowed)
        #expect(await outbox.next() == nil)
        let bytes = LiveQueryOutbox(maximumMessages: 100, maximumBytes: 10)
        #expect(bytes.send(Array(repeating: 0, count: 10)))
        #expect(!bytes.send([0]) && bytes.end == .overflowed)
    }

    @Test("a waiting writer gets the next message at once; finishing wakes it with nil")
    func waiting() async {
        let outbox = LiveQueryOutbox(maximumMessages: 1, maximumBytes: 10)
        async let first = outbox.next()
        try? await Task.sleep(for: .milliseconds(20))
        #expect(outbox.send([7]))
        #expect(await first == [7])
        async let second = outbox.next()
        outbox.finish()
        #expect(await second == nil)
        #expect(outbox.end == .finished && !outbox.send([8]))
    }

    @Test("the outbox tells why it ended, once, as it ends: without waiting for its writer")
    func toldOnce() {
        let ends = Mutex<[LiveQueryOutbox.End]>([])
        let outbox = LiveQueryOutbox(maximumMessages: 1, maximumBytes: 10) { end in ends.withLock { $0.append(end) } }
        #expect(outbox.send([1]) && !outbox.send([2]))
        outbox.finish(.disconnected)
        outbox.finish()
        #expect(ends.withLock { $0 } == [.overflowed])
        let disconnected = LiveQueryOutbox(maximumMessages: 1, maximumBytes: 10) { end in ends.withLock { $0.append(end) } }
        disconnected.finish(.disconnected)
        #expect(!disconnected.send([1]))
        #expect(ends.withLock { $0 } == [.overflowed, .disconnected])
    }
}
