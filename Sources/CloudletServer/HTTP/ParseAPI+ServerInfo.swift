import Cloudlet
import CloudletRuntime
import HTTPTypes

extension ParseAPI {
    /// `GET /serverInfo` with the master key: `{"parseServerVersion": …, "features": {…}}` in Parse
    /// Server's shape, with Cloudlet's version and the features it serves (``ServerFeatures``).
    func serverInfo(_ call: ParseCall) throws -> Reply {
        guard call.caller.isMaster else { throw ParseError.masterKeyRequired }
        return Reply(body: ["parseServerVersion": .string(CloudletVersion.current), "features": ServerFeatures(table: table).json])
    }
}

/// What `GET /serverInfo` says Cloudlet serves, under Parse Server's feature keys (Parse Dashboard
/// shows or hides its pages by them). A feature that is a route is true when the route table
/// serves that route, so the answer follows the table; the rest say what Cloudlet does: hooks are
/// code, listed but not written through `/hooks`; pushes wait for their `push_time`; there are no
/// script logs (`/scriptlog`), push audiences, push localization or security checks.
struct ServerFeatures {
    /// The routes the API serves.
    let table: ParseRouteTable

    /// The features as `/serverInfo` answers them.
    var json: ParseValue {
        func serves(_ method: HTTPRequest.Method, _ path: String) -> ParseValue {
            .bool(table.match(path)?.path.routes[method] != nil)
        }
        let push = serves(.post, "push")
        let changeSchema = serves(.put, "schemas/AClass")
        return [
            "globalConfig": [
                "create": serves(.put, "config"), "read": serves(.get, "config"), "update": serves(.put, "config"),
                "delete": serves(.put, "config"),
            ],
            "hooks": ["create": false, "read": serves(.get, "hooks/functions"), "update": false, "delete": false],
            "cloudCode": ["jobs": serves(.post, "jobs/aJob")],
            "logs": ["level": false, "size": false, "order": false, "until": false, "from": false],
            "push": [
                "immediatePush": push, "scheduledPush": push, "storedPushData": push, "pushAudiences": serves(.get, "push_audiences"),
                "localization": false,
            ],
            "schemas": [
                "addField": changeSchema, "removeField": changeSchema, "addClass": serves(.post, "schemas/AClass"),
                "removeClass": serves(.delete, "schemas/AClass"), "clearAllDataFromClass": serves(.delete, "purge/AClass"),
                "exportClass": false, "editClassLevelPermissions": changeSchema, "editPointerPermissions": changeSchema,
            ],
            "settings": ["securityCheck": false],
        ]
    }
}
