import Cloudlet
import CloudletRuntime

extension ParseAPI {
    /// `GET /hooks/functions` with the master key: the app's function hooks in Parse's shape,
    /// `[{"functionName": "hello"}]`, by name. Cloudlet's hooks are code, so they have no `url`.
    func listHookFunctions(_ call: ParseCall) throws -> Reply {
        guard call.caller.isMaster else { throw ParseError.masterKeyRequired }
        return Reply(body: .array(RegisteredHook.all(of: call.app.runtime).filter(\.isFunction).map(\.json)))
    }

    /// `GET /hooks/functions/:functionName` with the master key: that function, or 143 as Parse Server answers.
    func hookFunction(_ call: ParseCall) throws -> Reply {
        guard call.caller.isMaster else { throw ParseError.masterKeyRequired }
        let name = try call.parameter("functionName")
        guard let hook = RegisteredHook.all(of: call.app.runtime).first(where: { $0.isFunction && $0.functionName == name }) else {
            throw ParseError(code: 143, message: "no function named: \(name) is defined")
        }
        return Reply(body: hook.json)
    }

    /// `GET /hooks/triggers` with the master key: the app's triggers in Parse's shape,
    /// `[{"className": "Posts", "triggerName": "beforeSave"}]`, by class and trigger (login triggers
    /// on `_User`, file triggers on `@File`, as Parse Server names them).
    func listHookTriggers(_ call: ParseCall) throws -> Reply {
        guard call.caller.isMaster else { throw ParseError.masterKeyRequired }
        return Reply(body: .array(RegisteredHook.all(of: call.app.runtime).filter { !$0.isFunction }.map(\.json)))
    }

    /// `GET /hooks/triggers/:className/:triggerName` with the master key: that trigger, or 143 as
    /// Parse Server answers.
    func hookTrigger(_ call: ParseCall) throws -> Reply {
        guard call.caller.isMaster else { throw ParseError.masterKeyRequired }
        let (className, triggerName) = (try call.parameter("className"), try call.parameter("triggerName"))
        guard let hook = RegisteredHook.all(of: call.app.runtime).first(where: { $0.className == className && $0.triggerName == triggerName })
        else { throw ParseError(code: 143, message: "class \(className) does not exist") }
        return Reply(body: hook.json)
    }

    /// `POST` and `PUT` on `/hooks/…` with the master key: 143, since Cloudlet's hooks are code
    /// registered in the app's `HookModule`, not webhooks a request registers.
    func refuseHookChange(_ call: ParseCall) throws -> Reply {
        guard call.caller.isMaster else { throw ParseError.masterKeyRequired }
        throw ParseError(
            code: 143,
            message: "hooks are Swift code registered in the app's HookModule, not webhooks: "
                + "/hooks lists them but cannot create, change or delete them")
    }
}

/// One of an app's hooks as Parse's `/hooks` routes name it: a function by `functionName`, a
/// trigger by `className` and `triggerName`. Jobs are not hooks there.
private struct RegisteredHook {
    var functionName: String?
    var className: String?
    var triggerName: String?

    var isFunction: Bool { functionName != nil }

    /// `{"functionName": …}` or `{"className": …, "triggerName": …}`.
    var json: ParseValue {
        if let functionName { return ["functionName": .string(functionName)] }
        return ["className": .string(className ?? ""), "triggerName": .string(triggerName ?? "")]
    }

    /// The hooks the app's executor runs (its workers', as they announced them), functions by
    /// name and triggers by class and trigger.
    static func all(of runtime: AppRuntime) -> [RegisteredHook] {
        runtime.context.executor.hooks.compactMap { RegisteredHook($0) }.sorted {
            ($0.functionName ?? "", $0.className ?? "", $0.triggerName ?? "") < ($1.functionName ?? "", $1.className ?? "", $1.triggerName ?? "")
        }
    }

    /// `hook` as Parse names it; nil for a job.
    private init?(_ hook: HookRegistry.Summary) {
        switch hook.kind {
        case .function: functionName = hook.name
        case .job: return nil
        case .beforeSave, .afterSave, .beforeDelete, .afterDelete, .beforeFind, .afterFind, .beforeSubscribe:
            (className, triggerName) = (hook.name, hook.kind.rawValue)
        case .afterLiveQueryEvent: (className, triggerName) = (hook.name, "afterEvent")
        case .beforeConnect: (className, triggerName) = ("@Connect", "beforeConnect")
        case .beforeLogin, .afterLogin, .afterLogout: (className, triggerName) = ("_User", hook.kind.rawValue)
        case .beforeSaveFile: (className, triggerName) = ("@File", "beforeSave")
        case .afterSaveFile: (className, triggerName) = ("@File", "afterSave")
        case .beforeDeleteFile: (className, triggerName) = ("@File", "beforeDelete")
        case .afterDeleteFile: (className, triggerName) = ("@File", "afterDelete")
        }
    }
}
