import Foundation
import Geofence
import GeofenceSimulation

// Region logic tested off-device: four places, a monitor, the synthetic day as a recorded trace,
// and the events as they come. Run with `swift run monitor-example`.

let day = SyntheticDay()
let monitor = Monitor(name: "example")

for place in SyntheticDay.Place.allCases {
    do {
        let circle = try CircularCondition(center: day.coordinate(of: place), radiusMeters: 150)
        // Dwell events after 30 minutes in a place; the other settings are the documented defaults.
        await monitor.add(
            .circle(circle), identifier: place.rawValue, hysteresis: Hysteresis(dwellSeconds: 30 * 60))
    } catch {
        print("cannot make \(place.rawValue): \(error)")
    }
}

// Print events while the trace is fed in; the loop ends when the monitor is finished.
let printer = Task {
    let formatter = DateFormatter()
    formatter.dateFormat = "HH:mm:ss"
    formatter.timeZone = day.timeZone
    for await event in monitor.events {
        let what: String
        if event.kind == .dwell {
            what = "dwelling at"
        } else if event.isFirstDetermination {
            what = event.state == .satisfied ? "starting at" : "not at"
        } else {
            what = event.state == .satisfied ? "entered" : "left"
        }
        let confirmed = formatter.string(from: event.confirmedAt)
        print("\(formatter.string(from: event.date))  \(what) \(event.identifier)  (confirmed \(confirmed))")
    }
}

// One batch: a single actor hop for the whole day.
await monitor.ingest(day.fixes())
await monitor.finish()
await printer.value

let filter = await monitor.state.filter
print("\(filter.accepted) fixes accepted, \(filter.droppedTotal) dropped")
