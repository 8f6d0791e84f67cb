//! The receiving half of a reliable event lane (connection.md §3): applies events strictly
//! in order and says what to acknowledge. The server runs one per client for the
//! client → server stream; test clients run one for the server → client stream.

use crate::ids::EventId;
use crate::serial::Serial;

/// What to do with a received reliable event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The next event expected: apply it now.
    Apply,
    /// Already applied (or older): do not apply.
    Duplicate,
    /// An event past the next one expected (one before it was lost or is late): do not
    /// apply; the sender goes back to the gap.
    Future,
}

/// The receiver of one reliable event stream.
///
/// ```
/// # use dlmp_protocol::lane::{InboundLane, Verdict};
/// # use dlmp_protocol::ids::EventId;
/// let mut lane = InboundLane::new();
/// assert_eq!(lane.receive(EventId(2)), (Verdict::Future, EventId(0)));
/// assert_eq!(lane.receive(EventId(1)), (Verdict::Apply, EventId(1)));
/// assert_eq!(lane.receive(EventId(1)), (Verdict::Duplicate, EventId(1)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InboundLane {
    last_applied: EventId,
}

impl Default for InboundLane {
    fn default() -> Self {
        Self::new()
    }
}

impl InboundLane {
    /// A receiver expecting event 1 first.
    pub fn new() -> Self {
        Self::starting_at(EventId(1))
    }

    /// A receiver expecting `first` first. The protocol always starts at 1
    /// ([`new`](Self::new)); other starts exist to test the wrap of ids.
    pub fn starting_at(first: EventId) -> Self {
        Self {
            last_applied: EventId(first.0.wrapping_sub(1)),
        }
    }

    /// Judges a received reliable event and returns the ack to send for it: the last
    /// event applied, in order (sent on every reliable packet, applied or not).
    pub fn receive(&mut self, id: EventId) -> (Verdict, EventId) {
        let expected = self.last_applied.next();
        let verdict = if id == expected {
            self.last_applied = id;
            Verdict::Apply
        } else if id.is_newer_than(expected) {
            Verdict::Future
        } else {
            Verdict::Duplicate
        };
        (verdict, self.last_applied)
    }

    /// The last event applied: what an ack says now.
    pub fn last_applied(&self) -> EventId {
        self.last_applied
    }

    /// The event id that will be applied next.
    pub fn expected(&self) -> EventId {
        self.last_applied.next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[test]
    fn applies_in_order_from_one() {
        let mut lane = InboundLane::new();
        assert_eq!(lane.expected(), EventId(1));
        for i in 1..=5 {
            assert_eq!(lane.receive(EventId(i)), (Verdict::Apply, EventId(i)));
        }
        assert_eq!(lane.last_applied(), EventId(5));
    }

    #[rstest]
    #[case::zero(0, Verdict::Duplicate)]
    #[case::repeat(3, Verdict::Duplicate)]
    #[case::old(1, Verdict::Duplicate)]
    #[case::skip_one(5, Verdict::Future)]
    #[case::far_future(1000, Verdict::Future)]
    #[case::half_range_away(4 + (1 << 31), Verdict::Duplicate)]
    fn not_applied(#[case] id: u32, #[case] verdict: Verdict) {
        let mut lane = InboundLane::new();
        for i in 1..=3 {
            lane.receive(EventId(i));
        }
        assert_eq!(lane.receive(EventId(id)), (verdict, EventId(3)));
        assert_eq!(lane.expected(), EventId(4));
    }

    #[test]
    fn a_future_event_is_applied_only_when_it_comes_again_in_turn() {
        let mut lane = InboundLane::new();
        assert_eq!(lane.receive(EventId(2)), (Verdict::Future, EventId(0)));
        assert_eq!(lane.receive(EventId(1)), (Verdict::Apply, EventId(1)));
        assert_eq!(lane.receive(EventId(3)), (Verdict::Future, EventId(1)));
        assert_eq!(lane.receive(EventId(2)), (Verdict::Apply, EventId(2)));
    }

    #[test]
    fn wraps_across_u32_max() {
        let mut lane = InboundLane::starting_at(EventId(u32::MAX));
        assert_eq!(
            lane.receive(EventId(0)),
            (Verdict::Future, EventId(u32::MAX - 1))
        );
        assert_eq!(
            lane.receive(EventId(u32::MAX)),
            (Verdict::Apply, EventId(u32::MAX))
        );
        assert_eq!(lane.receive(EventId(0)), (Verdict::Apply, EventId(0)));
        assert_eq!(
            lane.receive(EventId(u32::MAX)),
            (Verdict::Duplicate, EventId(0))
        );
        assert_eq!(lane.receive(EventId(1)), (Verdict::Apply, EventId(1)));
    }
}
