//! The relay (player.md, RemotePlayerSync and "Fields"): each subject with a newly accepted
//! frame goes, as RemotePlayerSync, to every recipient in its [`Viewers`] and only to them,
//! in [`StreamingSystems::Relay`], after the shown sets were reconciled this tick. The
//! frame carries the relay values of the "Fields" table, the tail the server-owned
//! appearance, relation and gravity.

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use super::frame::FrameAccepted;
use super::frame::rules::{cap_length, normalized, relay_ammo, relay_weapon, uses_ammo};
use super::{Appearance, Body, DeathEpoch, Inventory, LastFrame, Ledger, Life, Team};
use dlmp_core::position::Position;
use dlmp_core::session::{Connection, Player, PlayerIndex, RelayPacket, Relays};
use dlmp_core::tick::StreamingSystems;
use dlmp_core::viewers::Viewers;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{EventId, PlayerId, Revision, Seq};
use dlmp_protocol::player::action::SpecialAction;
use dlmp_protocol::player::sync::{
    Frame, Keys, MAX_GRAVITY, MAX_JET_ANGLE, MAX_JET_STRAFE, MAX_RELAY_VEL, MAX_VITAL,
    NO_AIM_TARGET, RemotePlayerSync, WeaponState,
};

/// The hp the relay shows for a player the server holds alive with a ledger at 0 (a death
/// not committed yet): never a lethal value.
pub const LEAST_LIVING_HP: f32 = 1.0;

/// Relays sent and refused by encoding (a refusal is a server bug: it is logged).
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RelayStats {
    pub sent: u64,
    pub refused: u64,
}

/// What the relay sent about a subject, for PlayerStreamOut's `last_seq` (player.md: "seq
/// of the subject's last RemotePlayerSync sent to the recipient (0: none)"). A relay goes
/// to every viewer at once, so one seq and one bit per recipient say it exactly: a
/// recipient in `to` was sent the subject's relay of `seq` last. Streaming
/// clears a recipient's bit whenever it clears its [`Viewers`] bit (a hide, a leave), so
/// a show starts with none sent and a reused slot inherits nothing.
#[derive(Component, Debug, Clone, Default, PartialEq, Eq)]
pub struct Relayed {
    seq: Seq,
    to: Viewers,
    /// Shows of the subject whose last event had not left when they were queued: the
    /// recipient and that event. A relay to such a recipient waits for the event
    /// ([`Relays`]); an entry goes once its event has left, or with the show. Short: only
    /// shows of the last ticks, never one per viewer for long.
    shows: Vec<(PlayerId, EventId)>,
}

impl Relayed {
    /// The seq of the subject's last relay sent to `recipient` since its show; 0 if none.
    pub fn last_seq(&self, recipient: PlayerId) -> Seq {
        if self.to.contains(recipient) {
            self.seq
        } else {
            Seq(0)
        }
    }

    /// Ends `recipient`'s show: [`last_seq`](Self::last_seq), and its bit is cleared.
    pub fn end_show(&mut self, recipient: PlayerId) -> Seq {
        let seq = self.last_seq(recipient);
        self.forget(recipient);
        seq
    }

    /// Clears `recipient`'s bit (it left, or its show ended).
    pub fn forget(&mut self, recipient: PlayerId) {
        self.to.remove(recipient);
        self.shows.retain(|&(r, _)| r != recipient);
    }

    /// A show of the subject to `recipient` was queued; `last` is its last event. No relay
    /// reaches the recipient before it.
    pub fn shown(&mut self, recipient: PlayerId, last: EventId) {
        self.shows.retain(|&(r, _)| r != recipient);
        self.shows.push((recipient, last));
    }

    /// The show event a relay to `recipient` must wait for, if it has not left yet; `conn`
    /// gives the recipient's connection, asked only while such a show is listed.
    pub fn show_barrier<'c>(
        &mut self,
        recipient: PlayerId,
        conn: impl FnOnce() -> Option<&'c Connection>,
    ) -> Option<EventId> {
        let at = self.shows.iter().position(|&(r, _)| r == recipient)?;
        let last = self.shows[at].1;
        if conn().is_none_or(|c| c.is_sent(last)) {
            self.shows.swap_remove(at);
            None
        } else {
            Some(last)
        }
    }

    /// The relay of `seq` went to every one of `viewers` but `missed` (which it did not
    /// reach and which had not been sent the one before either).
    fn sent(&mut self, seq: Seq, viewers: &Viewers, missed: &[PlayerId]) {
        self.seq = seq;
        self.to.union_with(viewers);
        for &r in missed {
            self.to.remove(r);
        }
    }
}

/// Relays accepted frames to the subjects' viewers.
pub struct RelayPlugin;

impl Plugin for RelayPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<RelayStats>()
            .add_systems(FixedUpdate, relay_frames.in_set(StreamingSystems::Relay));
    }
}

/// The server's state a relay frame is built from.
#[derive(Debug, Clone, Copy)]
pub struct RelayInputs<'a> {
    pub position: Vec3,
    pub life: Life,
    pub death_epoch: u16,
    pub ledger: &'a Ledger,
    pub inventory: &'a Inventory,
    pub body: &'a Body,
    /// SetFrozen (keys go out as 0).
    pub frozen: bool,
}

