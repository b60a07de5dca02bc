import Cloudlet
import CloudletTesting
import Foundation
import HTTPTypes
import NIOCore
import Testing

extension ProcessTests {
    /// Every `curl` example of the README and the reference pages, sent as curl would send it to a
    /// real `cloudlet serve` over a socket, in the order the pages show them: each reaches a route
    /// that exists, succeeds, and answers what the page shows it answering.
    @Suite struct DocumentationCurlTests {
        /// The keys the server is started with, put where the examples write placeholders.
        static let keys = (client: "docs-client-key", master: "docs-master-key", operator: "docs-operator-key")

        /// One request as curl makes it from its words.
        struct CurlRequest {
            var method = HTTPRequest.Method.get
            var uri = ""
            var headers = HTTPFields()
            var body: [UInt8]?
            var text: String
        }

        /// The request `words` (a `curl` command, its placeholders filled in) send to `port`.
        static func request(_ words: [String], port: Int) throws -> CurlRequest {
            var request = CurlRequest(text: words.joined(separator: " "))
            var method: HTTPRequest.Method?
            var getWithData = false
            var query: [String] = []
            var words = words.dropFirst()[...]
            func data(_ bytes: [UInt8]) { request.body = (request.body.map { $0 + Array("&".utf8) } ?? []) + bytes }
            func next() throws -> String {
                guard let word = words.popFirst() else { throw ServerProcess.Failure(description: "curl option without its value") }
                return word
            }
            while let word = words.popFirst() {
                switch word {
                case "-X": method = HTTPRequest.Method(try next())
                case "-H":
                    let header = try next().split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    request.headers.append(HTTPField(name: try #require(HTTPField.Name(header[0])), value: header[1]))
                case "-d", "--data": data(Array(try next().utf8))
                case "--data-binary":
                    let value = try next()
                    data(value.hasPrefix("@") ? Array("\u{FF}\u{D8} a stand-in for \(value.dropFirst())".utf8) : Array(value.utf8))
                case "--data-urlencode":
                    let pair = try next().split(separator: "=", maxSplits: 1).map(String.init)
                    let value = pair.count == 2 ? pair[1].addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" : ""
                    query.append(pair[0] + "=" + value)
                case "-G": getWithData = true
                case "-o", "-w": _ = try next()
                case "-s": break
                default:
                    let prefix = "http://127.0.0.1:\(port)"
                    guard word.hasPrefix(prefix) else { throw ServerProcess.Failure(description: "curl word \(word) is not understood") }
                    request.uri = String(word.dropFirst(prefix.count))
                }
            }
            if getWithData {
                request.uri += (request.uri.contains("?") ? "&" : "?") + query.joined(separator: "&")
            } else if !query.isEmpty {
                data(Array(query.joined(separator: "&").utf8))
            }
            if request.body != nil, request.headers[.contentType] == nil {
                request.headers[.contentType] = "application/x-www-form-urlencoded"
            }
            request.method = method ?? (request.body == nil || getWithData ? .get : .post)
            return request
        }

        /// `word` with the examples' placeholders filled in: the server's address and keys, and the
        /// name of the file uploaded last for a name shown as `6f1c…e09b_ada.jpg`.
        static func filled(_ word: String, port: Int, uploaded: String?) -> String {
            var word = word.replacingOccurrences(of: "http://127.0.0.1:1337", with: "http://127.0.0.1:\(port)")
            for (placeholder, value) in [
                ("<client key>", keys.client), ("<master key>", keys.master), ("$OPERATOR_KEY", keys.operator), ("$MASTER_KEY", keys.master),
                ("$KEY", keys.operator), ("$i", "1"),
            ] {
                word = word.replacingOccurrences(of: placeholder, with: value)
            }
            if let uploaded { word = word.replacing(/[0-9a-f]+…[0-9a-f]+_[\w.]+/, with: uploaded) }
            return word
        }

        @Test func everyCurlExampleWorksAgainstARealServer() async throws {
            let folder = try ServerProcess.temporaryFolder("docs-curl")
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = try await ServerProcess.serve(
                .cloudlet, data: folder.appendingPathComponent("data"),
                arguments: [
                    "--isolation", "in-process", "--workers", "1", "--client-key", Self.keys.client, "--master-key", Self.keys.master,
                    "--operator-key", Self.keys.operator,
                ])
            defer { server.killIfRunning() }
            let send = ServerProcess.transport(port: server.port, timeout: .seconds(15))
            // The app the hosting page's examples change.
            var admin = HTTPFields()
            admin[HTTPField.Name("X-Cloudlet-Operator-Key")!] = Self.keys.operator
            let shop = try await send(.post, "/admin/apps", admin, ByteBuffer(string: #"{"id": "shop", "isolation": "in-process"}"#))
            #expect(shop.0 == 201)

            let commands = try DocumentationBlocks.shellCommands().filter { $0.words.first == "curl" }
            #expect(commands.count >= 12, "the pages show \(commands.count) curl commands")
            var uploaded: String?
            var sessionToken = "<token>"
            for command in commands {
                let words = command.words.map { Self.filled($0, port: server.port, uploaded: uploaded).replacingOccurrences(of: "<token>", with: sessionToken) }
                let request = try Self.request(words, port: server.port)
                let (status, _, buffer) = try await send(request.method, request.uri, request.headers, request.body.map { ByteBuffer(bytes: $0) })
                let answer = try? JSONParser.parse(Array(buffer.readableBytesView))
                let context = "\(command.page): \(request.text) answered \(status) \(String(buffer: buffer).prefix(300))"
                #expect((200..<300).contains(status), "\(context)")
                if let shown = command.answer.first, shown.hasPrefix("{"), !shown.contains("…") {
                    #expect(answer == (try? JSONParser.parse(shown)), "\(context); the page shows \(shown)")
                }
                if request.uri.contains("/files/"), request.method == .post, let name = answer?["name"]?.stringValue { uploaded = name }
                // `<token>` is the session token the latest sign-up or login answered.
                if let token = answer?["sessionToken"]?.stringValue { sessionToken = token }
            }
            #expect(uploaded != nil, "the files page uploads a file")
            #expect(try await server.stop() == .exit(0))
        }
    }
}
