//! SatchelDetonate admission and RemoteSatchelDetonate (weapons.md §3). A detonation is
//! taken within the weapon event limit from a spawned, living, unfrozen, unpaused player
//! whose latch holds a satchel and whose armed weapon (the last frame's or one of the last
//! 500 ms) is the detonator. It clears the latch, takes the detonator out of the inventory,
//! keeps each position within 60 m of a thrown satchel's origin (at most as many as the
//! latch held, in the packet's order) and goes to the players the thrower is shown to.
//! A refused detonation leaves the latch as it was; each refusal is counted
//! ([`DetonationStats`]).

use std::time::Duration;

use bevy_ecs::prelude::*;
use dlmp_core::session::{Connection, Player, PlayerIndex};
use dlmp_core::viewers::Viewers;
use dlmp_protocol::geometry::{Vec3, distance};
use dlmp_protocol::ids::EventId;
use dlmp_protocol::weapons::satchel::{MAX_SATCHELS, RemoteSatchelDetonate, SatchelDetonate};
use tracing::debug;

use dlmp_script::{ScriptEvent, ScriptHost};

use super::launch::{DETONATOR, Launcher, take_detonator};
use super::stats::{DropReason, EventStats};
use crate::frame::FrameState;
use crate::script::LuaPlayer;
use crate::{Body, Inventory, Life, SpawnState};
use dlmp_core::viewers::tell_viewers_once;

/// A position of the detonation is kept within this distance of a thrown satchel's origin.
pub const SATCHEL_REACH: f32 = 60.0;

/// Why a well-formed SatchelDetonate was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DetonationDrop {
    /// Past the weapon event limit (weapons.md §7).
    Limit,
    /// Not spawned, dead, frozen or paused.
    NotInControl,
    /// The latch holds no satchel.
    NoLatch,
    /// The detonator is not the armed weapon.
    NotArmed,
}

impl DropReason for DetonationDrop {
    const ALL: &'static [Self] = &DetonationDrop::ALL;
    fn name(self) -> &'static str {
        DetonationDrop::name(self)
    }
}

impl DetonationDrop {
    pub const ALL: [DetonationDrop; 4] = [
        DetonationDrop::Limit,
        DetonationDrop::NotInControl,
        DetonationDrop::NoLatch,
        DetonationDrop::NotArmed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DetonationDrop::Limit => "limit",
            DetonationDrop::NotInControl => "not_in_control",
            DetonationDrop::NoLatch => "no_latch",
            DetonationDrop::NotArmed => "not_armed",
        }
    }
}

/// SatchelDetonates accepted and dropped by reason, and relays a full lane refused.
pub type DetonationStats = EventStats<DetonationDrop>;

/// A detonation accepted this tick, waiting for `player_satchel_detonate` and the relay.
#[derive(Debug, Clone, PartialEq)]
pub struct DetonationAccepted {
    pub thrower: Entity,
    /// The satchels the latch held.
    pub count: u8,
    /// The positions kept, in the packet's order.
    pub kept: Vec<Vec3>,
    /// A handler of `player_satchel_detonate` returned false: no relay.
    pub refused: bool,
}

/// This tick's accepted detonations, in acceptance order.
#[derive(Resource, Debug, Default)]
pub struct PendingDetonations(pub Vec<DetonationAccepted>);

/// The positions of `p` within [`SATCHEL_REACH`] of a latched satchel's origin, at most as
/// many as the latch held, in the packet's order.
fn kept_positions(p: &SatchelDetonate, latch: &[Vec3]) -> Vec<Vec3> {
    p.pos
        .iter()
        .take(usize::from(p.count.min(MAX_SATCHELS)))
        .filter(|pos| {
            latch
                .iter()
                .any(|origin| distance(*origin, **pos) <= SATCHEL_REACH)
        })
        .take(latch.len())
        .copied()
        .collect()
}

/// What admission reads of the thrower.
type Thrower = (
    &'static SpawnState,
    &'static Life,
    &'static Body,
    &'static FrameState,
);

/// What a detonation's admission reads and writes besides the thrower's own state.
#[derive(bevy_ecs::system::SystemParam)]
pub(super) struct DetonationIntake<'w, 's> {
    throwers: Query<'w, 's, Thrower>,
    stats: ResMut<'w, DetonationStats>,
    accepted: ResMut<'w, PendingDetonations>,
}