/// The relay values of an accepted frame ("Fields", the relay column). The position and
/// the pose are the server's ([`Body`]): a dead player's frame does not move or turn its
/// copy (player.md, Admission).
pub fn relay_frame(f: &Frame, s: &RelayInputs<'_>) -> Frame {
    let body = s.body;
    let weapon = relay_weapon(f, s.inventory);
    let (clip, total) = relay_ammo(f, s.inventory, weapon);
    let mut keys = if body.paused || s.frozen {
        Keys::NONE
    } else {
        f.keys.known()
    };
    if uses_ammo(weapon) && total == 0 {
        keys = Keys(keys.0 & !Keys::FIRE.0);
    }
    let mut hp = s.ledger.health.clamp(0.0, MAX_VITAL);
    if s.life.alive && hp <= 0.0 {
        hp = LEAST_LIVING_HP;
    }
    let jetpack = body.special_action == SpecialAction::Jetpack;
    Frame {
        pos: s.position,
        yaw: body.yaw,
        ducked: body.ducked,
        move_state: body.move_state,
        keys,
        cam: normalized(f.cam).unwrap_or(Vec3::ZERO),
        vel: cap_length(f.vel, MAX_RELAY_VEL),
        hp,
        armor: s.ledger.armor.clamp(0.0, MAX_VITAL),
        alive: s.life.alive,
        death_epoch: s.death_epoch,
        weapon,
        state: WeaponState::from_wire(f.state) as u8,
        clip,
        total,
        paused: body.paused,
        on_fire: body.on_fire,
        special_action: body.special_action,
        jet_thrust: if jetpack {
            f.jet_thrust.clamp(-1, 1)
        } else {
            0
        },
        jet_stop: jetpack && f.jet_stop,
        jet_strafe: if jetpack {
            f.jet_strafe.clamp(-MAX_JET_STRAFE, MAX_JET_STRAFE)
        } else {
            0.0
        },
        jet_angle: if jetpack {
            f.jet_angle.clamp(-MAX_JET_ANGLE, MAX_JET_ANGLE)
        } else {
            0.0
        },
        aim_target: NO_AIM_TARGET,
        physics_rev: Revision(0),
        vital_rev: Revision(0),
        damage_seq: Seq(0),
        ..*f
    }
}

type Subject = (
    &'static Player,
    &'static LastFrame,
    &'static Life,
    &'static DeathEpoch,
    &'static Position,
    &'static Body,
    &'static Ledger,
    &'static Inventory,
    &'static Appearance,
    &'static Team,
    &'static Viewers,
    Option<&'static super::frame::FrameState>,
);

/// A recipient as a relay needs it.
#[derive(Debug, Clone, Copy)]
pub struct Recipient {
    pub entity: Entity,
    pub team: Team,
}

/// The tick's recipients by slot: looked up once a tick, not once a relay (a crowd's tick
/// is tens of thousands of relays). Kept between ticks for its room.
#[derive(Debug, Default)]
pub struct Recipients {
    by_slot: Vec<Option<Recipient>>,
    /// The slots that hold a recipient.
    present: Viewers,
}

impl Recipients {
    /// The players of `players` that `index` names for their slot.
    pub fn refresh<'a>(
        &mut self,
        index: &PlayerIndex,
        players: impl IntoIterator<Item = (Entity, &'a Player, &'a Team)>,
    ) {
        self.by_slot.clear();
        self.present.clear();
        for (entity, player, &team) in players {
            let slot = player.id.0 as usize;
            if index.get(player.id) == Some(entity) {
                if self.by_slot.len() <= slot {
                    self.by_slot.resize(slot + 1, None);
                }
                self.by_slot[slot] = Some(Recipient { entity, team });
                self.present.insert(player.id);
            }
        }
    }

    pub fn get(&self, id: PlayerId) -> Option<Recipient> {
        self.by_slot.get(id.0 as usize).copied().flatten()
    }

    /// The slots that hold a recipient but `subject`'s own (a relay never goes to its
    /// subject); [`restore`](Self::restore) puts the subject back.
    fn present_but(&mut self, subject: PlayerId) -> &Viewers {
        self.present.remove(subject);
        &self.present
    }

    /// Ends [`present_but`](Self::present_but).
    fn restore(&mut self, subject: PlayerId) {
        if self.get(subject).is_some() {
            self.present.insert(subject);
        }
    }
}

