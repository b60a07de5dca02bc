import HTTPTypes
import Testing

@testable import CloudletServer

/// The Parse header fields, found in one pass over a request's fields, read as lookups by name would.
@Suite struct ParseRequestHeadersTests {
    private func fields(_ pairs: [(String, String)]) -> HTTPFields {
        HTTPFields(pairs.map { HTTPField(name: HTTPField.Name($0.0)!, value: $0.1) })
    }

    @Test func namesAreMatchedWhateverTheirCase() {
        let headers = ParseRequestHeaders(
            fields([
                ("Host", "example.com"), ("x-PARSE-application-ID", "app"), ("X-Parse-Master-Key", "master"),
                ("X-Parse-Session-Token", "r:token"), ("X-Parse-Installation-Id", "install"), ("Content-Length", "42"),
                ("Accept-Encoding", "identity"),
            ]))
        #expect(headers.applicationId == "app")
        #expect(headers.masterKey == "master")
        #expect(headers.sessionToken == "r:token")
        #expect(headers.installationId == "install")
        #expect(headers.contentLength == 42)
        #expect(headers.clientKey == nil)
        #expect(headers.forwardedFor.isEmpty, "Accept-Encoding, of the same length, is not X-Forwarded-For")
    }

    @Test func theClientKeyIsTheRESTKeyThenTheClientKeyThenTheJavaScriptKey() {
        #expect(ParseRequestHeaders(fields([("X-Parse-Javascript-Key", "js"), ("X-Parse-Client-Key", "client")])).clientKey == "client")
        #expect(ParseRequestHeaders(fields([("X-Parse-Client-Key", "client"), ("X-Parse-REST-API-Key", "rest")])).clientKey == "rest")
        #expect(ParseRequestHeaders(fields([("X-Parse-Javascript-Key", "js")])).clientKey == "js")
    }

    @Test func aRepeatedFieldReadsAsItsValuesJoinedAndForwardedForKeepsEach() {
        let headers = ParseRequestHeaders(
            fields([("X-Parse-Master-Key", "a"), ("X-Forwarded-For", "1.1.1.1"), ("X-Parse-Master-Key", "b"), ("X-Forwarded-For", "2.2.2.2, 3.3.3.3")]))
        #expect(headers.masterKey == "a, b", "as HTTPFields' subscript joins them: no key matches")
        #expect(headers.forwardedFor == ["1.1.1.1", "2.2.2.2, 3.3.3.3"])
    }

    @Test func aLengthThatIsNotANumberIsNone() {
        #expect(ParseRequestHeaders(fields([("Content-Length", "12x")])).contentLength == nil)
    }
}
