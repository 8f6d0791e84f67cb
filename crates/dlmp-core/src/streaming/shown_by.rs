//! The players' shown sets turned around: each recipient's shown subjects, from every
//! subject's [`Viewers`] (ADR 0081).
//!
//! The engine decides a recipient against the subjects it is shown (ascending), but
//! player streaming keeps the truth by subject, in `Viewers` (ADR 0008). Turning every
//! subject's bits around each pass walked ~50 000 bits twice on a quiet tick of a crowd
//! (issue 11). The lists are kept here instead, in step with the bits: a subject's bits
//! are compared with the copy this table holds only when they changed, and the reconcile
//! tells the table of each bit it sets or clears itself (bevy does not show a system its
//! own changes). Each list has a [`SetRevision`], bumped at every change, which is what an
//! answer that holds ([`Stability`](super::stable::Stability)) was decided against.

use bevy_ecs::entity::Entity;

use super::stable::SetRevision;
use crate::viewers::Viewers;
use dlmp_protocol::ids::PlayerId;

/// Each recipient slot's shown subjects, and each subject's bits as last seen.
#[derive(Debug, Default)]
pub struct ShownBy {
    /// By recipient slot: its shown subjects, ascending; only recipients live in the pass.
    lists: Vec<Vec<u32>>,
    /// By recipient slot: bumped at every change of its list.
    revisions: Vec<SetRevision>,
    /// By recipient slot: the entity it was live as at the last pass.
    live: Vec<Option<Entity>>,
    /// By subject slot: its entity and its viewers as this table last saw them.
    copies: Vec<Option<(Entity, Viewers)>>,
}

/// A subject's viewers as the pass reads them: the bits, and whether anything but this
/// table's own reconcile may have changed them since the last pass.
#[derive(Debug, Clone, Copy)]
pub struct Bits<'a> {
    pub viewers: &'a Viewers,
    pub changed: bool,
}

impl ShownBy {
    /// The subjects shown to recipient `slot`, ascending.
    pub fn of(&self, slot: usize) -> &[u32] {
        self.lists.get(slot).map_or(&[], Vec::as_slice)
    }

    pub fn revision(&self, slot: usize) -> SetRevision {
        self.revisions.get(slot).copied().unwrap_or_default()
    }

    /// Whether `subject`'s bits hold `recipient`.
    pub fn contains(&self, subject: u32, recipient: PlayerId) -> bool {
        self.copies
            .get(subject as usize)
            .and_then(Option::as_ref)
            .is_some_and(|(_, v)| v.contains(recipient))
    }

    /// The reconcile set `subject`'s bit for `recipient`, a live recipient.
    pub fn shown(&mut self, subject: u32, recipient: u32) {
        if let Some(Some((_, copy))) = self.copies.get_mut(subject as usize) {
            copy.insert(PlayerId(recipient));
        }
        self.list_insert(recipient, subject);
    }

    /// The reconcile cleared `subject`'s bit for `recipient`.
    pub fn hidden(&mut self, subject: u32, recipient: u32) {
        if let Some(Some((_, copy))) = self.copies.get_mut(subject as usize) {
            copy.remove(PlayerId(recipient));
        }
        self.list_remove(recipient, subject);
    }

    /// `gone` left and its bit was cleared from every subject's viewers.
    pub fn left(&mut self, gone: PlayerId) {
        for (_, copy) in self.copies.iter_mut().flatten() {
            copy.remove(gone);
        }
        let slot = gone.0 as usize;
        if let Some(list) = self.lists.get_mut(slot)
            && !list.is_empty()
        {
            list.clear();
            self.bump(slot);
        }
    }

