import Cloudlet
@testable import CloudletServer
import Foundation
import Testing

@Suite struct EmailSettingsTests {
    @Test func theEmailSettingIsReadWrittenAndCheckedAsOneDocument() throws {
        let folder = temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let passwordFile = folder.appendingPathComponent("password").path
        try "hunter2\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let document: ParseValue = [
            "verifyUserEmails": true, "preventLoginWithUnverifiedEmail": true, "appName": "Shop", "resetLinkSeconds": 900,
            "from": "no-reply@shop.example",
            "smtp": ["host": "smtp.shop.example", "username": "shop", "passwordFile": .string(passwordFile)],
        ]
        let settings = try AppSettings().applying(["email": document])
        let smtp = try #require(settings.email.smtp)
        #expect(smtp.port == 587 && smtp.security == .starttls && smtp.username == "shop")
        #expect(settings.email.verifyUserEmails && settings.email.preventLoginWithUnverifiedEmail && settings.email.resetLinkSeconds == 900)
        #expect(try EmailSettings(json: settings.email.json) == settings.email)
        #expect(AppSettings().email.json["verifyUserEmails"] == false && AppSettings().email.smtp == nil)

        let refused: [(ParseValue, String)] = [
            (["smtp": ["host": "smtp.example"]], "email.from is required with email.smtp"),
            (["from": "no-reply@x.example", "smtp": ["host": "smtp.example", "security": "ssl"]], "email.smtp.security must be starttls, tls or none"),
            (["from": "no-reply@x.example", "smtp": ["host": "smtp.example", "port": 70000]], "email.smtp.port must be an integer from 1 to 65535"),
            (["from": "a@b.example\r\nBcc: c@d.example"], "email.from must be an email address"),
            (["resetLinkSeconds": 5], "email.resetLinkSeconds must be an integer from 60 to 2592000"),
            (["sender": "x"], "email has no member sender"),
            (
                ["from": "no-reply@x.example", "smtp": ["host": "smtp.example", "username": "u", "passwordFile": "/nonexistent/password"]],
                "email.smtp.passwordFile: cannot read a password from /nonexistent/password"
            ),
        ]
        for (document, message) in refused {
            #expect(throws: ParseError(code: 142, message: message, httpStatus: 400)) { try AppSettings().applying(["email": document]) }
        }
    }

    @Test func theMessageDataIsDotStuffedAndItsHeadersHoldNoLineBreak() {
        let message = EmailMessage(to: "a@example.com", subject: "Reset\r\nBcc: evil@example.com", text: "Hi\n.\n..two\nend")
        let data = SMTPMessageData.make(message, from: "no-reply@example.com", date: Date(timeIntervalSince1970: 0), messageId: "1@example.com")
        #expect(data.contains("\r\nSubject: Reset  Bcc: evil@example.com\r\n"))
        #expect(data.hasSuffix("\r\n\r\nHi\r\n..\r\n...two\r\nend\r\n.\r\n"))
        #expect(!data.contains("\r\nBcc:"))
        let unicode = SMTPMessageData.make(
            EmailMessage(to: "a@example.com", subject: "Réinitialiser", text: "Réponse ."), from: "n@example.com", date: Date(), messageId: "2@example.com")
        #expect(unicode.contains("Subject: =?UTF-8?B?"))
        #expect(unicode.contains("Content-Transfer-Encoding: base64\r\n\r\nUsOpcG9uc2UgLg==\r\n.\r\n"))
    }
}
