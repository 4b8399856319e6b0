// swift-tools-version:6.0
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// The production types this build runs (docs/adding-a-production-type.md): each is the folder
/// `Sources/Productions/<name>` (its SQL migrations in `Migrations/`, compiled in) with its tests
/// in `Tests/<name>Tests`; the composition root depends on every one. A new type is one line here.
let productionTypes: [(name: String, dependencies: [Target.Dependency])] = [
    ("TableRead", ["Screenplay", "Speech", "SpeechJobs", "Generation", .product(name: "Crypto", package: "swift-crypto")]),
    ("BookImport", ["BookCatalog", "HTTPExchange", .product(name: "AsyncHTTPClient", package: "async-http-client")]),
    ("Analysis", ["Generation", "Providers", "Screenplay"]),
    ("BookshelfScan", ["BookImport", "BookCatalog", "Generation", "Providers", "Speech", .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Crypto", package: "swift-crypto")]),
]

/// What every production type is built from.
let productionKit: [Target.Dependency] = [
    "ProductionKit", "RepartoRuntime", "Postgres", "Assets", "Threading", "RepartoConfiguration", "CommandOptions", "TerminalText", "TextEscaping",
    .product(name: "ArgumentParser", package: "swift-argument-parser"),
    .product(name: "Logging", package: "swift-log"),
]

let package = Package(
    name: "Reparto",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "reparto", targets: ["reparto"]),
        /// The producer API: enqueue typed jobs, look up status, cancel, await results.
        .library(name: "RepartoClient", targets: ["RepartoRuntime"]),
        /// For people who write job kinds: run one job with its effects in a rolled-back transaction.
        .library(name: "RepartoTesting", targets: ["RepartoTesting"]),
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
        // MARK: - Runtime: the C clients, owned threads, configuration, the job runtime, operations
        .systemLibrary(name: "CRabbitMQ", path: "Sources/Runtime/CRabbitMQ", pkgConfig: "librabbitmq", providers: [.apt(["librabbitmq-dev"])]),
        .systemLibrary(name: "CLibPQ", path: "Sources/Runtime/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "Threading", path: "Sources/Runtime/Threading", swiftSettings: swiftSettings),
        // flags > environment > env file; secrets as value or _FILE (not named "Configuration":
        // apple/swift-configuration, which hummingbird and async-http-client depend on, has one)
        .target(name: "RepartoConfiguration", path: "Sources/Runtime/RepartoConfiguration", swiftSettings: swiftSettings),
        .target(name: "AMQP", dependencies: [
            "CRabbitMQ", "Threading",
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Runtime/AMQP", swiftSettings: swiftSettings),
        .target(name: "Postgres", dependencies: [
            "CLibPQ", "Threading",
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Runtime/Postgres", swiftSettings: swiftSettings),
        // (not named "Jobs": swift-server's swift-jobs has a module of that name)
        .target(name: "RepartoRuntime", dependencies: [
            "AMQP", "Postgres", "Threading", "RepartoConfiguration",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], path: "Sources/Runtime/RepartoRuntime", swiftSettings: swiftSettings),
        // metrics, health endpoints, structured logs, the dashboard: how a running cluster is watched
        .target(name: "Operations", dependencies: [
            "RepartoRuntime", "Postgres", "TextEscaping",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], path: "Sources/Runtime/Operations", swiftSettings: swiftSettings),

        // MARK: - Formats: pure readers and writers, no servers
        .target(name: "TextEscaping", path: "Sources/Formats/TextEscaping", swiftSettings: swiftSettings),
        .target(name: "Screenplay", dependencies: ["TextEscaping"], path: "Sources/Formats/Screenplay", swiftSettings: swiftSettings),
        // reading-list exports (Goodreads, LibraryThing, StoryGraph): CSV, ISBN, match keys, duplicates
        .target(name: "BookCatalog", path: "Sources/Formats/BookCatalog", exclude: ["README.md"], swiftSettings: swiftSettings),

        // MARK: - Capabilities: what production types share (assets, providers, speech, generation)
        .systemLibrary(name: "CEspeakNG", path: "Sources/Capabilities/CEspeakNG", providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(name: "CFlite", path: "Sources/Capabilities/CFlite", providers: [.apt(["flite1-dev"])]),
        .target(name: "Assets", dependencies: [
            "Threading",
            .product(name: "Crypto", package: "swift-crypto"),
        ], path: "Sources/Capabilities/Assets", swiftSettings: swiftSettings),
        // The HTTP round trip every HTTP client shares: bodies under a cap, failures, Retry-After, redaction.
        .target(name: "HTTPExchange", dependencies: [
            "RepartoConfiguration",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ], path: "Sources/Capabilities/HTTPExchange", swiftSettings: swiftSettings),
        // generation providers: text, embeddings, images over HTTP (OpenAI-compatible, Anthropic)
        .target(name: "Providers", dependencies: [
            "RepartoConfiguration", "HTTPExchange",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ], path: "Sources/Capabilities/Providers", swiftSettings: swiftSettings),
        // speech engines and voice providers (espeak-ng, flite, OpenAI, ElevenLabs), no database
        .target(name: "Speech", dependencies: [
            "CEspeakNG", "CFlite", "Assets", "Screenplay", "Threading", "RepartoConfiguration", "HTTPExchange", "Providers",
            .product(name: "Yams", package: "Yams"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ], path: "Sources/Capabilities/Speech", swiftSettings: swiftSettings),
        // the speech kind (`speech.synthesize`), the voice providers' switches and gate (migration line `speech`)
        .target(name: "SpeechJobs", dependencies: [
            "Speech", "Generation", "RepartoRuntime", "Postgres", "Assets", "Threading", "RepartoConfiguration",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Crypto", package: "swift-crypto"),
        ], path: "Sources/Capabilities/SpeechJobs", resources: [.embedInCode("Migrations")], swiftSettings: swiftSettings),
        // generation kinds: text.generate, text.embed, image.generate (rows, reuse, usage ledger; line `generation`)
        .target(name: "Generation", dependencies: [
            "RepartoRuntime", "Postgres", "Providers", "Assets", "Threading", "RepartoConfiguration",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
        ], path: "Sources/Capabilities/Generation", resources: [.embedInCode("Migrations")], swiftSettings: swiftSettings),
        // every provider's state in one place (the `provider_states` view, line `providers`): `reparto providers`
        .target(name: "ProviderControl", dependencies: [
            "Providers", "Speech", "SpeechJobs", "Generation", "Postgres", "RepartoConfiguration", "RepartoRuntime",
        ], path: "Sources/Capabilities/ProviderControl", resources: [.embedInCode("Migrations")], swiftSettings: swiftSettings),
        // the asset volume's sweep (`assets.sweep`), asking every production type for its references
        .target(name: "AssetSweep", dependencies: [
            "Assets", "RepartoRuntime", "Postgres", "Threading",
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Capabilities/AssetSweep", swiftSettings: swiftSettings),

        // MARK: - Kit: what production types and the interfaces are built from
        .target(name: "CommandOptions", dependencies: [
            "AMQP", "RepartoRuntime", "Operations", "Postgres", "RepartoConfiguration", "Threading",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Kit/CommandOptions", swiftSettings: swiftSettings),
        // How Reparto's state reads on a terminal: tables, JSON, progress bars, reports.
        .target(name: "TerminalText", dependencies: ["RepartoRuntime", "Postgres", "Screenplay", "Speech", "SpeechJobs", "AssetSweep", "Generation", "Providers", "BookCatalog"],
                path: "Sources/Kit/TerminalText", swiftSettings: swiftSettings),
        // The one shape of a production type (`ProductionType`).
        .target(name: "ProductionKit", dependencies: [
            "RepartoRuntime", "Postgres", "Assets", "RepartoConfiguration", "CommandOptions", "TerminalText",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Kit/ProductionKit", swiftSettings: swiftSettings),
        // rivertest / Oban.Testing for Reparto: one job, its effects in a transaction rolled back
        .target(name: "RepartoTesting", dependencies: [
            "RepartoRuntime", "Postgres",
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Kit/RepartoTesting", swiftSettings: swiftSettings),
    ]
    // MARK: - Productions: one folder each, one shape (ProductionKit)
    + productionTypes.map { type in
        .target(name: type.name, dependencies: productionKit + type.dependencies, path: "Sources/Productions/\(type.name)",
                exclude: ["README.md"], resources: [.embedInCode("Migrations")], swiftSettings: swiftSettings)
    }
    + [
        // MARK: - Interfaces: the composition root, the CLI, benchmarks
        // the production types and capabilities this build runs (the one list: `ProductionTypes.all`)
        .target(name: "Composition", dependencies: [
            "AMQP", "Assets", "AssetSweep", "RepartoRuntime", "Operations", "Postgres", "Speech", "SpeechJobs", "RepartoConfiguration",
            "Threading", "Generation", "Providers", "ProviderControl", "ProductionKit",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ] + productionTypes.map { .target(name: $0.name) }, path: "Sources/Interfaces/Composition", swiftSettings: swiftSettings),
        .target(name: "RepartoBench", dependencies: [
            "CommandOptions", "Composition", "TerminalText", "RepartoConfiguration", "RepartoRuntime", "Postgres", "Screenplay", "Speech",
            "SpeechJobs", "AMQP", "Threading", "ProductionKit", "TableRead", "BookImport", "Analysis",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Histogram", package: "hdrhistogram-swift"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Interfaces/RepartoBench", swiftSettings: swiftSettings),
        .target(name: "RepartoCLI", dependencies: [
            "CommandOptions", "RepartoRuntime", "Postgres", "AMQP", "Screenplay", "Speech", "SpeechJobs", "Operations", "RepartoBench",
            "RepartoConfiguration", "Composition", "TerminalText", "Threading", "Generation", "Providers", "ProviderControl", "ProductionKit",
            "AssetSweep", "TableRead",  // `reparto run` is the table read in one process
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], path: "Sources/Interfaces/RepartoCLI", swiftSettings: swiftSettings),
        .executableTarget(name: "reparto", dependencies: ["RepartoCLI"], path: "Sources/Interfaces/reparto", swiftSettings: swiftSettings),

        // MARK: - Tests
        .target(name: "RepartoTestSupport", dependencies: ["RepartoRuntime", "AMQP", "RepartoConfiguration"], path: "Tests/Support", swiftSettings: swiftSettings),
        .testTarget(name: "RepartoConfigurationTests", dependencies: [
            "RepartoConfiguration", .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        .testTarget(name: "ScreenplayTests", dependencies: ["Screenplay"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "BookCatalogTests", dependencies: ["BookCatalog"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "AssetsTests", dependencies: ["Assets"], swiftSettings: swiftSettings),
        .testTarget(name: "SpeechTests", dependencies: ["Speech", "Threading", "Assets", "Screenplay", "RepartoConfiguration", "RepartoTestSupport", "HTTPExchange"], swiftSettings: swiftSettings),
        .testTarget(name: "GenerationTests", dependencies: ["Generation", "Providers", "Analysis", "Screenplay", "RepartoRuntime", "RepartoTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "ProvidersTests", dependencies: ["Providers", "RepartoConfiguration", "RepartoTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "RepartoTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "AMQPTests", dependencies: ["AMQP", "RepartoTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "RepartoRuntimeTests", dependencies: ["RepartoRuntime", "RepartoTestSupport", .product(name: "Logging", package: "swift-log")], swiftSettings: swiftSettings),
        .testTarget(name: "ThreadingTests", dependencies: ["Threading"], swiftSettings: swiftSettings),
        .testTarget(name: "RepartoBenchTests", dependencies: ["RepartoBench"], swiftSettings: swiftSettings),
        .testTarget(name: "IntegrationTests", dependencies: [
            "RepartoRuntime", "RepartoCLI", "Postgres", "AMQP", "BookCatalog", "TerminalText", "Screenplay", "Speech", "SpeechJobs",
            "Assets", "AssetSweep", "Operations", "RepartoConfiguration", "RepartoTestSupport", "RepartoTesting", "Threading",
            "Generation", "Providers", "ProviderControl", "ProductionKit", "Composition",
        ] + productionTypes.map { .target(name: $0.name) }, exclude: ["Fixtures"], swiftSettings: swiftSettings),
        .testTarget(name: "OperationsTests", dependencies: ["Operations", "RepartoRuntime", "Generation", "RepartoTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "DeployTests", dependencies: [
            "Operations", "RepartoTestSupport", .product(name: "Yams", package: "Yams"),
        ], swiftSettings: swiftSettings),
    ]
    // A production type's own tests: unit tests, and its handlers through RepartoTesting.
    + productionTypes.map { type in
        .testTarget(name: "\(type.name)Tests", dependencies: [.target(name: type.name), "RepartoTesting", "RepartoTestSupport", "Composition"]
                        + productionKit + type.dependencies, swiftSettings: swiftSettings)
    }
)
