import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import PostgresTestServer
import PushStandIns
import Testing

/// A server on a free loopback port hosting apps `a` and `b`, app `a` sending its emails as
/// `email` says, for the email suites: they sign up, ask for links, and follow them as a browser does.
struct EmailTestServer: Sendable {
    /// Sends a request, its URI from `/`.
    let transport: ParseTestClient.Transport
    let clock: any CloudletClock

    /// A Parse client of app `id` (`a` or `b`).
    func client(_ id: String = "a") -> ParseTestClient {
        ParseTestClient(appId: id, clientKey: "client-\(id)", masterKey: "master-\(id)", transport: transport)
    }

    /// Runs `body` with a fresh server in a new data folder on `clock`, app `a` with `email`, the
    /// apps' data on `store`.
    static func with(
        email: EmailSettings, clock: any CloudletClock = SystemClock(), store: ServedStore = .sqlite,
        _ body: @Sendable (EmailTestServer) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-email-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .critical
        let apps = ["a", "b"].map { id in
            AppDefinition(id: id, executor: InProcessHookExecutor(registry: HookRegistry()), clientKey: "client-\(id)", masterKey: "master-\(id)")
        }
        var configuration = ServerConfiguration(port: 0, dataDirectory: folder.path, passwordHashCost: 4)
        configuration.database = try await store.newDatabase()
        let server = try await CloudletApplication(configuration: configuration, apps: apps, logger: logger, clock: clock)
        defer { server.closeDatabase() }
        try await server.registry.update("a") { $0.email = email }
        let refused = await server.supervisor.reload()
        #expect(refused.isEmpty, "\(refused)")
        try await server.application().test(.live) { client in
            try await body(
                EmailTestServer(
                    transport: { method, uri, headers, requestBody in
                        let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: requestBody)
                        return (response.status.code, response.headers, response.body)
                    }, clock: clock))
        }
    }

    /// A page as a browser gets it: status and HTML.
    func page(_ method: HTTPRequest.Method, _ uri: String, form: [String: String]? = nil) async throws -> (status: Int, html: String) {
        var headers: HTTPFields = [:]
        var body: ByteBuffer?
        if let form {
            headers[.contentType] = "application/x-www-form-urlencoded"
            let allowed = CharacterSet.alphanumerics
            body = ByteBuffer(
                string: form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&"))
        }
        let (status, _, bytes) = try await transport(method, uri, headers, body)
        return (status, String(buffer: bytes))
    }

    /// Signs up `username` with `email` and password `password` in app `app`; answers the session token.
    func signUp(_ username: String, email: String, password: String = "first-password", app: String = "a") async throws -> String {
        let reply = try await client(app).post("/users", ["username": .string(username), "password": .string(password), "email": .string(email)])
        #expect(reply.status == 201, "\(reply.body)")
        return try #require(reply["sessionToken"]?.stringValue)
    }
}

extension SMTPStandIn {
    /// The settings of an app sending to this stand-in over STARTTLS as its user `mailer`, trusting
    /// its certificate (written with the password to files in `folder`).
    func settings(in folder: URL, authenticated: Bool = true, security: EmailSettings.SMTP.Security = .starttls) throws -> EmailSettings {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let caFile = folder.appendingPathComponent("smtp-ca.pem").path
        try certificatePEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        var passwordFile: String?
        if authenticated {
            passwordFile = folder.appendingPathComponent("smtp-password").path
            try "s3cret\n".write(toFile: passwordFile!, atomically: true, encoding: .utf8)
        }
        var settings = EmailSettings()
        settings.from = "no-reply@shop.example"
        settings.appName = "Shop"
        settings.smtp = EmailSettings.SMTP(
            host: "127.0.0.1", port: port, security: security, username: authenticated ? "mailer" : nil, passwordFile: passwordFile,
            caFile: caFile)
        return settings
    }
}

extension SMTPStandInMessage {
    /// The link of `page` (`verify_email`, `request_password_reset`) in the body, as a URI from `/`.
    func link(_ page: String) -> String? {
        guard let range = body.range(of: "/parse/apps/[a-z]+/\(page)\\?token=[0-9a-f]{64}", options: .regularExpression) else { return nil }
        return String(body[range])
    }
}

/// A folder for one test's files.
func temporaryFolder() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-email-files-\(UUID().uuidString)")
}
