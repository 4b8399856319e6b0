// swift-tools-version:6.0
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Reparto",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "reparto", targets: ["reparto"]),
        /// The producer API: enqueue typed jobs, look up status, cancel, await results.
        .library(name: "RepartoClient", targets: ["Jobs"]),
        .library(name: "Screenplay", targets: ["Screenplay"]),
        /// The benchmarks (`reparto bench` and bench/parse/runner use them).
        .library(name: "RepartoBench", targets: ["RepartoBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
    ],
    targets: [
        // MARK: C clients
        .systemLibrary(name: "CRabbitMQ", pkgConfig: "librabbitmq", providers: [.apt(["librabbitmq-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CEspeakNG", providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(name: "CFlite", providers: [.apt(["flite1-dev"])]),

        // MARK: owned threads, blocking work, wake signals, backoff
        .target(name: "Threading", swiftSettings: swiftSettings),

        // MARK: configuration: flags > environment > env file; secrets as value or _FILE
        // (not named "Configuration": apple/swift-configuration, which hummingbird and
        // async-http-client depend on, already has a module of that name)
        .target(name: "RepartoConfiguration", swiftSettings: swiftSettings),

        // MARK: wrappers
        .target(name: "AMQP", dependencies: [
            "CRabbitMQ", "Threading",
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        .target(name: "Postgres", dependencies: [
            "CLibPQ", "Threading",
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),

        // MARK: the job runtime
        .target(name: "Jobs", dependencies: [
            "AMQP", "Postgres", "Threading", "RepartoConfiguration",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], swiftSettings: swiftSettings),

        // MARK: pure libraries
        .target(name: "TextEscaping", swiftSettings: swiftSettings),
        .target(name: "Screenplay", dependencies: ["TextEscaping"], swiftSettings: swiftSettings),
        // reading-list exports (Goodreads, LibraryThing, StoryGraph): CSV, ISBN, match keys, duplicates
        .target(name: "BookCatalog", exclude: ["README.md"], swiftSettings: swiftSettings),
        .target(name: "Assets", dependencies: [
            "Threading",
            .product(name: "Crypto", package: "swift-crypto"),
        ], swiftSettings: swiftSettings),
        // The HTTP round trip every HTTP client shares: bodies under a cap, failures, Retry-After, redaction.
        .target(name: "HTTPExchange", dependencies: [
            "RepartoConfiguration",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ], swiftSettings: swiftSettings),
        .target(name: "Speech", dependencies: [
            "CEspeakNG", "CFlite", "Assets", "Screenplay", "Threading", "RepartoConfiguration", "HTTPExchange", "Providers",
            .product(name: "Yams", package: "Yams"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ], swiftSettings: swiftSettings),

        // MARK: generation providers: text, embeddings, images over HTTP (OpenAI-compatible, Anthropic)
        .target(name: "Providers", dependencies: [
            "RepartoConfiguration", "HTTPExchange",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ], swiftSettings: swiftSettings),

        // MARK: generation kinds: generate-text, embed, generate-image (rows, reuse, usage ledger)
        .target(name: "Generation", dependencies: [
            "Jobs", "Postgres", "Providers", "Assets", "Threading", "RepartoConfiguration",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
        ], swiftSettings: swiftSettings),

        // MARK: production types: the script analysis (scene summaries and embeddings, logline, synopsis, search)
        .target(name: "Analysis", dependencies: [
            "Jobs", "Postgres", "Generation", "Providers", "Screenplay", "Assets",
        ], swiftSettings: swiftSettings),

        // MARK: production types: the table read (a screenplay spoken: parse, enrich, generate, assemble)
        .target(name: "TableRead", dependencies: [
            "Jobs", "Postgres", "Screenplay", "Speech", "Assets", "Threading", "RepartoConfiguration", "Generation",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Crypto", package: "swift-crypto"),
        ], exclude: ["README.md"], swiftSettings: swiftSettings),

        // MARK: production types: the book import (a library export parsed into the book catalog)
        .target(name: "BookImport", dependencies: [
            "BookCatalog", "Jobs", "Postgres", "Assets", "Threading", "RepartoConfiguration", "HTTPExchange",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ], exclude: ["README.md"], swiftSettings: swiftSettings),

        // MARK: operations: metrics, health endpoints, the dashboard
        .target(name: "Operations", dependencies: [
            "Jobs", "Postgres", "TextEscaping",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], swiftSettings: swiftSettings),

        // MARK: the kinds and plans this build runs (the composition root)
        .target(name: "RepartoKinds", dependencies: [
            "AMQP", "Assets", "Jobs", "Operations", "Postgres", "Speech", "TableRead", "BookImport", "RepartoConfiguration", "Threading", "Generation", "Providers", "Analysis",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], swiftSettings: swiftSettings),

        // MARK: the flag groups `reparto`'s commands and the bench commands share (cluster, configuration, logging)
        .target(name: "CommandOptions", dependencies: [
            "AMQP", "Jobs", "Operations", "Postgres", "RepartoConfiguration", "Threading",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),

        // MARK: benchmarks, their peers and `reparto bench`'s commands (outside the CLI's module)
        .target(name: "RepartoBench", dependencies: [
            "CommandOptions", "RepartoKinds", "TerminalText", "RepartoConfiguration", "Jobs", "Postgres", "Screenplay", "Speech", "TableRead", "BookImport", "Analysis", "AMQP", "Threading",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Histogram", package: "hdrhistogram-swift"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),

        // MARK: the CLI
        // How Reparto's state reads on a terminal: tables, JSON, progress bars, reports.
        .target(name: "TerminalText", dependencies: ["Jobs", "Postgres", "Screenplay", "Speech", "TableRead", "Generation", "Providers", "Analysis", "BookCatalog", "BookImport"], swiftSettings: swiftSettings),
        .target(name: "RepartoCLI", dependencies: [
            "CommandOptions", "Jobs", "Postgres", "AMQP", "Screenplay", "Speech", "TableRead", "BookCatalog", "BookImport", "Operations", "RepartoBench", "RepartoConfiguration", "RepartoKinds", "TerminalText", "Threading", "Generation", "Providers", "Analysis",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], swiftSettings: swiftSettings),
        .executableTarget(name: "reparto", dependencies: ["RepartoCLI"], swiftSettings: swiftSettings),

        // MARK: tests
        .target(name: "RepartoTestSupport", dependencies: ["Jobs", "AMQP", "RepartoConfiguration"], path: "Tests/Support", swiftSettings: swiftSettings),
        .testTarget(name: "RepartoConfigurationTests", dependencies: [
            "RepartoConfiguration", .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        .testTarget(name: "ScreenplayTests", dependencies: ["Screenplay"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "BookCatalogTests", dependencies: ["BookCatalog"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "BookImportTests", dependencies: ["BookImport", "Jobs"], swiftSettings: swiftSettings),
        .testTarget(name: "AssetsTests", dependencies: ["Assets"], swiftSettings: swiftSettings),
        .testTarget(name: "SpeechTests", dependencies: ["Speech", "Threading", "Assets", "Screenplay", "RepartoConfiguration", "RepartoTestSupport", "HTTPExchange"], swiftSettings: swiftSettings),
        .testTarget(name: "GenerationTests", dependencies: ["Generation", "Providers", "Analysis", "Screenplay", "Jobs", "RepartoTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "ProvidersTests", dependencies: ["Providers", "RepartoConfiguration", "RepartoTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "TableReadTests", dependencies: ["TableRead"], swiftSettings: swiftSettings),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "RepartoTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "AMQPTests", dependencies: ["AMQP", "RepartoTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "JobsTests", dependencies: ["Jobs", "RepartoTestSupport", .product(name: "Logging", package: "swift-log")], swiftSettings: swiftSettings),
        .testTarget(name: "ThreadingTests", dependencies: ["Threading"], swiftSettings: swiftSettings),
        .testTarget(name: "RepartoBenchTests", dependencies: ["RepartoBench"], swiftSettings: swiftSettings),
        .testTarget(name: "IntegrationTests", dependencies: ["Jobs", "RepartoCLI", "Postgres", "AMQP", "TableRead", "BookCatalog", "BookImport", "TerminalText", "Screenplay", "Speech", "Assets", "Operations", "RepartoConfiguration", "RepartoTestSupport", "Threading", "Generation", "Providers", "Analysis"], swiftSettings: swiftSettings),
        .testTarget(name: "OperationsTests", dependencies: ["Operations", "Jobs", "Generation", "RepartoTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "DeployTests", dependencies: [
            "Operations", "RepartoTestSupport", .product(name: "Yams", package: "Yams"),
        ], swiftSettings: swiftSettings),
    ]
)
