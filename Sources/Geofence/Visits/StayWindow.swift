import Foundation

/// The fixes of one candidate or confirmed stay, kept as running sums so that adding a fix costs the
/// same however long the stay has lasted.
///
/// Positions are projected into a local metric frame centred on the anchor (the window's first fix),
/// so the anchor is the origin and a fix's distance from it is the length of its projection.
struct StayWindow: Sendable {
    /// The first fix of the window: the stay's arrival.
    let anchor: Fix
    /// The plane around the anchor that the sums are kept in; rebuilt from the anchor when decoded.
    let frame: LocalFrame
    /// How many fixes are inside the window (strays excluded).
    private(set) var count: Int
    /// The centroid of the fixes inside, in the frame.
    private(set) var mean: PlanePoint
    /// Welford's sum of squared deviations from the mean, both axes together: numerically stable
    /// where the textbook sum of squares minus the square of the sum is not.
    private(set) var squaredDeviations: Double
    /// The sum of the reported accuracies of the fixes inside that carried one, and their number.
    private(set) var accuracySum: Double
    private(set) var accuracyCount: Int
    /// When the last fix inside was taken: the departure if the stay ends now.
    private(set) var lastInside: Date
    /// The consecutive fixes outside the radius since the last fix inside, oldest first.
    var strays: [Fix]
    /// The visit reported when the window became a stay; `nil` while it is a candidate.
    private(set) var visit: Visit?
    /// The visit's coordinate in the frame, to measure the spread around it when the stay ends.
    private var visitPoint: PlanePoint

    /// Starts a window at a fix.
    init(anchor: Fix) {
        self.anchor = anchor
        self.frame = LocalFrame(origin: anchor.coordinate)
        self.count = 1
        self.mean = PlanePoint(x: 0, y: 0)
        self.squaredDeviations = 0
        self.accuracySum = anchor.horizontalAccuracy ?? 0
        self.accuracyCount = anchor.horizontalAccuracy == nil ? 0 : 1
        self.lastInside = anchor.timestamp
        self.strays = []
        self.visit = nil
        self.visitPoint = PlanePoint(x: 0, y: 0)
    }

    /// Whether the window has lasted long enough to be a stay and has been reported.
    var isStay: Bool { visit != nil }

    /// The distance in metres from a point in the frame to the centroid of the window's fixes.
    func distance(to point: PlanePoint) -> Double {
        let dx = point.x - mean.x, dy = point.y - mean.y
        return (dx * dx + dy * dy).squareRoot()
    }

    /// What a fix did to the window (``take(_:configuration:)``).
    enum Step {
        /// It was taken inside, or held back as a stray.
        case kept
        /// It was taken inside and made the window a stay: the opening report.
        case confirmed(Visit)
        /// It makes leaving certain: the window ends, and its strays are judged again.
        case left
    }

    /// Takes the next fix: inside the radius around the centroid it joins the window (and may make
    /// it a stay); outside it is held back as a stray, until the strays are too many or have lasted
    /// a stay's length, when leaving is certain.
    mutating func take(_ fix: Fix, configuration: VisitDetector.Configuration) -> Step {
        let point = frame.project(fix.coordinate)
        if distance(to: point) <= configuration.radiusMeters {
            if !strays.isEmpty { strays.removeAll(keepingCapacity: true) }
            add(point, of: fix)
            if !isStay, fix.timestamp.timeIntervalSince(anchor.timestamp) >= configuration.minimumStaySeconds
            {
                return .confirmed(confirm())
            }
            return .kept
        }
        strays.append(fix)
        let strayRun = fix.timestamp.timeIntervalSince(strays[0].timestamp)
        if strays.count <= configuration.maxStrays, strayRun < configuration.minimumStaySeconds {
            return .kept
        }
        return .left
    }

