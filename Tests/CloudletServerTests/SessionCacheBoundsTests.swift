import Cloudlet
import Foundation
import Testing

@testable import CloudletRuntime

/// The session cache's own rules, driven directly: its bounds on entries and bytes (the entries
/// stored first go), its freshness, and its invalidations, including of resolutions under way.
@Suite("Sessions: the cache's bounds and invalidations")
struct SessionCacheBoundsTests {
    static let start = Date(timeIntervalSince1970: 1_000_000)

    /// A session of `user` valid for a day from the start, with `roles`.
    static func session(_ user: String, roles: [String] = []) -> CachedSession {
        CachedSession(userId: user, installationId: nil, expiresAt: start.addingTimeInterval(86_400), roles: roles)
    }

    /// The generation a resolution beginning now stores its answer under.
    static func generation(_ cache: SessionCache) throws -> UInt64 {
        guard case .missing(let generation) = cache.lookup("no such token", now: start) else { throw ParseError.internalError }
        return generation
    }

    static func cached(_ cache: SessionCache, _ token: String, at seconds: Double = 0) -> CachedSession? {
        guard case .cached(let session) = cache.lookup(token, now: start.addingTimeInterval(seconds)) else { return nil }
        return session
    }

    @Test("past its bound on entries the sessions stored first go, the newest stay")
    func entryBound() throws {
        let cache = SessionCache()
        let extra = 100
        for index in 0..<(SessionCache.maximumEntries + extra) {
            cache.store(Self.session("u\(index)"), for: "t\(index)", generation: try Self.generation(cache), now: Self.start)
        }
        #expect(cache.size.entries == SessionCache.maximumEntries)
        #expect((0..<extra).allSatisfy { Self.cached(cache, "t\($0)") == nil })
        #expect(Self.cached(cache, "t\(extra)")?.userId == "u\(extra)")
        #expect(Self.cached(cache, "t\(SessionCache.maximumEntries + extra - 1)") != nil)
    }

    @Test("past its bound on bytes the sessions stored first go; one too heavy for it is not stored")
    func byteBound() throws {
        let cache = SessionCache()
        let roles = (0..<UserRoles.maximumRoles).map { "Role-\($0)-" + String(repeating: "x", count: 200) }
        let heavy = Self.session("u", roles: roles).weight("t0")
        let fits = SessionCache.maximumBytes / heavy
        for index in 0...fits {
            cache.store(Self.session("u\(index)", roles: roles), for: "t\(index)", generation: try Self.generation(cache), now: Self.start)
        }
        #expect(cache.size.entries == fits && cache.size.bytes <= SessionCache.maximumBytes)
        #expect(Self.cached(cache, "t0") == nil && Self.cached(cache, "t\(fits)") != nil)
        let tooHeavy = roles.map { $0 + String(repeating: "y", count: SessionCache.maximumBytes / roles.count) }
        cache.store(Self.session("w", roles: tooHeavy), for: "heavy", generation: try Self.generation(cache), now: Self.start)
        #expect(Self.cached(cache, "heavy") == nil && cache.size.entries == fits)
    }

    @Test("an entry is answered until its session expires or it is as old as the maximum age, never after")
    func freshness() throws {
        let cache = SessionCache()
        let age = SessionCache.maximumAge.seconds
        cache.store(Self.session("u1"), for: "t1", generation: try Self.generation(cache), now: Self.start)
        #expect(Self.cached(cache, "t1", at: age - 1) != nil)
        #expect(Self.cached(cache, "t1", at: age) == nil)
        let shortLived = CachedSession(userId: "u2", installationId: nil, expiresAt: Self.start.addingTimeInterval(10), roles: [])
        cache.store(shortLived, for: "t2", generation: try Self.generation(cache), now: Self.start)
        #expect(Self.cached(cache, "t2", at: 9) != nil)
        #expect(Self.cached(cache, "t2", at: 10) == nil)
        cache.store(shortLived, for: "t3", generation: try Self.generation(cache), now: Self.start.addingTimeInterval(10))
        #expect(cache.size.entries == 0, "an expired session is never stored")
    }

    @Test("each invalidation removes what it names, and the answers of resolutions begun before it")
    func invalidations() throws {
        let cache = SessionCache()
        for (token, user) in [("a1", "ada"), ("a2", "ada"), ("b1", "bob"), ("c1", "cy")] {
            cache.store(Self.session(user), for: token, generation: try Self.generation(cache), now: Self.start)
        }
        let before = try Self.generation(cache)
        cache.invalidate(.session(tokenHash: "b1"))
        #expect(Self.cached(cache, "b1") == nil && Self.cached(cache, "a1") != nil)
        cache.store(Self.session("dee"), for: "d1", generation: before, now: Self.start)
        #expect(Self.cached(cache, "d1") == nil, "a resolution begun before an invalidation stored its answer")
        cache.invalidate(.user(id: "ada"))
        #expect(Self.cached(cache, "a1") == nil && Self.cached(cache, "a2") == nil && Self.cached(cache, "c1") != nil)
        cache.invalidate(.everyone)
        #expect(cache.size.entries == 0 && cache.size.bytes == 0)
        cache.store(Self.session("cy"), for: "c1", generation: try Self.generation(cache), now: Self.start)
        #expect(Self.cached(cache, "c1") != nil)
    }
}
