// swift-tools-version:6.2
import PackageDescription

/// One set of settings for every target: Swift 6 language mode with strict concurrency,
/// explicit existentials and explicit member imports.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "cloudlet",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Cloudlet", targets: ["Cloudlet"]),
        .library(name: "CloudletWire", targets: ["CloudletWire"]),
        .library(name: "CloudletServer", targets: ["CloudletServer"]),
        .library(name: "CloudletWorker", targets: ["CloudletWorker"]),
        .library(name: "CloudletTesting", targets: ["CloudletTesting"]),
        .library(name: "CloudletServerTesting", targets: ["CloudletServerTesting"]),
        .library(name: "CloudletCLI", targets: ["CloudletCLI"]),
        .executable(name: "cloudlet", targets: ["cloudlet"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: ["CommandLineArguments"]),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .target(
            name: "CloudletWire",
            dependencies: [.product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Cloudlet",
            dependencies: [
                "CloudletWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "CCloudletLandlock"),
        .target(name: "CCloudletSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        // The runtime core: an app's saves, reads, accounts, files, jobs, push jobs and queued work over
        // the storage protocols, with no HTTP, no database driver and no worker processes.
        .target(
            name: "CloudletRuntime",
            dependencies: [
                "Cloudlet",
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The SQLite store: every storage protocol of the core, over GRDB.
        .target(
            name: "CloudletSQLite",
            dependencies: [
                "CCloudletSQLite",
                "Cloudlet",
                "CloudletRuntime",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        // The PostgreSQL store, for many nodes on one database: the storage protocols of the core over postgres-nio.
        .target(
            name: "CloudletPostgres",
            dependencies: [
                "Cloudlet",
                "CloudletRuntime",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Worker processes: the pool that runs an app's hooks in processes of their own, fenced in.
        .target(
            name: "CloudletIsolation",
            dependencies: [
                "CCloudletLandlock",
                "Cloudlet",
                "CloudletRuntime",
                "CloudletWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            swiftSettings: swiftSettings
        ),
        // What an app's worker executable links: the SDK, the wire format and the `worker` entry point.
        .target(
            name: "CloudletWorker",
            dependencies: ["Cloudlet"],
            swiftSettings: swiftSettings
        ),
        // The host: HTTP, the admin API, connections, the app registry, rate limits, push providers
        // and metrics, over the core, the store and the worker pool (which it re-exports).
        .target(
            name: "CloudletServer",
            dependencies: [
                "Cloudlet",
                "CloudletIsolation",
                "CloudletPostgres",
                "CloudletRuntime",
                "CloudletSQLite",
                "CloudletWire",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The hook harness: a module's hooks run in-process (or in worker processes) over a SQLite store.
        .target(
            name: "CloudletTesting",
            dependencies: [
                "Cloudlet",
                "CloudletIsolation",
                "CloudletRuntime",
                "CloudletSQLite",
                "CloudletWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The router test client: a whole server in-process, driven with HTTP semantics.
        .target(
            name: "CloudletServerTesting",
            dependencies: [
                "Cloudlet",
                "CloudletServer",
                "CloudletTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Hooks",
            dependencies: ["Cloudlet"],
            path: "Hooks",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CloudletCLI",
            dependencies: [
                "Cloudlet",
                "CloudletWorker",
                "CloudletServer",
                "CloudletPostgres",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "cloudlet",
            dependencies: ["Cloudlet", "CloudletCLI", "Hooks"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "cloudlet-fixture", dependencies: ["Cloudlet", "CloudletCLI"], path: "Tests/Fixtures/CloudletFixture", swiftSettings: swiftSettings),
        .executableTarget(
            name: "cloudlet-worker-fixture", dependencies: ["Cloudlet", "CloudletWorker"], path: "Tests/Fixtures/WorkerFixture",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "CloudletWireTests",
            dependencies: [
                "CloudletWire", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CloudletIsolationTests",
            // The fixture's hooks, run by in-memory workers (its executable serves the process tests).
            dependencies: [
                "Cloudlet", "CloudletServer", "CloudletTesting", "CloudletWire", "cloudlet-fixture",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CloudletTests",
            dependencies: [
                "CloudletWorker", "Cloudlet", "CloudletTesting", "CloudletWire", .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CloudletServerTests",
            dependencies: [
                "PostgresTestServer",
                "CloudletServerTesting",
                "PushStandIns",
                "Cloudlet",
                "CloudletPostgres",
                "CloudletServer",
                "CloudletTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CloudletTestingTests",
            dependencies: ["Cloudlet", "CloudletServer", "CloudletTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HooksTests",
            dependencies: ["CloudletServerTesting", "Hooks", "Cloudlet", "CloudletServer", "CloudletTesting"],
            swiftSettings: swiftSettings
        ),
        // A PostgreSQL server of the tests' own, started once per test process.
        .target(name: "PostgresTestServer", path: "Tests/PostgresTestServer", swiftSettings: swiftSettings),
        // Local APNs, FCM and identity providers over HTTP/2 and TLS, and an SMTP server, for the push, sign-in and email tests and the benchmarks.
        .target(
            name: "PushStandIns",
            dependencies: [
                "Cloudlet",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Tests/PushStandIns",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushTests",
            dependencies: [
                "CloudletServerTesting",
                "Cloudlet",
                "CloudletServer",
                "CloudletTesting",
                "PushStandIns",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmailTests",
            dependencies: [
                "PostgresTestServer",
                "CloudletServerTesting",
                "Cloudlet",
                "CloudletServer",
                "CloudletTesting",
                "PushStandIns",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "PostgresTestServer",
                "cloudlet-worker-fixture",
                "CloudletServerTesting",
                "CloudletCLI",
                "CloudletServer",
                "CloudletTesting",
                "CloudletWire",
                "PushStandIns",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // Examples/WaterCooler: one-to-one messaging (`swift run watercooler serve`).
        .target(name: "WaterCoolerHooks", dependencies: ["Cloudlet"], path: "Examples/WaterCooler/Hooks", swiftSettings: swiftSettings),
        .executableTarget(
            name: "watercooler", dependencies: ["CloudletCLI", "WaterCoolerHooks"], path: "Examples/WaterCooler/Server",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "WaterCoolerTests", dependencies: ["CloudletServerTesting", "WaterCoolerHooks", "Cloudlet", "CloudletTesting"],
            path: "Examples/WaterCooler/Tests", swiftSettings: swiftSettings),
        // Examples/ContentAlerts: content publishing with push alerts (`swift run contentalerts serve`).
        .target(
            name: "ContentAlertsHooks", dependencies: ["Cloudlet", .product(name: "Crypto", package: "swift-crypto")],
            path: "Examples/ContentAlerts/Hooks", swiftSettings: swiftSettings),
        .executableTarget(
            name: "contentalerts", dependencies: ["CloudletCLI", "ContentAlertsHooks"], path: "Examples/ContentAlerts/Server",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ContentAlertsTests", dependencies: ["CloudletServerTesting", "ContentAlertsHooks", "Cloudlet", "CloudletTesting"],
            path: "Examples/ContentAlerts/Tests", swiftSettings: swiftSettings),
    ]
)