#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
fn relay_frames(
    mut accepted: MessageReader<FrameAccepted>,
    subjects: Query<Subject>,
    mut relayed: Query<&mut Relayed>,
    recipients: Query<(Entity, &Player, &Team, &Connection)>,
    index: Res<PlayerIndex>,
    mut relays: ResMut<Relays>,
    mut stats: ResMut<RelayStats>,
    mut missed: Local<Vec<PlayerId>>,
    mut by_slot: Local<Recipients>,
) {
    if accepted.is_empty() {
        return;
    }
    by_slot.refresh(&index, recipients.iter().map(|(e, p, t, _)| (e, p, t)));
    // Dereferenced once: through `ResMut` each queued relay would mark the resource
    // changed again, ~30 000 times a crowd's tick.
    let relays = &mut *relays;
    let conn = |entity: Entity| recipients.get(entity).ok().map(|(.., c)| c);
    let (mut sent, mut refused) = (0u64, 0u64);
    // Every accepted frame, in arrival order: two of one subject in one tick go out both.
    for accepted in accepted.read() {
        let subject = accepted.player;
        let Ok((player, _, life, epoch, _, body, ledger, inv, look, team, viewers, fs)) =
            subjects.get(subject)
        else {
            continue;
        };
        let (seq, frame) = (accepted.seq, &accepted.frame);
        let Ok(relayed) = relayed.get_mut(subject) else {
            continue;
        };
        // Marked changed once for the subject, not once per viewer.
        let relayed = relayed.into_inner();
        let frame = relay_frame(
            frame,
            &RelayInputs {
                position: accepted.position,
                life: *life,
                death_epoch: epoch.0,
                ledger,
                inventory: inv,
                body,
                frozen: fs.is_some_and(|s| s.frozen.is_some()),
            },
        );
        let sync = RemotePlayerSync {
            player_id: player.id,
            player_token: player.token,
            seq,
            frame,
            skin: look.skin,
            variant: look.variant.max(1),
            walk_style: look.walk_style,
            fight_style: look.fight_style,
            headless: look.headless,
            damage_group: team.group,
            relation_rev: team.relation_rev,
            teammate: false,
            gravity: body.gravity.clamp(-MAX_GRAVITY, MAX_GRAVITY),
        };
        // The same bytes go to every viewer but for `teammate`: each variant is encoded
        // once, when a viewer first needs it.
        // `None` inside: the variant was refused (warned once, counted per viewer).
        let mut encoded: [Option<Option<RelayPacket>>; 2] = [None, None];
        // Viewers this relay did not reach whose bit was clear: it stays clear.
        missed.clear();
        let sent_before = sent;
        // The common case, a living subject in no team with no show waiting to leave:
        // every viewer gets the same packet with no barrier, so a viewer is a bit of the
        // set and no recipient is looked up (issue 11, the players tick).
        let plain = team.group == 0 && life.alive && relayed.shows.is_empty();
        let packet = (plain && !viewers.is_empty())
            .then(|| variant(&mut encoded, relays, subject, &sync, false))
            .flatten();
        if let Some(packet) = packet {
            let present = by_slot.present_but(player.id);
            let to = &relayed.to;
            viewers.split_by(
                present,
                |recipient| {
                    relays.queue(recipient, packet, None);
                    sent += 1;
                },
                |recipient| {
                    if !to.contains(recipient) {
                        missed.push(recipient);
                    }
                },
            );
            by_slot.restore(player.id);
        } else {
            for recipient in viewers.iter() {
                let Some(r) = by_slot.get(recipient).filter(|r| r.entity != subject) else {
                    if !relayed.to.contains(recipient) {
                        missed.push(recipient);
                    }
                    continue;
                };
                let teammate = team.is_teammate_of(&r.team);
                let packet = variant(&mut encoded, relays, subject, &sync, teammate);
                // A dead relay waits for everything queued before it (the death among
                // it); a living one for the subject's show to this recipient, if that has
                // not left.
                let barrier = if life.alive {
                    relayed.show_barrier(recipient, || conn(r.entity))
                } else {
                    conn(r.entity).map(Connection::last_queued)
                };
                match packet {
                    Some(packet) => {
                        relays.queue(recipient, packet, barrier);
                        sent += 1;
                    }
                    None => {
                        refused += 1;
                        if !relayed.to.contains(recipient) {
                            missed.push(recipient);
                        }
                    }
                }
            }
        }
        if sent > sent_before {
            relayed.sent(seq, viewers, &missed);
        }
    }
    stats.sent += sent;
    stats.refused += refused;
}

/// The `teammate` variant of a subject's relay, encoded the first time a viewer needs it.
#[inline(always)]
fn variant(
    encoded: &mut [Option<Option<RelayPacket>>; 2],
    relays: &mut Relays,
    subject: Entity,
    sync: &RemotePlayerSync,
    teammate: bool,
) -> Option<RelayPacket> {
    let variant = &mut encoded[usize::from(teammate)];
    match *variant {
        Some(packet) => packet,
        None => *variant.insert(encode(relays, subject, sync, teammate)),
    }
}

/// Encodes one variant of a subject's relay; a refusal (a server bug) is logged. Kept out
/// of the viewer loop it runs in at most twice a frame.
#[inline(never)]
fn encode(
    relays: &mut Relays,
    subject: Entity,
    sync: &RemotePlayerSync,
    teammate: bool,
) -> Option<RelayPacket> {
    relays
        .encode(RemotePlayerSync {
            teammate,
            ..sync.clone()
        })
        .inspect_err(|e| {
            dlmp_net::log_limited!(warn, ?subject, teammate, "RemotePlayerSync refused: {e}")
        })
        .ok()
}