    /// Takes a fix inside the radius into the window.
    mutating func add(_ point: PlanePoint, of fix: Fix) {
        count += 1
        let n = Double(count)
        let dx = point.x - mean.x, dy = point.y - mean.y
        mean.x += dx / n
        mean.y += dy / n
        squaredDeviations += dx * (point.x - mean.x) + dy * (point.y - mean.y)
        if let accuracy = fix.horizontalAccuracy {
            accuracySum += accuracy
            accuracyCount += 1
        }
        lastInside = fix.timestamp
    }

    /// The stay's uncertainty around a point: the root-mean-square distance of its fixes from the
    /// point, but never less than the mean accuracy the fixes reported.
    ///
    /// The floor matters for stays of few fixes: two fixes a few metres apart say little about where
    /// within their 30 m accuracy the person was.
    private func spread(around point: PlanePoint) -> Double {
        let dx = mean.x - point.x, dy = mean.y - point.y
        let rms = (squaredDeviations / Double(count) + dx * dx + dy * dy).squareRoot()
        let meanAccuracy = accuracyCount > 0 ? accuracySum / Double(accuracyCount) : 0
        return Swift.max(rms, meanAccuracy)
    }

    /// Makes the window a stay at its current centroid and returns the open visit to report.
    ///
    /// The coordinate is fixed from here on, so that the closing report carries the same one and a
    /// consumer can pair the two.
    mutating func confirm() -> Visit {
        visitPoint = mean
        let opened = Visit(
            coordinate: frame.unproject(mean), horizontalAccuracy: spread(around: mean),
            arrival: anchor.timestamp, departure: nil)
        visit = opened
        return opened
    }

    /// The closing report of the stay, departing at its last fix inside; `nil` for a candidate.
    ///
    /// Its accuracy is the spread of all the stay's fixes around the reported coordinate, which by
    /// now is a better measure than the one in the opening report.
    func closedVisit() -> Visit? {
        guard var closed = visit else { return nil }
        closed.departure = lastInside
        closed.horizontalAccuracy = spread(around: visitPoint)
        return closed
    }
}

extension StayWindow: Codable {
    private enum CodingKeys: String, CodingKey {
        case anchor, count, meanX, meanY, squaredDeviations, accuracySum, accuracyCount, lastInside, strays,
            visit, visitX, visitY
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        anchor = try c.decode(Fix.self, forKey: .anchor)
        frame = LocalFrame(origin: anchor.coordinate)
        count = try c.decode(Int.self, forKey: .count)
        guard count >= 1 else {
            throw DecodingError.dataCorruptedError(
                forKey: .count, in: c, debugDescription: "a stay window holds at least its anchor")
        }
        mean = PlanePoint(
            x: try c.decode(Double.self, forKey: .meanX), y: try c.decode(Double.self, forKey: .meanY))
        squaredDeviations = try c.decode(Double.self, forKey: .squaredDeviations)
        accuracySum = try c.decode(Double.self, forKey: .accuracySum)
        accuracyCount = try c.decode(Int.self, forKey: .accuracyCount)
        lastInside = try c.decode(Date.self, forKey: .lastInside)
        strays = try c.decode([Fix].self, forKey: .strays)
        visit = try c.decodeIfPresent(Visit.self, forKey: .visit)
        visitPoint = PlanePoint(
            x: try c.decode(Double.self, forKey: .visitX), y: try c.decode(Double.self, forKey: .visitY))
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(anchor, forKey: .anchor)
        try c.encode(count, forKey: .count)
        try c.encode(mean.x, forKey: .meanX)
        try c.encode(mean.y, forKey: .meanY)
        try c.encode(squaredDeviations, forKey: .squaredDeviations)
        try c.encode(accuracySum, forKey: .accuracySum)
        try c.encode(accuracyCount, forKey: .accuracyCount)
        try c.encode(lastInside, forKey: .lastInside)
        try c.encode(strays, forKey: .strays)
        try c.encodeIfPresent(visit, forKey: .visit)
        try c.encode(visitPoint.x, forKey: .visitX)
        try c.encode(visitPoint.y, forKey: .visitY)
    }
}
