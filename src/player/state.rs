//! Per-player state that the on-foot features share (player.md, connection.md §5-§6):
//! what the relay stamps into RemotePlayerSync, what streaming reads, what the ledger and
//! the inventory keep. Each component has one owner feature that writes it; others read.

use std::time::Duration;

use bevy_ecs::prelude::*;
use bitvec::vec::BitVec;

use crate::protocol::geometry::Vec3;
use crate::protocol::ids::{PlayerId, Revision, Seq};
use crate::protocol::player::action::SpecialAction;
use crate::protocol::player::sync::{Frame, Keys, MoveState};

/// The last frame accepted from the owner (frame admission writes it).
#[derive(Component, Debug, Clone, PartialEq, Default)]
pub struct LastFrame {
    /// The seq of the last accepted PlayerSync; `None` before the first.
    pub seq: Option<Seq>,
    /// The accepted frame, after world bounds, freeze and the movement check.
    pub frame: Option<Frame>,
    /// The server time it was accepted at (a shot's rewind reads it).
    pub at: Option<Duration>,
}

/// The health ledger (connection.md §6). Health and armor 0..=200; 100 and 0 at a spawn.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Ledger {
    pub health: f32,
    pub armor: f32,
    /// Raised by every gamemode health or armor command.
    pub vital_rev: Revision,
    /// The highest DamageReport seq received.
    pub damage_seq: Seq,
    /// The means of damage of the last DamageReport (0 before one).
    pub last_weapon: u8,
    /// The attacker the last DamageReport was credited to.
    pub last_attacker: Option<Entity>,
    /// When the last DamageReport of this life was applied (`None`: none yet); a death
    /// the victim reports names its attacker only within `ledger::KILL_CREDIT` of it.
    pub last_report_at: Option<Duration>,
}

impl Default for Ledger {
    fn default() -> Self {
        Ledger {
            health: 100.0,
            armor: 0.0,
            vital_rev: Revision(0),
            damage_seq: Seq(0),
            last_weapon: 0,
            last_attacker: None,
            last_report_at: None,
        }
    }
}

impl Ledger {
    /// A spawn or a respawn starts a life at 100 health and 0 armor (connection.md §6);
    /// the revisions and the damage_seq carry on.
    pub fn start_life(&mut self) {
        self.health = 100.0;
        self.armor = 0.0;
        self.forget_last_report();
    }
}

/// The server's weapon inventory (player.md, weapon_rev; connection.md §6 GiveWeapon).
#[derive(Component, Debug, Clone, PartialEq)]
pub struct Inventory {
    /// Rounds held per weapon id 0..=46; a weapon is held when it is in `held`.
    pub ammo: [u16; 47],
    /// Weapons in the inventory, by id.
    pub held: BitVec,
    /// The weapon the player last confirmably armed (0 = unarmed).
    pub armed: u8,
    /// The clip of the armed weapon by the last reconciled frame.
    pub clip: u16,
    /// Raised by every gamemode weapon change.
    pub weapon_rev: Revision,
}

impl Default for Inventory {
    fn default() -> Self {
        let mut held = BitVec::repeat(false, 47);
        held.set(0, true);
        Inventory {
            ammo: [0; 47],
            held,
            armed: 0,
            clip: 0,
            weapon_rev: Revision(0),
        }
    }
}

impl Inventory {
    pub fn holds(&self, weapon: u8) -> bool {
        self.held.get(usize::from(weapon)).is_some_and(|b| *b)
    }
}

/// What the player looks like to others; stamped into every relay (player.md,
/// RemotePlayerSync tail). The setters are the gamemode's commands (SetSkin, ...).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Appearance {
    pub skin: u32,
    /// ≥ 1.
    pub variant: u16,
    pub walk_style: u8,
    /// 15 grab-kick is the game's default.
    pub fight_style: u8,
    pub headless: bool,
}

impl Default for Appearance {
    fn default() -> Self {
        Appearance {
            skin: 0,
            variant: 1,
            walk_style: 0,
            fight_style: 15,
            headless: false,
        }
    }
}

/// Damage group and its relation revision (connection.md §6, "Damage groups and
/// relations"). Group 0 = none.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Team {
    pub group: u32,
    /// Grows on every change of the group.
    pub relation_rev: u32,
}

impl Team {
    /// Whether `self` and `other` are teammates: equal groups, not 0.
    pub fn is_teammate_of(&self, other: &Team) -> bool {
        self.group != 0 && self.group == other.group
    }
}

/// Server-owned body state the relay carries (player.md, "paused", "on_fire",
/// "special_action", SetGravity).
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Body {
    pub paused: bool,
    pub on_fire: bool,
    pub special_action: SpecialAction,
    /// The body's gravity; the game's own is 0.008 units per step².
    pub gravity: f32,
    /// Keys held by the last accepted frame (bits 0..8), zero while paused or frozen.
    pub keys: Keys,
    /// Velocity by the last living frame, m/s.
    pub velocity: Vec3,
    /// Normalised camera direction by the last living frame.
    pub camera_front: Vec3,
    /// The pose, taken only from the frame of a living player and relayed while the
    /// player is dead (player.md, Admission: "the position and the pose (heading,
    /// move_state, crouch) only from the frame of a living player"): the heading in
    /// degrees, the speed band, the crouch.
    pub yaw: f32,
    pub move_state: MoveState,
    pub ducked: bool,
    pub on_ground: bool,
}

/// The game's own gravity (player.md, SetGravity).
pub const DEFAULT_GRAVITY: f32 = 0.008;

impl Default for Body {
    fn default() -> Self {
        Body {
            paused: false,
            on_fire: false,
            special_action: SpecialAction::None,
            gravity: DEFAULT_GRAVITY,
            keys: Keys::NONE,
            velocity: Vec3::ZERO,
            camera_front: Vec3::ZERO,
            yaw: 0.0,
            move_state: MoveState::Unset,
            ducked: false,
            on_ground: true,
        }
    }
}

/// The life generation within the connection, raised on every respawn (player.md,
/// death_epoch).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeathEpoch(pub u16);

/// The player's 11 weapon skills (player.md, PlayerSkills): slot 0 pistol .. 10 country and
/// sniper rifle, each 0..=1000. Default 999 each (the "pro" tier). Server state, not in the
/// Frame: a show of the player carries it.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skills(pub [u16; 11]);

/// The default value of every skill slot.
pub const DEFAULT_SKILL: u16 = 999;

impl Default for Skills {
    fn default() -> Self {
        Skills([DEFAULT_SKILL; 11])
    }
}

/// The point the player's streaming distance is measured from (player.md, "Player
/// streaming"): its body, or its camera while the camera is not its own (SetCamera).
/// Written by the control feature (`player::control`) every tick before streaming.
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct StreamCenter {
    /// Where a fixed or spectating camera puts the center; `None` = the body.
    pub camera: Option<Vec3>,
    /// A spectate target (SetCamera mode 2), shown at any distance.
    pub spectating: Option<PlayerId>,
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
