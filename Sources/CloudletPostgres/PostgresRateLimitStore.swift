import CloudletRuntime
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// An app's rate limits shared by every node serving it: the same generic cell rate algorithm as
/// ``InMemoryRateLimitStore`` (one time per key, when its quota is whole again), kept in the
/// app's schema's unlogged `rate_limits` table, so that an app limited to 40 requests a second
/// gets 40 across all its nodes, not 40 on each.
///
/// One charge is one round trip: a call of the schema's `charge_rate_limits` function, whose
/// first statement makes the keys' rows if missing and locks and reads them, in key order (charges
/// at once never deadlock), and whose second moves each key's time on, only if every key has room;
/// both find rows by the primary key. The table is unlogged: its writes cost no write-ahead log.
/// Rows whose quota is whole again are the same as no row, and are swept once a minute.
///
/// The table is in the app's schema, made by a migration, rather than in a schema all apps share:
/// the limiter's keys (`app`, `address|ip:…`) carry no app, each app having a limiter of its own,
/// and an app's limits go with its schema when it is dropped or moved.
///
/// When the database cannot be reached, or does not answer a charge within ``timeout``, the node
/// decides alone for a second (of the `now` it is given) before it tries again: it charges its own
/// memory with each quota divided by ``nodes``, so that the nodes together still admit about the
/// quota, none refuses everything, and none admits the whole quota on its own.
///
/// The store lives here with the other stores over PostgreSQL; ``RateLimitStore`` and its value
/// types are the core's, so the host's limiter takes either store and this module needs nothing
/// of the host.
public final class PostgresRateLimitStore: RateLimitStore {
    /// How many nodes share the quotas: while the database cannot be reached, each admits this share of every quota.
    public let nodes: Int
    /// The longest a charge waits for the database before the node decides alone.
    public let timeout: Duration

    /// How long a node that could not reach the database decides alone before it tries again.
    static let aloneFor: TimeInterval = 1
    /// How often rows whose quota is whole again are deleted.
    static let sweepEvery: TimeInterval = 60

    private let database: PostgresDatabase
    private let table: String
    private let function: String
    private let fallback = InMemoryRateLimitStore()
    private let schedule = Mutex(Schedule())

    private struct Schedule {
        var aloneUntil: Date?
        var nextSweep: Date?
    }

    /// The rate limits of the app whose schema is `schema`, made or brought up to date first.
    /// `nodes` is how many nodes serve the app; `timeout`, how long a charge waits for the database.
    public init(_ database: PostgresDatabase, schema: PostgresAppSchema, nodes: Int, timeout: Duration = .milliseconds(250)) async throws {
        try await PostgresMigrations.ensure(schema, in: database)
        self.database = database
        self.nodes = max(1, nodes)
        self.timeout = timeout
        table = schema.quoted + ".rate_limits"
        function = schema.quoted + ".charge_rate_limits"
    }

    public func charge(_ charges: [RateLimitCharge], now: Date) async -> [RateLimitState] {
        guard !charges.isEmpty else { return [] }
        let (alone, sweep) = schedule.withLock { schedule in
            let sweep = schedule.nextSweep.map { now >= $0 } ?? true
            if sweep { schedule.nextSweep = now + Self.sweepEvery }
            return (schedule.aloneUntil.map { now < $0 } ?? false, sweep)
        }
        if sweep { sweepWhole(now: now) }
        if alone { return chargeAlone(charges, now: now) }
        do {
            let waits = try await chargeShared(charges, now: now)
            return zip(charges, waits).map { RateLimitState($0.quota, wait: $1) }
        } catch {
            database.logger.warning("rate limits: the database did not answer, this node decides alone for \(Self.aloneFor) s: \(error)")
            schedule.withLock { $0.aloneUntil = now + Self.aloneFor }
            return chargeAlone(charges, now: now)
        }
    }

    /// Whether the node decides alone at `now`, the database having failed it.
    public func isAlone(at now: Date) -> Bool {
        schedule.withLock { $0.aloneUntil.map { now < $0 } ?? false }
    }

