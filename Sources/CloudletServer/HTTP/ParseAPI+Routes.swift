import Cloudlet
import CloudletRuntime
import Hummingbird

extension ParseAPI {
    /// Every route of the Parse REST API, each with its handler. A new endpoint is one entry here
    /// and its handler: the router serves it, `POST /batch` reaches it (when it answers a JSON
    /// reply and files are not what it serves, as in Parse), and metrics and rate-limit rules name
    /// it by its path.
    static let routes: [ParseRoute] = [
        ParseRoute(.get, "classes/:className") { try await $0.findObjects(try $1.parameter("className"), $1) },
        ParseRoute(.post, "classes/:className") { try await $0.createObject(try $1.parameter("className"), $1) },
        ParseRoute(.get, "classes/:className/:objectId") { try await $0.getObject(try $1.parameter("className"), $1) },
        ParseRoute(.put, "classes/:className/:objectId") { try await $0.updateObject(try $1.parameter("className"), $1) },
        ParseRoute(.delete, "classes/:className/:objectId") { try await $0.deleteObject(try $1.parameter("className"), $1) },
        ParseRoute(.get, "aggregate/:className") { try await $0.aggregate(try $1.parameter("className"), $1) },
        ParseRoute(.post, "aggregate/:className") { try await $0.aggregate(try $1.parameter("className"), $1) },
        ParseRoute(.post, "functions/:name") { try await $0.callFunction($1) },
        ParseRoute(.post, ParseRoute.batchPath) { Reply(body: .null, encoded: try await $0.performBatch($1)) },
        ParseRoute(.get, "users") { try await $0.findObjects(SystemClass.user.name, $1) },
        ParseRoute(.post, "users") { try await $0.signUp($1) },
        ParseRoute(.get, "users/me") { try await $0.currentUser($1) },
        ParseRoute(.get, "users/:objectId") { try await $0.getObject(SystemClass.user.name, $1) },
        ParseRoute(.put, "users/:objectId") { try await $0.updateObject(SystemClass.user.name, $1) },
        ParseRoute(.delete, "users/:objectId") { try await $0.deleteObject(SystemClass.user.name, $1) },
        ParseRoute(.get, "login") { try await $0.logIn($1) },
        ParseRoute(.post, "login") { try await $0.logIn($1) },
        ParseRoute(.post, "logout") { try await $0.logOut($1) },
        ParseRoute(.get, "sessions") { try await $0.findSessions($1) },
        ParseRoute(.post, "sessions") { try await $0.createSession($1) },
        ParseRoute(.get, "sessions/me") { try await $0.currentSession($1) },
        ParseRoute(.get, "sessions/:objectId") { try await $0.getSession($1) },
        ParseRoute(.put, "sessions/:objectId") { try await $0.updateSession($1) },
        ParseRoute(.delete, "sessions/:objectId") { try await $0.deleteSession($1) },
        ParseRoute(.post, "upgradeToRevocableSession") { try await $0.upgradeSession($1) },
        ParseRoute(.post, "requestPasswordReset") { try await $0.requestPasswordReset($1) },
        ParseRoute(.post, "verificationEmailRequest") { try await $0.requestVerificationEmail($1) },
        ParseRoute(.get, "installations") { try await $0.findObjects(SystemClass.installation.name, $1) },
        ParseRoute(.post, "installations") { try await $0.createObject(SystemClass.installation.name, $1) },
        ParseRoute(.get, "installations/:objectId") { try await $0.getObject(SystemClass.installation.name, $1) },
        ParseRoute(.put, "installations/:objectId") { try await $0.updateObject(SystemClass.installation.name, $1) },
        ParseRoute(.delete, "installations/:objectId") { try await $0.deleteObject(SystemClass.installation.name, $1) },
        ParseRoute(.get, "roles") { try await $0.findObjects(SystemClass.role.name, $1) },
        ParseRoute(.post, "roles") { try await $0.createObject(SystemClass.role.name, $1) },
        ParseRoute(.get, "roles/:objectId") { try await $0.getObject(SystemClass.role.name, $1) },
        ParseRoute(.put, "roles/:objectId") { try await $0.updateObject(SystemClass.role.name, $1) },
        ParseRoute(.delete, "roles/:objectId") { try await $0.deleteObject(SystemClass.role.name, $1) },
        ParseRoute(.post, "push") { try await $0.sendPush($1) },
        // The segment after `files/` is a file's name in the first two routes and the app id in the
        // third: the router takes one parameter name for both.
        ParseRoute(.post, "files/:id", kind: .streamedBody, handler: .response { try await $0.upload(request: $1, context: $2) }),
        ParseRoute(.delete, "files/:id", inBatches: false) { try await $0.deleteFile($1) },
        ParseRoute(.get, "files/:id/:name", kind: .urlOnly, handler: .response { try await $0.download(request: $1, context: $2) }),
        // The pages of email links name their app in the path, as Parse Server's do.
        ParseRoute(.get, "apps/:id/verify_email", kind: .urlOnly, handler: .response { try await $0.verifyEmailPage(request: $1, context: $2) }),
        ParseRoute(
            .get, "apps/:id/request_password_reset", kind: .urlOnly, handler: .response { try await $0.choosePasswordPage(request: $1, context: $2) }),
        ParseRoute(
            .post, "apps/:id/request_password_reset", kind: .urlOnly, handler: .response { try await $0.resetPasswordPage(request: $1, context: $2) }),
        ParseRoute(.post, "jobs/:name") { try await $0.startJob($1) },
        ParseRoute(.get, "config") { try await $0.readConfig($1) },
        ParseRoute(.put, "config") { try await $0.updateConfig($1) },
        ParseRoute(.get, "schemas") { try await $0.listSchemas($1) },
        ParseRoute(.post, "schemas") { try await $0.createSchema($1) },
        ParseRoute(.get, "schemas/:className") { try await $0.getSchema($1) },
        ParseRoute(.post, "schemas/:className") { try await $0.createSchema($1) },
        ParseRoute(.put, "schemas/:className") { try await $0.updateSchema($1) },
        ParseRoute(.delete, "schemas/:className") { try await $0.deleteSchema($1) },
        ParseRoute(.delete, "purge/:className") { try await $0.purgeClass($1) },
        ParseRoute(.get, "serverInfo") { try $0.serverInfo($1) },
        ParseRoute(.post, "events/:eventName") { try $0.trackEvent($1) },
        ParseRoute(.get, "hooks/functions") { try $0.listHookFunctions($1) },
        ParseRoute(.post, "hooks/functions") { try $0.refuseHookChange($1) },
        ParseRoute(.get, "hooks/functions/:functionName") { try $0.hookFunction($1) },
        ParseRoute(.put, "hooks/functions/:functionName") { try $0.refuseHookChange($1) },
        ParseRoute(.get, "hooks/triggers") { try $0.listHookTriggers($1) },
        ParseRoute(.post, "hooks/triggers") { try $0.refuseHookChange($1) },
        ParseRoute(.get, "hooks/triggers/:className/:triggerName") { try $0.hookTrigger($1) },
        ParseRoute(.put, "hooks/triggers/:className/:triggerName") { try $0.refuseHookChange($1) },
    ]
}
