import Cloudlet

/// An app's aggregates (`GET /aggregate/:className`), for the master key only as in Parse Server:
/// the distinct values of a field, and pipelines of `$match`, `$group`, `$project`, `$sort`,
/// `$limit`, `$skip` and `$count`. They read every object of the class, as the master key does,
/// with no hooks; what they answer is charged to the request's ``ReadBudget`` and is at most
/// ``StorageQuery/maximumLimit`` values or rows (154 past them).
///
/// ```swift
/// let scores = try await runtime.aggregates.distinct("GameScore", field: "score", caller: master)
/// let rows = try await runtime.aggregates.run("GameScore", pipeline: pipeline, caller: master)
/// ```
public struct ObjectAggregates: Sendable {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// The distinct values of `field` (a path such as `sender.group`) among the objects matching
    /// `constraints`; an array field's elements count one by one, null and missing values are left out.
    public func distinct(
        _ className: String, field: String, constraints: [String: ParseValue] = [:], caller: Caller, budget: ReadBudget? = nil
    ) async throws -> [ParseValue] {
        try check(className, caller)
        try ParseNames.validateFieldPath(field)
        return try await app.stores.objects.distinct(className, field: field, constraints: constraints, budget: budget ?? app.newBudget())
    }

    /// The rows `pipeline` makes of the objects of `className`, as Parse answers them (a group's
    /// key as `objectId`).
    public func run(
        _ className: String, pipeline: AggregatePipeline, caller: Caller, budget: ReadBudget? = nil
    ) async throws -> [[String: ParseValue]] {
        try check(className, caller)
        return try await app.stores.objects.aggregate(className, pipeline: pipeline, budget: budget ?? app.newBudget())
    }

    private func check(_ className: String, _ caller: Caller) throws {
        guard caller.isMaster else { throw ParseError.masterKeyRequired }
        try SystemClass.check(.find, className, by: caller)
    }
}
