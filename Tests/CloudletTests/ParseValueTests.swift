import Cloudlet
import Foundation
import Testing

@Suite("Parse values, objects and ACLs")
struct ParseValueTests {
    @Test func typedAccessorsReadOnlyTheirKind() {
        let value: ParseValue = ["n": 3, "f": 2.5, "s": "x", "b": true]
        #expect(value["n"]?.intValue == 3)
        #expect(value["f"]?.intValue == nil)
        #expect(value["f"]?.doubleValue == 2.5)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["s"]?.intValue == nil)
        #expect(value["b"]?.boolValue == true)
        #expect(value["missing"] == nil)
    }

    @Test func specialTypesRoundTrip() throws {
        let date = Date(timeIntervalSince1970: 1_767_225_600.25)
        #expect(ParseValue.date(date).dateValue == date)
        #expect(ParseValue.date(date)["iso"] == "2026-01-01T00:00:00.250Z")
        let pointer = try #require(ParseValue.pointer(className: "_User", objectId: "u1").pointerValue)
        #expect(pointer.className == "_User" && pointer.objectId == "u1")
        #expect(ParseValue.geoPoint(latitude: 1, longitude: 2).parseType == "GeoPoint")
    }

    @Test func objectsSeparateTheirReservedMembers() {
        let object = ParseObject(className: "Posts", json: [
            "objectId": "abc", "createdAt": "2026-01-01T00:00:00.000Z", "title": "t",
            "ACL": ["*": ["read": true]], "className": "Posts", "__type": "Object",
        ])
        #expect(object.objectId == "abc")
        #expect(object.createdAt == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(object.fields == ["title": "t"])
        #expect(object.acl?.publicRead == true)
        #expect(object.acl?.publicWrite == false)
        #expect(object.json["objectId"] == "abc")
        #expect(object.json["ACL"] == ["*": ["read": true]])
    }

    @Test func aclsAllowOnlyTheirEntries() throws {
        let acl = ParseACL.only(readers: ["u1", "u2"], writers: ["u1"])
        #expect(acl.allowsRead(by: ["*", "u2"]))
        #expect(!acl.allowsWrite(by: ["*", "u2"]))
        #expect(acl.allowsWrite(by: ["*", "u1"]))
        #expect(!acl.allowsRead(by: ["*"]))
        #expect(ParseACL.publicReadWrite.allowsWrite(by: ["*"]))
        #expect(ParseACL(json: acl.json) == acl)
        #expect(ParseACL(json: ["u1": ["read": "yes"]]) == nil)
        #expect(ParseACL(json: ["u1": ["delete": true]]) == nil)
        #expect(ParseACL(json: "public") == nil)
    }
}
