import Cloudlet
import CloudletRuntime
import Foundation
import Logging
import NIOHPACK
import NIOHTTP1
import NIOSSL

/// Sends to Firebase Cloud Messaging's HTTP v1 API: one `messages:send` per token, authorised by
/// an OAuth token from the service account (see ``FCMAccessToken``); a 401 for an expired token
/// gets a new token and one more try. Each answer maps to an outcome by Google's `FcmError` code.
///
/// FCM v1 takes no client message id, so a retry after a lost answer may deliver twice; the
/// message's id is logged with every failure instead.
public final class FCMProvider: PushProvider, PushConnectionOwner {
    /// FCM's host.
    public static let defaultURL = "https://fcm.googleapis.com"

    private let sendPath: String
    private let accessToken: FCMAccessToken
    /// The sends, over HTTP/2 to FCM's host.
    private let messages: HTTP2PushTransport
    /// The exchanges of the account's assertion at its `token_uri` (any host, HTTP/1.1 or 2).
    private let tokens: PushHTTPTransport
    private let clock: any CloudletClock
    private let logger: Logger

    /// A provider for `account`'s project at `baseURL`, trusting `trustRoots` (for both FCM and the
    /// account's `token_uri`).
    public init(
        account: FCMServiceAccount, baseURL: String = FCMProvider.defaultURL, trustRoots: NIOSSLTrustRoots = .default,
        clock: any CloudletClock, logger: Logger
    ) {
        let project = account.projectId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? account.projectId
        sendPath = "/v1/projects/\(project)/messages:send"
        messages = HTTP2PushTransport(baseURL: baseURL, trustRoots: trustRoots)
        tokens = PushHTTPTransport(trustRoots: trustRoots)
        accessToken = FCMAccessToken(account: account, transport: tokens, clock: clock)
        self.clock = clock
        self.logger = logger
    }

    public func send(_ message: PushMessage) async -> PushOutcome {
        let body = JSONWriter.bytes(.object(FCMMessage.body(for: message, now: clock.now)))
        let outcome: PushOutcome
        do {
            var bearer = try await accessToken.current()
            var answer = FCMAnswer(try await post(body, bearer: bearer))
            if answer.isExpiredAccessToken {
                await accessToken.invalidate(bearer)
                bearer = try await accessToken.current()
                answer = FCMAnswer(try await post(body, bearer: bearer))
            }
            outcome = answer.outcome
        } catch let refused as PushKeyError {
            // Google refused the service account's assertion: every message of the job would fail alike.
            outcome = .jobFailed(reason: refused.description)
        } catch {
            outcome = .unanswered(by: "FCM", error)
        }
        if let reason = outcome.reason {
            logger.debug("FCM did not take a message", metadata: ["message": "\(message.id)", "reason": "\(reason)"])
        }
        return outcome
    }

    public func shutdown() async {
        await messages.shutdown()
        await tokens.shutdown()
    }

    private func post(_ body: [UInt8], bearer: String) async throws -> PushHTTPResponse {
        try await messages.post(sendPath, headers: ["authorization": "Bearer \(bearer)", "content-type": "application/json"], body: body)
    }
}

/// One answer of FCM: its status, and the error's `status` and `FcmError` code from its JSON body.
struct FCMAnswer {
    var status: Int
    /// The canonical status (`UNAUTHENTICATED`, `INVALID_ARGUMENT`, …).
    var errorStatus: String?
    /// The `errorCode` of the `FcmError` detail (`UNREGISTERED`, `QUOTA_EXCEEDED`, …).
    var errorCode: String?
    /// Whether a `BadRequest` detail or the message names the registration token as the bad field.
    var namesToken: Bool
    var retryAfter: Duration?

    init(_ response: PushHTTPResponse) {
        status = response.status
        retryAfter = response.retryAfter
        let error = response.jsonObject?["error"]?.objectValue
        errorStatus = error?["status"]?.stringValue
        let details = error?["details"]?.arrayValue?.compactMap(\.objectValue) ?? []
        errorCode = details.first { $0["@type"]?.stringValue?.hasSuffix(".FcmError") == true }?["errorCode"]?.stringValue
        let fields = details.flatMap { $0["fieldViolations"]?.arrayValue ?? [] }.compactMap { $0.objectValue?["field"]?.stringValue }
        namesToken = fields.contains("message.token") || error?["message"]?.stringValue?.contains("registration token") == true
    }

    /// Whether FCM refused the OAuth token itself (it expired or was revoked), rather than the message.
    var isExpiredAccessToken: Bool {
        status == 401 && errorCode == nil && errorStatus == "UNAUTHENTICATED"
    }

    /// What the answer means for the delivery, by Google's documented error codes.
    var outcome: PushOutcome {
        let reason = errorCode ?? errorStatus ?? "HTTP \(status)"
        switch (status, reason) {
        case (200, _): return .sent
        case (_, "UNREGISTERED"): return .invalidToken(reason: reason)
        case (_, "INVALID_ARGUMENT") where namesToken: return .invalidToken(reason: reason)
        case (_, "QUOTA_EXCEEDED"), (_, "UNAVAILABLE"), (_, "INTERNAL"), (429, _), (500...599, _):
            return .retry(reason: reason, retryAfter: retryAfter)
        default: return .failed(reason: reason)
        }
    }
}
