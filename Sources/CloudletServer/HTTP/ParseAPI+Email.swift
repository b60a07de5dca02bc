import Cloudlet
import CloudletRuntime
import Hummingbird

extension ParseAPI {
    /// The largest choose-password form read.
    static let maximumFormBytes = 8 * 1024

    /// `POST /requestPasswordReset` with `email`: 200 `{}` whether or not a user has it.
    func requestPasswordReset(_ call: ParseCall) async throws -> Reply {
        try await call.app.runtime.emails.requestPasswordReset(email: call.body["email"], address: call.address)
        return Reply(body: [:])
    }

    /// `POST /verificationEmailRequest` with `email`: 200 `{}` whether or not a user has it.
    func requestVerificationEmail(_ call: ParseCall) async throws -> Reply {
        try await call.app.runtime.emails.requestVerification(email: call.body["email"], address: call.address)
        return Reply(body: [:])
    }

    /// `GET /apps/:id/verify_email?token=…`: marks the email verified, or the invalid-link page.
    func verifyEmailPage(request: Request, context: ParseRequestContext) async throws -> Response {
        let emails = context.app.runtime.emails
        let token = request.uri.queryParameters["token"].map(String.init) ?? ""
        guard try await emails.verifyEmail(token: token, requestId: context.caller.requestId) else {
            return EmailPages.invalidLink(appName: emails.appName)
        }
        return EmailPages.emailVerified(appName: emails.appName)
    }

    /// `GET /apps/:id/request_password_reset?token=…`: the choose-password form, or the invalid-link page.
    func choosePasswordPage(request: Request, context: ParseRequestContext) async throws -> Response {
        let emails = context.app.runtime.emails
        let token = request.uri.queryParameters["token"].map(String.init) ?? ""
        guard try await emails.isValidResetLink(token) else { return EmailPages.invalidLink(appName: emails.appName) }
        return EmailPages.choosePassword(appName: emails.appName, token: token)
    }

    /// `POST /apps/:id/request_password_reset` with the form's `new_password` and `token`: sets the
    /// password and ends the user's sessions, or the form again with what was wrong.
    func resetPasswordPage(request: Request, context: ParseRequestContext) async throws -> Response {
        let emails = context.app.runtime.emails
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maximumFormBytes)
        } catch {
            return EmailPages.tooLarge(appName: emails.appName)
        }
        let form = ParseCall.formDecoded(String(buffer: body))
        let token = form["token"]?.stringValue ?? ""
        let password = form["new_password"]?.stringValue ?? ""
        guard try await emails.isValidResetLink(token) else { return EmailPages.invalidLink(appName: emails.appName) }
        do {
            try await emails.resetPassword(token: token, newPassword: password, requestId: context.caller.requestId)
        } catch let error as ParseError where error.code == 201 {
            return EmailPages.choosePassword(appName: emails.appName, token: token, error: "Enter a new password.")
        } catch let error as ParseError where error.code == 206 {
            return EmailPages.invalidLink(appName: emails.appName)
        } catch let error as ParseError {
            // A beforeSave hook of _User refused the change.
            return EmailPages.choosePassword(appName: emails.appName, token: token, error: error.message)
        }
        return EmailPages.passwordChanged(appName: emails.appName)
    }
}
