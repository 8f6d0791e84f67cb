//! Who sees a subject: the [`Viewers`] bit set every streamed kind keeps (player.md,
//! routing), and the ways to tell them a change ([`tell_viewers`], [`tell_viewers_once`]).

use bevy_ecs::prelude::*;
use bitvec::vec::BitVec;
use dlmp_net::lane::Delivery;
use dlmp_protocol::ids::PlayerId;

use crate::session::{Connection, PlayerIndex};
use crate::streaming::Reshows;

/// Queues `packet` for every recipient `subject` is shown to, the subject excepted: a
/// change of the subject its viewers see (PlayerSpawned, PlayerWasted, the animation
/// packets, PlayerSkills, a rename's PlayerNametag). A normal event (connection.md §3,
/// none of these pages calls it critical): a viewer whose lane is full does not get it,
/// and is marked for a fresh show of the subject instead ([`Reshows`], ADR 0020), so its
/// copy is rebuilt from a whole snapshot once the lane has room. The number of viewers
/// that missed it, for the feature's counter.
pub fn tell_viewers(
    subject: Entity,
    viewers: &Viewers,
    index: &PlayerIndex,
    connections: &mut Query<&mut Connection>,
    reshows: &mut Reshows,
    packet: impl Into<dlmp_protocol::ServerPacket>,
) -> u64 {
    queue_for_viewers(subject, viewers, index, connections, packet.into(), |id| {
        reshows.request(subject, id);
    })
}

/// Queues `packet` as a normal event on the lane of every player `subject` is shown to,
/// the subject excepted, for an event a show does not carry (a projectile, a detonation):
/// a viewer whose lane is full misses it and nothing repeats it, no reshow either. The
/// number of viewers that missed it, for the feature's counter.
pub fn tell_viewers_once(
    subject: Entity,
    viewers: &Viewers,
    index: &PlayerIndex,
    connections: &mut Query<&mut Connection>,
    packet: impl Into<dlmp_protocol::ServerPacket>,
) -> u64 {
    queue_for_viewers(subject, viewers, index, connections, packet.into(), |_| {})
}

/// The one loop of [`tell_viewers`] and [`tell_viewers_once`]: `missed` hears of each
/// viewer whose lane refused the event.
fn queue_for_viewers(
    subject: Entity,
    viewers: &Viewers,
    index: &PlayerIndex,
    connections: &mut Query<&mut Connection>,
    packet: dlmp_protocol::ServerPacket,
    mut missed: impl FnMut(PlayerId),
) -> u64 {
    let mut refused = 0;
    for (id, recipient) in viewers.iter().filter_map(|id| Some((id, index.get(id)?))) {
        if recipient == subject {
            continue;
        }
        if let Ok(mut conn) = connections.get_mut(recipient)
            && let Err(e) = conn.send_event(packet.clone(), Delivery::Normal)
        {
            tracing::debug!(
                ?subject,
                ?recipient,
                ?e,
                packet = packet.name(),
                "event to a viewer not queued"
            );
            missed(id);
            refused += 1;
        }
    }
    refused
}

/// Which recipients (by player slot) this subject is shown to: the one source of truth of
/// player streaming. Relays about the subject go exactly to these (player.md, routing).
#[derive(Component, Debug, Clone, PartialEq, Eq, Default)]
pub struct Viewers(pub BitVec);

/// Bits in one of the [`Viewers`] words (bit `i` of a word is slot `word × WORD + i`).
const WORD: usize = usize::BITS as usize;

impl Viewers {
    /// Whether no recipient is in the set.
    pub fn is_empty(&self) -> bool {
        self.0.not_any()
    }

    /// Whether both hold the same recipients (a set grown and emptied again is longer).
    pub fn same_set(&self, other: &Viewers) -> bool {
        self.iter().eq(other.iter())
    }

    pub fn contains(&self, recipient: PlayerId) -> bool {
        usize::try_from(recipient.0)
            .ok()
            .and_then(|i| self.0.get(i).map(|b| *b))
            .unwrap_or(false)
    }

    pub fn insert(&mut self, recipient: PlayerId) {
        let Ok(i) = usize::try_from(recipient.0) else {
            return;
        };
        if self.0.len() <= i {
            self.0.resize(i + 1, false);
        }
        // Word by word, as `iter` reads it: the relay sets a bit per recipient per frame.
        self.0.as_raw_mut_slice()[i / WORD] |= 1 << (i % WORD);
    }

    /// Adds every recipient of `other`, word by word (a relay went to all of a subject's
    /// viewers at once).
    pub fn union_with(&mut self, other: &Viewers) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), false);
        }
        for (mine, theirs) in self
            .0
            .as_raw_mut_slice()
            .iter_mut()
            .zip(other.0.as_raw_slice())
        {
            *mine |= theirs;
        }
    }

    pub fn remove(&mut self, recipient: PlayerId) {
        if let Ok(i) = usize::try_from(recipient.0)
            && i < self.0.len()
        {
            self.0.as_raw_mut_slice()[i / WORD] &= !(1 << (i % WORD));
        }
    }

    /// Removes every recipient (the set keeps its room).
    pub fn clear(&mut self) {
        self.0.as_raw_mut_slice().fill(0);
    }

    /// Hands each recipient to `inside` if `mask` holds it too, to `outside` if not; word
    /// by word, so a slot costs a bit scan and no lookup (the relay's common case, ADR
    /// 0084). Ascending within each of the two, not across them.
    pub fn split_by(
        &self,
        mask: &Viewers,
        mut inside: impl FnMut(PlayerId),
        mut outside: impl FnMut(PlayerId),
    ) {
        let mask_words = mask.0.as_raw_slice();
        for (w, &word) in self.0.as_raw_slice().iter().enumerate() {
            let base = w * WORD;
            let word = word & live_bits(self.0.len(), base);
            if word == 0 {
                continue;
            }
            let m = mask_words
                .get(w)
                .map_or(0, |&m| m & live_bits(mask.0.len(), base));
            each_slot(word & m, base, &mut inside);
            each_slot(word & !m, base, &mut outside);
        }
    }

    /// Recipient slots, ascending.
    pub fn iter(&self) -> ViewerSlots<'_> {
        ViewerSlots {
            words: self.0.as_raw_slice(),
            next: 0,
            word: 0,
            base: 0,
            len: self.0.len(),
        }
    }
}

