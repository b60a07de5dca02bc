// swift-tools-version:6.2
import PackageDescription

/// The benchmarks, a package of their own so that neither the root package's `swift build` nor its
/// CI builds them. Each is an executable over the root package's products; run one from the
/// repository's root with `swift run -c release --package-path Benchmarks <name> …` (Benchmarks/README.md).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "cloudlet-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "cloudlet", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        // A load generator and paced request streams, shared by the benchmarks that send HTTP.
        .target(
            name: "LoadSupport",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "LoadSupport",
            swiftSettings: swiftSettings
        ),
        // Local APNs and FCM over HTTP/2 and TLS: the tests' stand-ins (a link to Tests/PushStandIns).
        .target(
            name: "PushStandIns",
            dependencies: [
                .product(name: "Cloudlet", package: "cloudlet"),
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
            path: "PushStandIns",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "CloudletBenchmark",
            dependencies: [
                "LoadSupport",
                .product(name: "Cloudlet", package: "cloudlet"),
                .product(name: "CloudletServer", package: "cloudlet"),
                .product(name: "CloudletCLI", package: "cloudlet"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "CloudletBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "cloudlet-isolation-benchmark",
            dependencies: [
                .product(name: "Cloudlet", package: "cloudlet"),
                .product(name: "CloudletServer", package: "cloudlet"),
                .product(name: "CloudletCLI", package: "cloudlet"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "IsolationBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "cloudlet-tenants-benchmark",
            dependencies: [
                "LoadSupport",
                .product(name: "Cloudlet", package: "cloudlet"),
                .product(name: "CloudletServer", package: "cloudlet"),
                .product(name: "CloudletCLI", package: "cloudlet"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "TenantsBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "cloudlet-roundtrip-benchmark", path: "RoundTripBenchmark", swiftSettings: swiftSettings),
        .executableTarget(
            name: "cloudlet-push-benchmark",
            dependencies: [
                "LoadSupport", "PushStandIns",
                .product(name: "Cloudlet", package: "cloudlet"),
                .product(name: "CloudletServer", package: "cloudlet"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "PushDeliveryBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "cloudlet-files-benchmark",
            dependencies: [
                "LoadSupport",
                .product(name: "Cloudlet", package: "cloudlet"),
                .product(name: "CloudletServer", package: "cloudlet"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "FilesBenchmark",
            swiftSettings: swiftSettings
        ),
    ]
)
