import Cloudlet
import CloudletRuntime
import HTTPTypes

extension ParseAPI {
    /// `POST /batch` with `"transaction": true`: every operation in one database transaction
    /// (``TransactionalBatch``). Each operation must name a route whose writes a transaction holds
    /// (``ParseRoute/isTransactional``); otherwise the batch answers 107 before anything runs. Once
    /// committed, it answers the array of outcomes as any batch does; if anything failed, nothing is
    /// written and the batch answers the first failing operation's error, with its status.
    func performTransaction(_ requests: [ParseValue], _ call: ParseCall) async throws -> [UInt8] {
        let operations = try requests.map { try batchOperation($0, call) }
        if let outside = operations.first(where: { !$0.route.isTransactional }) {
            throw ParseError.invalidJSON("\(outside.call.method.rawValue) \(outside.path) cannot be part of a transaction")
        }
        let batch = TransactionalBatch(call.app.runtime.context)
        switch await batch.run(operations.count, { index in try await self.perform(operations[index]).body }) {
        case .committed(let outcomes):
            return batchEntries(outcomes, call)
        case .rolledBack(let error):
            throw error
        }
    }
}