/// The bits of the word at slot `base` that are slots of a set of `len` bits.
#[inline(always)]
fn live_bits(len: usize, base: usize) -> usize {
    match len.saturating_sub(base) {
        n if n >= WORD => usize::MAX,
        n => (1usize << n) - 1,
    }
}

/// Hands `f` each slot of `word`, whose bit 0 is slot `base`, ascending.
#[inline(always)]
fn each_slot(mut word: usize, base: usize, f: &mut impl FnMut(PlayerId)) {
    while word != 0 {
        let slot = base + word.trailing_zeros() as usize;
        word &= word - 1;
        if let Ok(slot) = u32::try_from(slot) {
            f(PlayerId(slot));
        }
    }
}

/// The slots of a [`Viewers`], ascending, read word by word: bitvec's `iter_ones` costs a
/// search per bit and an adapter chain a state check per slot, and the relay and the
/// streaming reconcile walk every subject's viewers on every tick (issue 11).
#[derive(Debug, Clone)]
pub struct ViewerSlots<'a> {
    words: &'a [usize],
    /// The word after `word`.
    next: usize,
    /// What is left of the word being read.
    word: usize,
    /// The slot of `word`'s bit 0.
    base: usize,
    /// Bits in the set: the last word's bits past it are not slots.
    len: usize,
}

impl Iterator for ViewerSlots<'_> {
    type Item = PlayerId;

    #[inline]
    fn next(&mut self) -> Option<PlayerId> {
        while self.word == 0 {
            self.word = *self.words.get(self.next)?;
            self.base = self.next * WORD;
            self.next += 1;
        }
        let slot = self.base + self.word.trailing_zeros() as usize;
        self.word &= self.word - 1;
        if slot >= self.len {
            self.word = 0;
            self.next = self.words.len();
            return None;
        }
        u32::try_from(slot).ok().map(PlayerId)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewers_iterate_their_slots_in_order() {
        let mut v = Viewers::default();
        assert_eq!(v.iter().count(), 0);
        let slots = [0u32, 1, 63, 64, 65, 127, 128, 500, 999];
        for &i in slots.iter().rev() {
            v.insert(PlayerId(i));
        }
        assert_eq!(v.iter().map(|p| p.0).collect::<Vec<_>>(), slots);
        let mut union = Viewers::default();
        union.insert(PlayerId(2));
        union.union_with(&v);
        assert_eq!(union.iter().count(), slots.len() + 1, "every slot and 2");
        assert!(union.contains(PlayerId(999)) && union.contains(PlayerId(2)));
        v.remove(PlayerId(64));
        v.remove(PlayerId(999));
        assert!(!v.contains(PlayerId(64)) && v.contains(PlayerId(65)));
        assert_eq!(
            v.iter().map(|p| p.0).collect::<Vec<_>>(),
            [0, 1, 63, 65, 127, 128, 500]
        );
        let ones: Vec<u32> = v.0.iter_ones().map(|i| i as u32).collect();
        assert_eq!(v.iter().map(|p| p.0).collect::<Vec<_>>(), ones);
    }

    #[test]
    fn viewers_split_by_a_mask_into_those_it_holds_and_the_rest() {
        let mut v = Viewers::default();
        let mut mask = Viewers::default();
        for i in [0u32, 3, 64, 70, 130, 200] {
            v.insert(PlayerId(i));
        }
        for i in [3u32, 70, 71, 200, 900] {
            mask.insert(PlayerId(i));
        }
        let (mut inside, mut outside) = (Vec::new(), Vec::new());
        v.split_by(&mask, |p| inside.push(p.0), |p| outside.push(p.0));
        assert_eq!(inside, [3, 70, 200]);
        assert_eq!(outside, [0, 64, 130]);
        mask.clear();
        assert!(mask.is_empty());
        let (mut inside, mut outside) = (Vec::new(), Vec::new());
        v.split_by(&mask, |p| inside.push(p.0), |p| outside.push(p.0));
        assert!(inside.is_empty());
        assert_eq!(outside, v.iter().map(|p| p.0).collect::<Vec<_>>());
        // A mask shorter than the set holds nothing past its length.
        let mut short = Viewers::default();
        short.insert(PlayerId(3));
        let mut inside = Vec::new();
        v.split_by(&short, |p| inside.push(p.0), |_| {});
        assert_eq!(inside, [3]);
    }

    #[test]
    fn viewers_skip_empty_words_and_stop_at_their_length() {
        // Three words, the middle one empty; the raw storage keeps set bits past the
        // length after a truncation, which are not slots.
        let mut bits = BitVec::from_vec(vec![1usize << 5, 0, usize::MAX]);
        bits.truncate(2 * WORD + 3);
        let v = Viewers(bits);
        let slots: Vec<u32> = v.iter().map(|p| p.0).collect();
        let w = WORD as u32;
        assert_eq!(slots, [5, 2 * w, 2 * w + 1, 2 * w + 2]);
        let ones: Vec<u32> = v.0.iter_ones().map(|i| i as u32).collect();
        assert_eq!(slots, ones);
    }
}
