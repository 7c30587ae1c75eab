// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "geofence",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Geofence", targets: ["Geofence"]),
        .executable(name: "geofence", targets: ["geofence"]),
    ],
    targets: [
        // C libraries from Debian, each behind one Swift folder.
        .systemLibrary(
            name: "CGEOS",
            pkgConfig: "geos",
            providers: [.apt(["libgeos-dev"])]
        ),
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .systemLibrary(
            name: "CNATS",
            pkgConfig: "libnats",
            providers: [.apt(["libnats-dev"])]
        ),
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // zlib, only for the report tests, which decode Chromium's screenshots (PNG is deflate).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        // posix_spawn's glibc extensions (closefrom, chdir), pipe2 and waitid's siginfo fields are
        // hidden behind _GNU_SOURCE or macros Swift cannot import; this tiny C target exposes them.
        .target(name: "CSpawn"),

        // libgps (gpsd's client) behind a small C file: gps.h's unions and 64-bit mask macros stay
        // on the C side, and Swift sees one plain struct per report. The file loads libgps on the
        // first connection (linked, it and the libraries under it were loaded by every command).
        .target(name: "CGPS", dependencies: ["CLibraryLoader"], linkerSettings: [.linkedLibrary("m")]),

        // libcurl (the `post:` action) behind a small C file that loads it on the first POST:
        // linked, it and the thirty-odd libraries it needs were loaded by every command.
        .target(name: "CCurl", dependencies: ["CLibraryLoader"]),
        // libmicrohttpd (`run --http`) likewise, loaded when a server starts.
        .target(name: "CMicroHTTPD", dependencies: ["CLibraryLoader"]),
        // dlopen and dlsym for the three above.
        .target(name: "CLibraryLoader"),

        // glibc's malloc thresholds, set once by the `geofence` command (see CAllocator.c).
        .target(name: "CAllocator"),

        // The processor's prefetch hint, which Swift cannot name: one inline function in a header.
        .target(name: "CPrefetch"),

        // Location types, geometry, conditions, the monitor and the visit detector.
        .target(name: "Geofence", dependencies: ["CGEOS", "CPrefetch"]),

        // Synthetic days and traces with seeded noise, for `geofence simulate`, the benchmarks and
        // the tests; not part of the library an app links.
        .target(name: "GeofenceSimulation", dependencies: ["Geofence"]),

        // Tracker output (NDJSON, OwnTracks, Recorder .rec, GPX, CSV) read into fixes and visits.
        .target(name: "GeofenceInput", dependencies: ["Geofence"]),

        // The rules file, triggers, guards, reminders and commutes: events in, actions out.
        .target(name: "GeofenceRules", dependencies: ["Geofence", "GeofenceInput", "CYAML", "CPrefetch"]),

        // The headless runtime: the SQLite store, the hook runner, the MQTT client, the long-running loop.
        .target(
            name: "GeofenceRuntime",
            dependencies: [
                "Geofence", "GeofenceInput", "GeofenceRules", "CSQLite", "CSpawn", "CMosquitto",
                "CMicroHTTPD", "CCurl",
                "CSodium", "CGPS", "CNATS",
            ]),

        // `geofence report`: what the engine decided, as one self-contained HTML page.
        .target(
            name: "GeofenceReport",
            dependencies: ["Geofence", "GeofenceInput", "GeofenceRules", "GeofenceRuntime"]),

        // The command line.
        .executableTarget(
            name: "geofence",
            dependencies: [
                "Geofence", "GeofenceInput", "GeofenceRules", "GeofenceRuntime", "GeofenceReport",
                "GeofenceSimulation", "CAllocator",
            ]),

        // Micro-benchmarks, printed by `make bench`; never timed inside `swift test`.
        .executableTarget(
            name: "geofence-bench",
            dependencies: ["Geofence", "GeofenceInput", "GeofenceRules", "GeofenceSimulation"],
            path: "Sources/GeofenceBench"
        ),

        // A small program that uses the library directly, as an app developer would.
        .executableTarget(
            name: "monitor-example", dependencies: ["Geofence", "GeofenceSimulation"],
            path: "Examples/MonitorExample"),

        // What the test suites share: running the built executable, temporary directories.
        .target(name: "TestSupport", path: "Tests/TestSupport"),

        .testTarget(name: "GeofenceTests", dependencies: ["Geofence", "GeofenceSimulation", "TestSupport"]),
        .testTarget(
            name: "GeofenceInputTests",
            dependencies: ["GeofenceInput", "GeofenceSimulation"],
            resources: [.copy("Data")]
        ),
        .testTarget(name: "GeofenceRulesTests", dependencies: ["GeofenceRules", "GeofenceSimulation"]),
        .testTarget(
            name: "GeofenceRuntimeTests",
            dependencies: [
                "GeofenceRuntime", "GeofenceSimulation", "TestSupport", "CLibraryLoader", "CAllocator",
            ]),
        // Renders reports in headless Chromium (Debian's `chromium`, installed by `make setup`).
        .testTarget(
            name: "GeofenceReportTests", dependencies: ["GeofenceReport", "GeofenceSimulation", "CZlib"]),
        // Runs the built `geofence` executable as a child process: the acceptance tests of `run`.
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["GeofenceRuntime", "GeofenceRules", "GeofenceSimulation", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// As swift-log does: an import is internal unless it says `public import`, so a module's API
// cannot leak another module by accident, and a member is visible only where its module is imported.
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("InternalImportsByDefault"),
            .enableUpcomingFeature("MemberImportVisibility"),
        ]
}
