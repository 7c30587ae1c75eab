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

        // Location types, geometry, conditions, the monitor and the visit detector.
        .target(name: "Geofence", dependencies: ["CGEOS"]),

        // The rules file, triggers, guards, reminders and commutes: events in, actions out.
        .target(name: "GeofenceRules", dependencies: ["Geofence", "CYAML"]),

        // The command line.
        .executableTarget(name: "geofence", dependencies: ["Geofence", "GeofenceRules"]),

        // Micro-benchmarks, printed by `make bench`; never timed inside `swift test`.
        .executableTarget(
            name: "geofence-bench",
            dependencies: ["Geofence"],
            path: "Sources/GeofenceBench"
        ),

        .testTarget(name: "GeofenceTests", dependencies: ["Geofence"]),
        .testTarget(name: "GeofenceRulesTests", dependencies: ["GeofenceRules"]),
    ],
    swiftLanguageModes: [.v6]
)
