import Foundation
import GeofenceInput
import GeofenceRules

/// `geofence-bench --pipeline RULES INPUT [ROUNDS]`: the pipeline's thread alone. The input is read
/// and decoded once, before the clock starts; then each round runs every record through a fresh
/// one-shard pipeline, in batches as `replay` hands them over, counting the events, and the
/// quickest round and the median are printed. Reading, decoding and printing are left out, so
/// that a change to the pipeline is weighed without the other threads' share of a shared
/// machine's noise.
///
/// `GF_DISTANCES=0,4` makes the rounds take turns looking that many records ahead for the
/// engines (see `Pipeline.prefetchDistance`; 0 looks at nothing), and prints each distance's
/// figures and its rounds against the first distance's, round by round; `GF_FLEET=N` looks ahead
/// from N devices on rather than `Pipeline.prefetchFleet`.
func printPipelineFigures(rulesPath: String, inputPath: String, rounds: Int) throws {
    let rules: RulesFile
    switch RulesLoader.load(path: rulesPath) {
    case .success(let loaded): rules = loaded
    case .failure(let error): throw error
    }
    var records: [InputRecord] = []
    try RecordReader(path: inputPath).read(record: { records.append($0) }, error: { _ in })
    let batch = 512
    var seconds: [Double] = []
    var events = 0
    let asked = (ProcessInfo.processInfo.environment["GF_DISTANCES"] ?? "").split(separator: ",")
        .compactMap { Int($0) }
    let distances = asked.isEmpty ? [4] : asked
    var byDistance: [Int: [Double]] = [:]
    for number in 0..<max(1, rounds) {
        var pipeline = ShardedPipeline(rules: [rules])
        pipeline.prefetchDistance = distances[number % distances.count]
        if let fleet = ProcessInfo.processInfo.environment["GF_FLEET"].flatMap({ Int($0) }) {
            pipeline.prefetchFleet = fleet
        }
        events = 0
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            var start = 0
            while start < records.count {
                let end = min(start + batch, records.count)
                pipeline.process(
                    records, in: start..<end, arrivedAt: nil,
                    render: { _, output in output?.events.count ?? 0 },
                    each: { _, count in events += count })
                start = end
            }
        }
        let round = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        seconds.append(round)
        byDistance[pipeline.prefetchDistance, default: []].append(round)
    }
    for (d, s) in byDistance.sorted(by: { $0.key < $1.key }) {
        let t = s.sorted()
        // Each round against the round of the first distance just before it: the machine's speed
        // drifts over seconds, so a ratio of neighbours says more than the two medians.
        let reference = byDistance[distances[0]] ?? []
        let ratios = zip(s, reference).map { $0 / $1 }.sorted()
        print(
            String(
                format:
                    "  distance %d: quickest %.3f median %.3f; against distance %d, round by round: median %.3f",
                d, t[0], t[t.count / 2], distances[0], ratios.isEmpty ? 0 : ratios[ratios.count / 2]))
    }
    seconds.sort()
    print(
        String(
            format: "pipeline: %d records, %d events; quickest %.3f s, median %.3f s over %d rounds",
            records.count, events, seconds[0], seconds[seconds.count / 2], seconds.count))
}
