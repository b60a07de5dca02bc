import Cloudlet
import CloudletRuntime

extension ParseAPI {
    /// Members of an aggregate request that are not stages (`hint`, `explain`, `comment` and the
    /// read preferences are Parse Server's options for MongoDB, taken and left unused).
    static let aggregateOptions: Set<String> = [
        "distinct", "where", "pipeline", "hint", "explain", "comment", "readPreference", "includeReadPreference", "subqueryReadPreference",
    ]

    /// `GET /aggregate/:className` (or a `POST` with the same members in its body, as the Parse
    /// Swift SDK sends it when told to query by `POST`) with the master key: `{"results": […]}`, the distinct values
    /// of `distinct` among the objects `where` matches, or the rows of `pipeline` (an array of
    /// stages, or one object of them; without it, the request's own `$`-members are the stages, as
    /// Parse Server reads them). A `where` given with a pipeline is its first `$match`. A `$sort` of several fields
    /// orders by them in the order the request wrote them.
    func aggregate(_ className: String, _ call: ParseCall) async throws -> Reply {
        guard call.caller.isMaster else { throw ParseError.masterKeyRequired }
        var parameters = call.body
        for (name, value) in call.query { parameters[name] = Self.queryJSON(value) }
        let aggregates = call.app.runtime.aggregates
        var constraints: [String: ParseValue] = [:]
        if let whereValue = parameters["where"] {
            guard let members = whereValue.objectValue else { throw ParseError.invalidQuery("where must be a JSON object") }
            constraints = members
        }
        if let distinct = parameters["distinct"] {
            guard let field = distinct.stringValue else { throw ParseError.invalidQuery("distinct must name a field") }
            let values = try await aggregates.distinct(className, field: field, constraints: constraints, caller: call.caller, budget: call.budget)
            return Reply(body: ["results": .array(values)])
        }
        // A `$sort`'s fields keep the order the client wrote them in, read again from the URL or the body.
        let inParameters: [JSONParser.PathStep] = parameters["pipeline"] == nil ? [] : [.member("pipeline")]
        var pipeline = try AggregatePipeline(
            json: parameters["pipeline"] ?? .object(parameters.filter { !Self.aggregateOptions.contains($0.key) }),
            memberOrder: { paths in call.memberNames(at: paths.map { inParameters + $0 }) })
        if !constraints.isEmpty { pipeline.stages.insert(.match(constraints), at: 0) }
        let rows = try await aggregates.run(className, pipeline: pipeline, caller: call.caller, budget: call.budget)
        return Reply(body: ["results": .array(rows.map { .object($0) })])
    }

    /// A query parameter as Parse Server reads it: its JSON value when it is JSON, else the string.
    private static func queryJSON(_ value: ParseValue) -> ParseValue {
        guard case .string(let text) = value, let parsed = try? JSONParser.parse(text) else { return value }
        return parsed
    }
}
