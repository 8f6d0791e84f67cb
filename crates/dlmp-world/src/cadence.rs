//! Which recipients a world kind reconciles this pass, for the kinds the page lets
//! reconcile less than every tick (world.md Label3D: "on every change of a label and once
//! a second"; blips by ADR 0045; pickups by ADR 0077): the recipients
//! [`mark`](Cadence::mark)ed (a new connection, a spawn, a scope change, a parent's
//! visibility, a change near them: ADR 0077), everyone when a kind asks, and a rotating
//! share of the slots, so each recipient is reconciled at least once a second and a quiet
//! tick costs a share of the full pass.

use std::time::Duration;

use dlmp_protocol::ids::PlayerId;

/// The state between passes.
#[derive(Debug, Clone, Default)]
pub struct Cadence {
    pass: u64,
    share: u64,
    everyone: bool,
    marked: Vec<bool>,
    /// Marked for the next pass (a recipient whose shows the lane refused).
    next: Vec<PlayerId>,
}

impl Cadence {
    /// Starts a pass at ticks of `step`: the rotation goes through every slot in a second.
    pub fn begin(&mut self, step: Duration) {
        let per_second = (1.0 / step.as_secs_f64().max(1e-6)).floor();
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "a tick rate, clamped to 1.."
        )]
        let share = per_second.max(1.0) as u64;
        self.share = share;
        self.pass = self.pass.wrapping_add(1);
    }

    /// The kind changed: every recipient this pass.
    pub fn everyone(&mut self) {
        self.everyone = true;
    }

    /// This recipient this pass.
    pub fn mark(&mut self, id: PlayerId) {
        let i = id.0 as usize;
        if self.marked.len() <= i {
            self.marked.resize(i + 1, false);
        }
        self.marked[i] = true;
    }

    /// Whether `id` is reconciled this pass.
    pub fn due(&self, id: PlayerId) -> bool {
        self.everyone
            || self.marked.get(id.0 as usize).copied().unwrap_or(false)
            || u64::from(id.0) % self.share.max(1) == self.pass % self.share.max(1)
    }

    /// Ends the pass: the marks and the change are spent; the marks for the next pass
    /// are set.
    pub fn end(&mut self) {
        self.everyone = false;
        self.marked.iter_mut().for_each(|m| *m = false);
        let next = std::mem::take(&mut self.next);
        for &id in &next {
            self.mark(id);
        }
        self.next = next;
        self.next.clear();
    }

    /// `id` is reconciled next pass (its lane refused a show this pass: ADR 0077).
    pub fn mark_next(&mut self, id: PlayerId) {
        self.next.push(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_slot_is_due_once_a_second_and_a_mark_or_a_change_at_once() {
        let mut c = Cadence::default();
        let step = Duration::from_millis(20);
        let mut due = [0u32; 120];
        for _ in 0..50 {
            c.begin(step);
            for (i, d) in due.iter_mut().enumerate() {
                *d += u32::from(c.due(PlayerId(i as u32)));
            }
            c.end();
        }
        assert!(due.iter().all(|&d| d == 1), "{due:?}");
        c.begin(step);
        c.mark(PlayerId(7));
        let now: Vec<u32> = (0..120).filter(|&i| c.due(PlayerId(i))).collect();
        assert!(now.contains(&7) && now.len() < 10);
        c.everyone();
        assert!((0..120).all(|i| c.due(PlayerId(i))));
        c.end();
        c.begin(step);
        assert!(!c.due(PlayerId(7)) || c.pass % 50 == 7);
        c.mark_next(PlayerId(9));
        c.end();
        c.begin(step);
        assert!(c.due(PlayerId(9)), "marked for this pass by the last");
        c.end();
        c.begin(step);
        assert!(!c.due(PlayerId(9)) || c.pass % 50 == 9);
    }
}
