import HTTPTypes
import Hummingbird
import NIOCore

/// The pages an app's email links open: minimal HTML of their own, with no script, style sheet or
/// image from elsewhere. Each is sent with headers that keep it from being framed, cached, or
/// leaking its URL (which holds the token) to another site.
enum EmailPages {
    /// The choose-password form of a reset link, posting `new_password` and `token` back to the
    /// same path; `error` is shown above it.
    static func choosePassword(appName: String, token: String, error: String? = nil) -> Response {
        let problem = error.map { "<p class=\"error\">\(escaped($0))</p>" } ?? ""
        return page(
            status: error == nil ? .ok : .badRequest, title: "Choose a new password", appName: appName,
            body: """
                \(problem)<form method="post" action="request_password_reset">
                <input type="hidden" name="token" value="\(escaped(token))">
                <label>New password <input type="password" name="new_password" autocomplete="new-password" required autofocus></label>
                <button type="submit">Change password</button>
                </form>
                """)
    }

    /// The page after the password was changed.
    static func passwordChanged(appName: String) -> Response {
        page(status: .ok, title: "Password changed", appName: appName, body: "<p>Your password has been changed. You can log in with it now.</p>")
    }

    /// The page after an email was verified.
    static func emailVerified(appName: String) -> Response {
        page(status: .ok, title: "Email verified", appName: appName, body: "<p>Thank you: your email address is verified.</p>")
    }

    /// The page of a link that does not work (unknown, used, expired or malformed).
    static func invalidLink(appName: String) -> Response {
        page(
            status: .badRequest, title: "Invalid link", appName: appName,
            body: "<p>This link is invalid, has been used or has expired. Ask the app for a new one.</p>")
    }

    /// The page of a form too large to read.
    static func tooLarge(appName: String) -> Response {
        page(status: .contentTooLarge, title: "Request too large", appName: appName, body: "<p>The form sent was too large.</p>")
    }

    private static func page(status: HTTPResponse.Status, title: String, appName: String, body: String) -> Response {
        let html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escaped(title)) · \(escaped(appName))</title>
            <style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}\
            input,button{font-size:1rem;padding:.4rem;margin:.3rem 0;display:block;width:100%}.error{color:#b00020}</style>
            </head><body><h1>\(escaped(title))</h1><p><strong>\(escaped(appName))</strong></p>
            \(body)
            </body></html>

            """
        let headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
            .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
            HTTPField.Name("X-Frame-Options")!: "DENY", HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ]
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// `text` safe inside HTML text and quoted attributes.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
