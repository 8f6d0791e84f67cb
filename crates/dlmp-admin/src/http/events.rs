//! The live updates (ADR 0100): server-sent events, at most [`PER_SECOND`] a second per
//! connection. A stream makes its next event only when the connection asks for it, so a
//! browser that reads slowly holds nothing queued; one that has not asked for
//! [`SLOW_AFTER`] (every stream sends at least once a second) is dropped, and so is a log
//! reader that fell behind the ring.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::response::sse::{Event, Sse};
use futures_util::Stream;
use serde::Serialize;
use tokio::sync::watch;

use crate::snapshot::Snapshot;
use dlmp_ops::logs::{LogLine, Stream as LogStream, tap};

/// Events a stream sends a second at most.
pub const PER_SECOND: u32 = 4;
/// A connection that did not ask for its next event for this long is dropped.
pub const SLOW_AFTER: Duration = Duration::from_secs(10);
/// Event streams open at once, all admins together.
pub const MAX_STREAMS: usize = 64;
/// Log lines one event carries at most.
const LINES_PER_EVENT: usize = 200;
/// The lines a new log reader gets first.
const BACKLOG: usize = 300;
/// A stream sends at least this often (the snapshot again, or an empty batch).
const HEARTBEAT: Duration = Duration::from_secs(1);

/// Counts open streams; the count drops with the stream.
#[derive(Debug)]
pub(super) struct StreamSlot(Arc<AtomicUsize>);

impl StreamSlot {
    /// A slot, or `None` when [`MAX_STREAMS`] are open.
    pub(super) fn take(open: &Arc<AtomicUsize>) -> Option<Self> {
        let now = open.fetch_add(1, Ordering::AcqRel);
        if now >= MAX_STREAMS {
            open.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(StreamSlot(Arc::clone(open)))
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What a snapshot stream sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum View {
    /// The dashboard's numbers and history.
    Dashboard,
    /// Players and vehicles with their places.
    Map,
}

#[derive(Serialize)]
struct MapMark<'a> {
    id: u32,
    name: &'a str,
    x: f32,
    y: f32,
    z: f32,
    world: u32,
    interior: u8,
}

#[derive(Serialize)]
struct MapEvent<'a> {
    version: u64,
    players: Vec<MapMark<'a>>,
    vehicles: Vec<MapMark<'a>>,
}

fn render(view: View, s: &Snapshot) -> String {
    let json = match view {
        View::Dashboard => serde_json::to_string(&s.health),
        View::Map => serde_json::to_string(&MapEvent {
            version: s.version,
            players: s
                .players
                .iter()
                .filter_map(|p| {
                    let [x, y, z] = p.position?;
                    Some(MapMark {
                        id: p.id,
                        name: &p.name,
                        x,
                        y,
                        z,
                        world: p.virtual_world,
                        interior: p.interior,
                    })
                })
                .collect(),
            vehicles: s
                .vehicles
                .iter()
                .map(|v| MapMark {
                    id: v.id,
                    name: if v.model_name.is_empty() {
                        "vehicle"
                    } else {
                        &v.model_name
                    },
                    x: v.position[0],
                    y: v.position[1],
                    z: v.position[2],
                    world: v.virtual_world,
                    interior: v.interior,
                })
                .collect(),
        }),
    };
    json.unwrap_or_else(|_| "{}".to_owned())
}

struct SnapshotState {
    snapshots: watch::Receiver<Arc<Snapshot>>,
    view: View,
    last: Option<Instant>,
    _slot: StreamSlot,
}

/// The snapshot as `view` for each new snapshot (at most [`PER_SECOND`] a second), and
/// again every [`HEARTBEAT`] without one.
pub(super) fn snapshots(
    snapshots: watch::Receiver<Arc<Snapshot>>,
    view: View,
    slot: StreamSlot,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let state = SnapshotState {
        snapshots,
        view,
        last: None,
        _slot: slot,
    };
    let stream = futures_util::stream::unfold(state, |mut st| async move {
        if let Some(last) = st.last {
            if last.elapsed() > SLOW_AFTER {
                return None;
            }
            let gap = Duration::from_secs(1) / PER_SECOND;
            tokio::time::sleep(gap.saturating_sub(last.elapsed())).await;
            // A new snapshot, or the heartbeat; a closed channel ends the stream.
            if let Ok(Err(_)) = tokio::time::timeout(HEARTBEAT, st.snapshots.changed()).await {
                return None;
            }
        }
        st.last = Some(Instant::now());
        let data = render(st.view, &st.snapshots.borrow_and_update());
        Some((Ok(Event::default().event("snapshot").data(data)), st))
    });
    Sse::new(stream)
}

#[derive(Serialize)]
struct Line<'a> {
    seq: u64,
    at_ms: i64,
    level: &'a str,
    target: &'a str,
    text: &'a str,
}

fn lines_json(lines: &[LogLine]) -> String {
    let list: Vec<Line<'_>> = lines
        .iter()
        .map(|l| Line {
            seq: l.seq,
            at_ms: l.at_ms,
            level: l.level,
            target: &l.target,
            text: &l.text,
        })
        .collect();
    serde_json::to_string(&list).unwrap_or_else(|_| "[]".to_owned())
}

struct LogState {
    stream: LogStream,
    next: Option<u64>,
    last: Option<Instant>,
    _slot: StreamSlot,
}

/// The log `stream` as it happens: the last lines first, then batches of new ones.
pub(super) fn log(
    stream: LogStream,
    slot: StreamSlot,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let state = LogState {
        stream,
        next: None,
        last: None,
        _slot: slot,
    };
    let stream = futures_util::stream::unfold(state, |mut st| async move {
        let since = match st.next {
            None => tap().last(st.stream, BACKLOG),
            Some(from) => {
                let last = st.last.unwrap_or_else(Instant::now);
                if last.elapsed() > SLOW_AFTER {
                    return None;
                }
                let gap = Duration::from_secs(1) / PER_SECOND;
                tokio::time::sleep(gap.saturating_sub(last.elapsed())).await;
                let mut since = tap().since(st.stream, from, LINES_PER_EVENT);
                let quiet_until = Instant::now() + HEARTBEAT;
                while since.lines.is_empty() && since.lost == 0 && Instant::now() < quiet_until {
                    tokio::time::sleep(gap).await;
                    since = tap().since(st.stream, from, LINES_PER_EVENT);
                }
                if since.lost > 0 {
                    // Fell behind the ring: the browser reconnects and starts afresh.
                    return None;
                }
                since
            }
        };
        st.next = Some(since.next);
        st.last = Some(Instant::now());
        Some((
            Ok(Event::default()
                .event("lines")
                .data(lines_json(&since.lines))),
            st,
        ))
    });
    Sse::new(stream)
}
