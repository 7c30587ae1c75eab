import CAllocator
import Testing

/// The allocator thresholds the `geofence` command sets first (Sources/CAllocator): set when the
/// user chose none, left alone when they did. (What they change, the page faults of `run
/// --history`, is measured by `/usr/bin/time` and the bench, not here.)
@Suite struct AllocatorTuningTests {
    @Test func setWhenTheUserChoseNone() {
        #expect(geofence_tune_allocator(nil, nil, nil) == 1)
        #expect(geofence_tune_allocator("glibc.rtld.optional_static_tls=512", nil, nil) == 1)
    }

    @Test(arguments: [
        "glibc.malloc.trim_threshold=1048576",
        "glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=65536",
    ])
    func tunablesOfTheUserAreKept(_ tunables: String) {
        #expect(geofence_tune_allocator(tunables, nil, nil) == 0)
    }

    @Test func variablesOfTheUserAreKept() {
        #expect(geofence_tune_allocator(nil, "1048576", nil) == 0)
        #expect(geofence_tune_allocator(nil, nil, "65536") == 0)
    }
}