    /// Starts a pass: `recipients` gives each slot's live entity. The bits still naming a
    /// recipient no longer live are stale: `stale(subject, recipient)` hears each. Then
    /// every subject slot is given with [`subject`](Self::subject), and the rest dropped
    /// with [`end`](Self::end).
    pub fn begin(
        &mut self,
        recipients: impl ExactSizeIterator<Item = Option<Entity>>,
        mut stale: impl FnMut(u32, u32),
    ) {
        let slots = recipients.len();
        if self.live.len() < slots {
            self.live.resize(slots, None);
        }
        let mut arrived = Vec::new();
        let mut departed = Vec::new();
        for (r, now) in recipients.chain(std::iter::repeat(None)).enumerate() {
            if r >= self.live.len() {
                break;
            }
            if self.live[r] != now {
                if self.live[r].is_some() {
                    departed.push(r);
                }
                if now.is_some() {
                    arrived.push(r);
                }
                self.live[r] = now;
            }
        }
        for r in departed {
            if let Some(list) = self.lists.get_mut(r) {
                for &s in list.iter() {
                    stale(s, r as u32);
                }
                if !list.is_empty() {
                    list.clear();
                    self.bump(r);
                }
            }
        }
        // A recipient newly live (a new player on its slot) is shown what the bits say.
        for r in arrived {
            let id = PlayerId(r as u32);
            for s in 0..self.copies.len() {
                if self.contains(s as u32, id) {
                    self.list_insert(r as u32, s as u32);
                }
            }
        }
    }

