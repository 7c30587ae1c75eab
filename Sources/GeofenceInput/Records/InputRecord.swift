public import Geofence

/// One thing read from tracker output: a fix, a visit, an OwnTracks transition, or a message
/// that was recognised but carries no position.
///
/// The payload is kept out of line (`indirect`): a record is moved a score of times between the
/// line it was read from and the pipeline (out of the decoder's result, into a block, through the
/// order check, into a batch, to its shard), and inline each move of its 145 bytes was a call to
/// `memmove`, about a fifth of replay's cycles on one device. Boxed, a move is one word, for one
/// allocation per record; in paired runs replay took 0.88-0.91 of the time on one device and
/// 0.91-1.00 on 10k devices, `run --history` 1.04. The box is made on a decoding thread and freed
/// on the pipeline's, which costs the allocator's locks (see the README's Benchmarks).
public indirect enum InputRecord: Sendable, Hashable {
    /// A position report.
    case fix(Fix)
    /// A stay at one place, with either end possibly unknown.
    case visit(Visit)
    /// An OwnTracks region transition (`_type: transition`): the phone's own enter/leave
    /// decision, kept so the runtime can log it next to its own events.
    case transition(OwnTracksTransition)
    /// A message that was recognised and deliberately not turned into a fix: an OwnTracks
    /// waypoint definition, a last-will message, a card. `kind` names the message (its `_type`,
    /// or `rec` for a Recorder line whose payload is not JSON), `reason` says why it was skipped.
    case ignored(kind: String, reason: String)

    /// The fix, if this record is one.
    public var fix: Fix? { if case .fix(let fix) = self { fix } else { nil } }
    /// The visit, if this record is one.
    public var visit: Visit? { if case .visit(let visit) = self { visit } else { nil } }
}
