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

        // Location types, geometry, conditions, the monitor and the visit detector.
        .target(name: "Geofence", dependencies: ["CGEOS"]),

        // The command line.
        .executableTarget(name: "geofence", dependencies: ["Geofence"]),

        // Micro-benchmarks, printed by `make bench`; never timed inside `swift test`.
        .executableTarget(
            name: "geofence-bench",
            dependencies: ["Geofence"],
            path: "Sources/GeofenceBench"
        ),

        // A small program that uses the library directly, as an app developer would.
        .executableTarget(name: "monitor-example", dependencies: ["Geofence"], path: "Examples/MonitorExample"),

        .testTarget(name: "GeofenceTests", dependencies: ["Geofence"]),
    ],
    swiftLanguageModes: [.v6]
)