    /// Subject slot `s` as this pass reads it (`None`: no subject); a bit it gained for a
    /// recipient not live is stale.
    pub fn subject(
        &mut self,
        s: usize,
        now: Option<(Entity, Bits<'_>)>,
        mut stale: impl FnMut(u32, u32),
    ) {
        if self.copies.len() <= s {
            self.copies.resize_with(s + 1, || None);
        }
        let subject = s as u32;
        let same = matches!((&self.copies[s], now), (Some((a, _)), Some((b, _))) if *a == b);
        if !same && let Some((_, old)) = self.copies[s].take() {
            for r in old.iter() {
                self.list_remove(r.0, subject);
            }
        }
        let Some((entity, bits)) = now else {
            return;
        };
        if same && !bits.changed {
            return;
        }
        let old = match self.copies[s].take() {
            Some((_, old)) => old,
            None => Viewers::default(),
        };
        for r in old.iter().filter(|&r| !bits.viewers.contains(r)) {
            self.list_remove(r.0, subject);
        }
        for r in bits.viewers.iter().filter(|&r| !old.contains(r)) {
            if self.is_live(r) {
                self.list_insert(r.0, subject);
            } else {
                stale(subject, r.0);
            }
        }
        let mut copy = old;
        copy.clone_from(bits.viewers);
        self.copies[s] = Some((entity, copy));
    }

    /// Ends a pass: subject slots from `slots` on hold no subject.
    pub fn end(&mut self, slots: usize) {
        for s in slots..self.copies.len() {
            self.subject(s, None, |_, _| {});
        }
    }

    fn is_live(&self, r: PlayerId) -> bool {
        self.live.get(r.0 as usize).is_some_and(Option::is_some)
    }

    fn list_insert(&mut self, recipient: u32, subject: u32) {
        let r = recipient as usize;
        if self.lists.len() <= r {
            self.lists.resize_with(r + 1, Vec::new);
        }
        let list = &mut self.lists[r];
        if let Err(at) = list.binary_search(&subject) {
            list.insert(at, subject);
            self.bump(r);
        }
    }

    fn list_remove(&mut self, recipient: u32, subject: u32) {
        let r = recipient as usize;
        let Some(list) = self.lists.get_mut(r) else {
            return;
        };
        if let Ok(at) = list.binary_search(&subject) {
            list.remove(at);
            self.bump(r);
        }
    }

    fn bump(&mut self, r: usize) {
        if self.revisions.len() <= r {
            self.revisions.resize(r + 1, SetRevision::default());
        }
        self.revisions[r].bump();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn viewers(slots: &[u32]) -> Viewers {
        let mut v = Viewers::default();
        for &s in slots {
            v.insert(PlayerId(s));
        }
        v
    }

    fn entity(n: u32) -> Entity {
        Entity::from_raw_u32(n).expect("a valid index")
    }

    /// One pass over `live` recipients (slot i live as entity i + 1 when `live[i]`) with
    /// `subjects` (slot, entity, bits, changed); returns the stale bits heard.
    fn pass(
        t: &mut ShownBy,
        live: &[bool],
        subjects: &[(usize, u32, &Viewers, bool)],
    ) -> Vec<(u32, u32)> {
        let mut stale = Vec::new();
        let recipients: Vec<Option<Entity>> = live
            .iter()
            .enumerate()
            .map(|(i, &l)| l.then(|| entity(i as u32 + 1)))
            .collect();
        t.begin(recipients.into_iter(), |s, r| stale.push((s, r)));
        for s in 0..live.len() {
            let now = subjects
                .iter()
                .find(|(slot, ..)| *slot == s)
                .map(|&(_, e, viewers, changed)| (entity(e), Bits { viewers, changed }));
            t.subject(s, now, |s, r| stale.push((s, r)));
        }
        t.end(live.len());
        stale
    }

    #[test]
    fn the_lists_follow_the_bits_and_each_change_bumps_its_revision() {
        let mut t = ShownBy::default();
        let (a, b) = (viewers(&[1, 2]), viewers(&[0]));
        pass(&mut t, &[true; 3], &[(0, 10, &a, true), (1, 11, &b, true)]);
        assert_eq!(t.of(0), [1]);
        assert_eq!(t.of(1), [0]);
        assert_eq!(t.of(2), [0]);
        let rev = t.revision(1);
        pass(
            &mut t,
            &[true; 3],
            &[(0, 10, &a, false), (1, 11, &b, false)],
        );
        assert_eq!(t.revision(1), rev, "nothing changed");
        let a2 = viewers(&[2]);
        pass(
            &mut t,
            &[true; 3],
            &[(0, 10, &a2, true), (1, 11, &b, false)],
        );
        assert_eq!(t.of(1), [] as [u32; 0]);
        assert_ne!(t.revision(1), rev);
        assert_eq!(t.of(2), [0]);
        t.shown(1, 2);
        assert_eq!(t.of(2), [0, 1]);
        assert!(t.contains(1, PlayerId(2)));
        t.hidden(0, 2);
        assert_eq!(t.of(2), [1]);
        assert!(!t.contains(0, PlayerId(2)));
    }

    #[test]
    fn a_new_entity_on_a_subject_slot_starts_from_its_own_bits() {
        let mut t = ShownBy::default();
        let a = viewers(&[1]);
        pass(&mut t, &[true; 2], &[(0, 10, &a, true)]);
        assert_eq!(t.of(1), [0]);
        let none = Viewers::default();
        pass(&mut t, &[true; 2], &[(0, 20, &none, false)]);
        assert_eq!(t.of(1), [] as [u32; 0], "another subject, unchanged bits");
        pass(&mut t, &[true; 2], &[]);
        assert!(!t.contains(0, PlayerId(1)));
    }

    #[test]
    fn bits_of_a_recipient_not_live_are_stale_once() {
        let mut t = ShownBy::default();
        let a = viewers(&[1, 2]);
        let stale = pass(&mut t, &[true, true, false], &[(0, 10, &a, true)]);
        assert_eq!(stale, [(0, 2)]);
        assert_eq!(t.of(2), [] as [u32; 0]);
        let stale = pass(&mut t, &[true, false, false], &[(0, 10, &a, false)]);
        assert_eq!(stale, [(0, 1)], "a recipient that stopped being live");
        assert_eq!(t.of(1), [] as [u32; 0]);
        let stale = pass(&mut t, &[true, true, true], &[(0, 10, &a, false)]);
        assert!(stale.is_empty());
        assert_eq!(t.of(1), [0], "live again: its bit is there");
        assert_eq!(t.of(2), [0]);
        t.left(PlayerId(1));
        assert_eq!(t.of(1), [] as [u32; 0]);
        assert!(!t.contains(0, PlayerId(1)));
    }
}
