public import Geofence

/// One thing read from tracker output: a fix, a visit, an OwnTracks transition, or a message
/// that was recognised but carries no position.
///
/// A fix, almost every record, is kept inline; the rarer payloads are kept out of line
/// (`indirect`), so that they do not make every record larger.
///
/// The fix was boxed too once, when a record was moved a score of times between its line and the
/// pipeline and each move of it inline was a call to `memmove` (about a fifth of replay's cycles
/// on one device then). Those moves are few now, and the box had become the larger cost: an
/// allocation on a decoding thread and a free on another for every fix, under the allocator's
/// locks, and a reference count that the pipeline's thread wrote on a cache line the decoding
/// thread had just written. Inline, replay took 0.955 of the time on one device (21 pairs) and
/// 0.95 on 10k devices (9 pairs), with 1.5% fewer instructions.
public enum InputRecord: Sendable, Hashable {
    /// A position report.
    case fix(Fix)
    /// A stay at one place, with either end possibly unknown.
    indirect case visit(Visit)
    /// An OwnTracks region transition (`_type: transition`): the phone's own enter/leave
    /// decision, kept so the runtime can log it next to its own events.
    indirect case transition(OwnTracksTransition)
    /// A message that was recognised and deliberately not turned into a fix: an OwnTracks
    /// waypoint definition, a last-will message, a card. `kind` names the message (its `_type`,
    /// or `rec` for a Recorder line whose payload is not JSON), `reason` says why it was skipped.
    indirect case ignored(kind: String, reason: String)

    /// The fix, if this record is one.
    public var fix: Fix? { if case .fix(let fix) = self { fix } else { nil } }
    /// The visit, if this record is one.
    public var visit: Visit? { if case .visit(let visit) = self { visit } else { nil } }
}