    /// `charges` against this node's memory, each quota divided by ``nodes``.
    private func chargeAlone(_ charges: [RateLimitCharge], now: Date) -> [RateLimitState] {
        fallback.chargeNow(charges.map { RateLimitCharge(key: $0.key, quota: Self.share($0.quota, of: nodes)) }, now: now)
    }

    /// One node's share of `quota`: its rate and its burst divided by `nodes`.
    static func share(_ quota: RateLimitQuota, of nodes: Int) -> RateLimitQuota {
        nodes == 1 ? quota : RateLimitQuota(perSecond: quota.ratePerSecond / Double(nodes), burst: quota.count / nodes)
    }

    /// Charges the shared table in one call, waiting at most ``timeout``: answers each key's wait
    /// until its quota was whole, as ``RateLimitState/init(_:wait:)`` takes it.
    private func chargeShared(_ charges: [RateLimitCharge], now: Date) async throws -> [Double] {
        var binds = PostgresBindings()
        binds.append(charges.map(\.key))
        binds.append(charges.map(\.quota.interval))
        binds.append(charges.map(\.quota.window.seconds))
        binds.append(now.timeIntervalSince1970)
        binds.append(RateLimitState.tolerance)
        let query = PostgresQuery(unsafeSQL: "SELECT \(function)($1, $2, $3, $4, $5)", binds: binds)
        let database = database
        let waits = try await answer(within: timeout) {
            for try await waits in try await database.client.query(query, logger: database.logger).decode([Double].self) { return waits }
            return []
        }
        guard waits.count == charges.count else { throw RateLimitAnswerMismatch(charges: charges.count, waits: waits.count) }
        return waits
    }

    /// Deletes, in the background, the rows whose quota is whole at `now` (waiting at most ``timeout`` for a connection).
    private func sweepWhole(now: Date) {
        var binds = PostgresBindings()
        binds.append(now.timeIntervalSince1970)
        let (database, sql, timeout, whole) = (database, "DELETE FROM \(table) WHERE full_at <= $1", timeout, binds)
        Task { _ = try? await answer(within: timeout) { try await database.execute(sql, whole) } }
    }

    /// The function a charge calls, made by the schema's `rate_limits` change: the keys (in the
    /// charges' order), their intervals and windows in seconds, the time and ``RateLimitState/tolerance``;
    /// answers each key's wait. It charges every key only if each fits, as ``RateLimitState/fits(_:wait:)`` says.
    /// Part of a migration: once released, never edited (a later change replaces the function).
    static let chargeFunction = """
        CREATE FUNCTION {schema}.charge_rate_limits(
            charge_keys text[], charge_intervals float8[], charge_windows float8[], at_time float8, slack float8
        ) RETURNS float8[] LANGUAGE plpgsql AS $$
        DECLARE
            waits float8[];
            all_fit boolean;
        BEGIN
            WITH held AS (
                INSERT INTO {schema}.rate_limits AS r (key, full_at)
                    SELECT DISTINCT k, 0 FROM unnest(charge_keys) AS k ORDER BY k
                    ON CONFLICT (key) DO UPDATE SET full_at = r.full_at
                    RETURNING r.key, r.full_at
            )
            SELECT array_agg(greatest(h.full_at - at_time, 0) ORDER BY c.ord),
                   bool_and(greatest(h.full_at - at_time, 0) + c.step <= c.span + slack)
                INTO waits, all_fit
                FROM unnest(charge_keys, charge_intervals, charge_windows) WITH ORDINALITY AS c(key, step, span, ord)
                JOIN held AS h ON h.key = c.key;
            IF all_fit THEN
                INSERT INTO {schema}.rate_limits AS r (key, full_at)
                    SELECT DISTINCT ON (c.key) c.key, at_time + waits[c.ord::int] + c.step
                    FROM unnest(charge_keys, charge_intervals) WITH ORDINALITY AS c(key, step, ord) ORDER BY c.key, c.ord DESC
                    ON CONFLICT (key) DO UPDATE SET full_at = excluded.full_at;
            END IF;
            RETURN waits;
        END
        $$
        """
}

/// The database answered a rate limit charge with another number of waits than charges.
struct RateLimitAnswerMismatch: Error {
    let charges: Int
    let waits: Int
}