impl DetonationIntake<'_, '_> {
    /// Judges one SatchelDetonate of `player` at `now`, past its `gate`. `thrown` are the
    /// origins of the satchels the sender threw earlier this tick, admitted but not yet
    /// latched (the latch takes them after `player_projectile`, weapons.md §2): in the
    /// order of the sender's stream they are in the latch. Whether it was accepted (the
    /// caller then bursts those satchels, so they never join the latch).
    pub(super) fn take(
        &mut self,
        (player, p): (Entity, &SatchelDetonate),
        gate: super::Gate,
        (launcher, inv): (&mut Launcher, &mut Inventory),
        thrown: &[Vec3],
        now: Duration,
    ) -> bool {
        let Ok((spawn, life, body, frame)) = self.throwers.get(player) else {
            return false;
        };
        let latch: Vec<Vec3> = launcher
            .satchels
            .iter()
            .map(|(origin, _)| *origin)
            .chain(thrown.iter().copied())
            .collect();
        let verdict = match gate {
            super::Gate::Limit => Err(DetonationDrop::Limit),
            super::Gate::Died => Err(DetonationDrop::NotInControl),
            super::Gate::Open if !super::in_control(spawn, life, body, frame) => {
                Err(DetonationDrop::NotInControl)
            }
            super::Gate::Open if latch.is_empty() => Err(DetonationDrop::NoLatch),
            super::Gate::Open if !launcher.is_armed(inv.armed, DETONATOR, now) => {
                Err(DetonationDrop::NotArmed)
            }
            super::Gate::Open => Ok(()),
        };
        if let Err(why) = verdict {
            debug!(?player, reason = why.name(), "SatchelDetonate dropped");
            self.stats.drop(why);
            return false;
        }
        self.stats.accepted += 1;
        let kept = kept_positions(p, &latch);
        let count = u8::try_from(latch.len()).unwrap_or(MAX_SATCHELS);
        launcher.clear_latch(inv);
        take_detonator(inv);
        self.accepted.0.push(DetonationAccepted {
            thrower: player,
            count,
            kept,
            refused: false,
        });
        true
    }
}

/// Raises `player_satchel_detonate(player, count)` for each detonation of this tick; a
/// handler returning false refuses its relay (the latch stays cleared: the thrower's game
/// has burst its satchels).
pub(super) fn emit_detonations(
    mut host: NonSendMut<ScriptHost>,
    mut pending: ResMut<PendingDetonations>,
    players: Query<&Player>,
) {
    for d in &mut pending.0 {
        let Ok(p) = players.get(d.thrower) else {
            continue;
        };
        let player = LuaPlayer {
            entity: d.thrower,
            token: p.token,
        };
        let event = ScriptEvent::new("player_satchel_detonate", [player.into(), d.count.into()]);
        d.refused |= host.emit(&event).refused;
    }
}

/// Sends this tick's accepted detonations that no handler refused to the players their
/// throwers are shown to, on their reliable lanes (a normal event).
pub(super) fn relay_detonations(
    index: Res<PlayerIndex>,
    mut accepted: ResMut<PendingDetonations>,
    throwers: Query<(&Player, &Viewers)>,
    mut connections: Query<&mut Connection>,
    mut stats: ResMut<DetonationStats>,
) {
    for a in accepted.0.drain(..).filter(|a| !a.refused) {
        let Ok((me, viewers)) = throwers.get(a.thrower) else {
            continue;
        };
        let mut pos = [Vec3::ZERO; MAX_SATCHELS as usize];
        for (slot, kept) in pos.iter_mut().zip(&a.kept) {
            *slot = *kept;
        }
        let packet = RemoteSatchelDetonate {
            id: me.id,
            player_token: me.token,
            event_id: EventId(0),
            count: u8::try_from(a.kept.len()).unwrap_or(MAX_SATCHELS),
            pos,
        };
        stats.relay_refused +=
            tell_viewers_once(a.thrower, viewers, &index, &mut connections, packet);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dlmp_protocol::ids::SessionToken;

    #[test]
    fn a_position_is_kept_near_a_satchel_at_most_as_many_as_the_latch_held_in_order() {
        let mut pos = [Vec3::ZERO; 8];
        pos[0] = Vec3::new(200.0, 0.0, 0.0);
        pos[1] = Vec3::new(60.0, 0.0, 0.0);
        pos[2] = Vec3::new(0.0, 10.0, 0.0);
        pos[3] = Vec3::new(0.0, 20.0, 0.0);
        let p = SatchelDetonate {
            session_token: SessionToken(1),
            event_id: EventId(1),
            count: 4,
            pos,
        };
        let latch = [Vec3::ZERO, Vec3::new(0.0, 1.0, 0.0)];
        assert_eq!(
            kept_positions(&p, &latch),
            [Vec3::new(60.0, 0.0, 0.0), Vec3::new(0.0, 10.0, 0.0)]
        );
    }
}
