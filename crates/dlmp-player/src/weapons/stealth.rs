//! StealthKillRequest admission and RemoteStealthKill (weapons.md §4). A request is taken in
//! the order of the sender's stream, its token of the weapon event limit first, then every
//! check of the page (`judge`); a request that passes raises
//! `player_stealth_kill(killer, victim)` in the script pass, is judged again after it, and
//! then, in the same tick: both participants are in a stealth kill for
//! [`KILL_DURATION`], RemoteStealthKill goes to both (critical) and to the players the
//! killer is shown to, and the ledger takes the victim's health to 0 as weapon 4 of the
//! killer, so its rule 4 commits the death right after (PlayerWasted after each
//! recipient's RemoteStealthKill). Each refusal is counted by reason ([`StealthStats`]).
//! ADR 0132.

use std::collections::HashMap;
use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::Time;
use dlmp_core::position::{Position, Scope};
use dlmp_core::session::{Connection, Player, PlayerIndex};
use dlmp_core::vehicle::Seated;
use dlmp_core::viewers::Viewers;
use dlmp_net::lane::Delivery;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::EventId;
use dlmp_protocol::weapons::stealth::{RemoteStealthKill, StealthKillRequest};
use dlmp_script::api::{args, queue};
use dlmp_script::{ScriptCommand, ScriptEvent, ScriptHost};
use mlua::{Lua, Table, Value};
use tracing::debug;

use super::launch::Launcher;
use super::stats::{DropReason, EventStats};
use crate::frame::FrameState;
use crate::ledger::{LedgerEvent, LedgerSettings};
use crate::script::LuaPlayer;
use crate::{Body, DeathEpoch, Inventory, LastFrame, Ledger, Life, SpawnState, Team};

/// The knife: the only weapon of a stealth kill.
pub const KNIFE: u8 = 4;
/// The head: the body part of a stealth kill's damage.
pub const HEAD: u8 = 9;
/// Both participants count as in a stealth kill this long (weapons.md §4, "this page").
pub const KILL_DURATION: Duration = Duration::from_secs(2);
/// The killer's aim target counts from a frame accepted this recently.
pub const AIM_WINDOW: Duration = Duration::from_secs(1);
/// How far apart the two may stand horizontally, m.
pub const HORIZONTAL_REACH: f32 = 3.0;
/// How far apart the two may stand vertically, m.
pub const VERTICAL_REACH: f32 = 1.5;

/// Why a well-formed StealthKillRequest was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StealthDrop {
    /// Past the weapon event limit (weapons.md §7).
    Limit,
    /// The gamemode turned stealth kills off (`dlmp.set_stealth_kills(false)`).
    Off,
    /// The sender is not spawned, dead, frozen or paused.
    NotInControl,
    /// The sender is in a vehicle.
    Seated,
    /// The knife is not the armed weapon or not in the server's inventory.
    NotArmed,
    /// The victim is not a connected, spawned, living player on foot of that generation,
    /// or is the sender.
    Victim,
    /// The victim is in another scope or not shown to the sender.
    NotShown,
    /// Either participant is in a stealth kill already.
    Busy,
    /// The sender's aim target of a frame of the last second is not the victim.
    Aim,
    /// More than 3 m apart horizontally or 1.5 m vertically.
    Distance,
    /// The sender is not behind the victim.
    NotBehind,
    /// Teammates, without team damage.
    Teammate,
    /// A handler of `player_stealth_kill` returned false.
    Denied,
}

impl DropReason for StealthDrop {
    const ALL: &'static [Self] = &StealthDrop::ALL;
    fn name(self) -> &'static str {
        StealthDrop::name(self)
    }
}

impl StealthDrop {
    pub const ALL: [StealthDrop; 13] = [
        StealthDrop::Limit,
        StealthDrop::Off,
        StealthDrop::NotInControl,
        StealthDrop::Seated,
        StealthDrop::NotArmed,
        StealthDrop::Victim,
        StealthDrop::NotShown,
        StealthDrop::Busy,
        StealthDrop::Aim,
        StealthDrop::Distance,
        StealthDrop::NotBehind,
        StealthDrop::Teammate,
        StealthDrop::Denied,
    ];

    /// The reason's word (console `stats`, the metric's label, logs).
    pub fn name(self) -> &'static str {
        match self {
            StealthDrop::Limit => "limit",
            StealthDrop::Off => "off",
            StealthDrop::NotInControl => "not_in_control",
            StealthDrop::Seated => "seated",
            StealthDrop::NotArmed => "not_armed",
            StealthDrop::Victim => "victim",
            StealthDrop::NotShown => "not_shown",
            StealthDrop::Busy => "busy",
            StealthDrop::Aim => "aim",
            StealthDrop::Distance => "distance",
            StealthDrop::NotBehind => "not_behind",
            StealthDrop::Teammate => "teammate",
            StealthDrop::Denied => "denied",
        }
    }
}

/// StealthKillRequests accepted and refused by reason, and relays a full lane refused
/// (an observer's; the participants' are critical).
pub type StealthStats = EventStats<StealthDrop>;

/// Counts a refused request of `who`.
fn refused(stats: &mut StealthStats, who: Entity, why: StealthDrop) {
    debug!(?who, reason = why.name(), "StealthKillRequest refused");
    stats.drop(why);
}

/// Whether stealth kills are on (`dlmp.set_stealth_kills`, on by default).
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct StealthKills(pub bool);

impl Default for StealthKills {
    fn default() -> Self {
        StealthKills(true)
    }
}

/// `dlmp.set_stealth_kills`'s choice as the scripts read it back at once (the resource
/// [`StealthKills`] takes it when the tick applies the scripts' commands).
#[derive(Debug, Clone, Copy)]
struct LuaStealthKills(bool);

/// `dlmp.set_stealth_kills(on)` and `dlmp.stealth_kills()` (weapons.md §8).
pub(super) fn install(lua: &Lua, dlmp: &Table) -> mlua::Result<()> {
    dlmp.set(
        "set_stealth_kills",
        lua.create_function(|lua, on: Value| {
            let on = args::boolean("set_stealth_kills", "on", &on)?;
            lua.set_app_data(LuaStealthKills(on));
            queue(
                lua,
                ScriptCommand::new(move |world: &mut World| {
                    if let Some(mut kills) = world.get_resource_mut::<StealthKills>() {
                        kills.0 = on;
                    }
                }),
            )
        })?,
    )?;
    dlmp.set(
        "stealth_kills",
        lua.create_function(|lua, ()| {
            Ok(lua
                .app_data_ref::<LuaStealthKills>()
                .is_none_or(|kills| kills.0))
        })?,
    )
}

/// The players in a stealth kill, until when; a request naming either is refused.
#[derive(Resource, Debug, Clone, Default)]
pub struct InStealthKill(HashMap<Entity, Duration>);

impl InStealthKill {
    fn holds(&self, player: Entity, now: Duration) -> bool {
        self.0.get(&player).is_some_and(|&until| now < until)
    }

    fn forget_ended(&mut self, now: Duration) {
        self.0.retain(|_, until| now < *until);
    }
}

/// A request that passed the checks, waiting for `player_stealth_kill` and its second
/// judgement.
#[derive(Debug, Clone, PartialEq)]
pub struct KillAsked {
    pub killer: Entity,
    pub request: StealthKillRequest,
    /// A handler of `player_stealth_kill` returned false.
    pub denied: bool,
}

/// This tick's requests that passed the checks, in acceptance order.
#[derive(Resource, Debug, Default)]
pub struct PendingKills(pub Vec<KillAsked>);

/// What the checks read of either participant.
type Participant = (
    &'static Player,
    &'static SpawnState,
    &'static Life,
    &'static Body,
    &'static FrameState,
    &'static Position,
    &'static Scope,
    &'static Team,
    &'static Viewers,
    &'static LastFrame,
    Option<&'static Seated>,
);

/// What the checks read besides the participants: the index, the settings and who is in
/// a kill.
#[derive(bevy_ecs::system::SystemParam)]
pub(super) struct StealthIntake<'w, 's> {
    players: Query<'w, 's, Participant>,
    index: Res<'w, PlayerIndex>,
    on: Res<'w, StealthKills>,
    ledger: Res<'w, LedgerSettings>,
    busy: ResMut<'w, InStealthKill>,
    stats: ResMut<'w, StealthStats>,
    pending: ResMut<'w, PendingKills>,
}

impl StealthIntake<'_, '_> {
    /// Judges one StealthKillRequest of `killer` at `now`, past its `gate`. One that
    /// passes holds both participants in a kill at once, so a second request of this tick
    /// naming either is refused.
    pub(super) fn take(
        &mut self,
        (killer, p): (Entity, &StealthKillRequest),
        gate: super::Gate,
        (launcher, inv): (&Launcher, &Inventory),
        now: Duration,
    ) {
        let verdict = if gate == super::Gate::Died {
            Err(StealthDrop::NotInControl)
        } else if gate == super::Gate::Open {
            let judged = judge(
                (killer, p),
                (launcher, inv),
                (&self.players, &self.index),
                (*self.on, *self.ledger),
                now,
            );
            judged.and_then(|victim| {
                if self.busy.holds(killer, now) || self.busy.holds(victim, now) {
                    Err(StealthDrop::Busy)
                } else {
                    Ok(victim)
                }
            })
        } else {
            Err(StealthDrop::Limit)
        };
        match verdict {
            Ok(victim) => {
                self.busy.0.insert(killer, now + KILL_DURATION);
                self.busy.0.insert(victim, now + KILL_DURATION);
                self.pending.0.push(KillAsked {
                    killer,
                    request: p.clone(),
                    denied: false,
                });
            }
            Err(why) => refused(&mut self.stats, killer, why),
        }
    }
}

/// Every check of weapons.md §4 but the limit and "not in a stealth kill": the victim's
/// entity if the kill may happen.
fn judge(
    (killer, p): (Entity, &StealthKillRequest),
    (launcher, inv): (&Launcher, &Inventory),
    (players, index): (&Query<Participant>, &PlayerIndex),
    (on, settings): (StealthKills, LedgerSettings),
    now: Duration,
) -> Result<Entity, StealthDrop> {
    if !on.0 {
        return Err(StealthDrop::Off);
    }
    let (me, spawn, life, body, frame, position, scope, team, _, last, seated) =
        players.get(killer).map_err(|_| StealthDrop::NotInControl)?;
    if !super::in_control(spawn, life, body, frame) {
        return Err(StealthDrop::NotInControl);
    }
    if seated.is_some() {
        return Err(StealthDrop::Seated);
    }
    if !inv.holds(KNIFE) || !launcher.is_armed(inv.armed, KNIFE, now) {
        return Err(StealthDrop::NotArmed);
    }
    let victim = index
        .get(p.victim_id)
        .filter(|&v| v != killer)
        .ok_or(StealthDrop::Victim)?;
    let (them, v_spawn, v_life, v_body, _, v_position, v_scope, v_team, v_viewers, _, v_seated) =
        players.get(victim).map_err(|_| StealthDrop::Victim)?;
    if them.token != p.victim_token
        || !v_spawn.granted
        || !v_life.spawned
        || !v_life.alive
        || v_seated.is_some()
    {
        return Err(StealthDrop::Victim);
    }
    if v_scope != scope || !v_viewers.contains(me.id) {
        return Err(StealthDrop::NotShown);
    }
    let aimed = frame
        .aim
        .is_some_and(|a| a.entity == victim && a.token == them.token)
        && last
            .at
            .is_some_and(|at| now.saturating_sub(at) <= AIM_WINDOW);
    if !aimed {
        return Err(StealthDrop::Aim);
    }
    let (killer_at, victim_at) = (position.0, v_position.0);
    let horizontal = (killer_at.x - victim_at.x).hypot(killer_at.y - victim_at.y);
    if horizontal > HORIZONTAL_REACH || (killer_at.z - victim_at.z).abs() > VERTICAL_REACH {
        return Err(StealthDrop::Distance);
    }
    if !behind(victim_at, v_body.yaw, killer_at) {
        return Err(StealthDrop::NotBehind);
    }
    if !settings.team_damage && team.is_teammate_of(v_team) {
        return Err(StealthDrop::Teammate);
    }
    Ok(victim)
}

/// Whether `killer` stands behind a victim at `victim` facing `heading` degrees: the
/// direction from the victim to the killer makes more than 90° with the heading. A heading
/// of 0 faces +y and grows counter-clockwise (the rotation Rz of world.md), so the facing
/// is (−sin h, cos h). A killer at the victim's very spot is not behind it.
pub fn behind(victim: Vec3, heading: f32, killer: Vec3) -> bool {
    let (sin, cos) = heading.to_radians().sin_cos();
    let (dx, dy) = (killer.x - victim.x, killer.y - victim.y);
    dx * -sin + dy * cos < 0.0
}

/// Raises `player_stealth_kill(killer, victim)` for each request of this tick that passed
/// the checks; false from a handler denies it.
pub(super) fn ask_scripts(
    mut host: NonSendMut<ScriptHost>,
    mut pending: ResMut<PendingKills>,
    index: Res<PlayerIndex>,
    players: Query<&Player>,
) {
    for k in &mut pending.0 {
        let Some(victim) = index.get(k.request.victim_id) else {
            continue;
        };
        let (Ok(killer_p), Ok(victim_p)) = (players.get(k.killer), players.get(victim)) else {
            continue;
        };
        let killer = LuaPlayer {
            entity: k.killer,
            token: killer_p.token,
        };
        let victim = LuaPlayer {
            entity: victim,
            token: victim_p.token,
        };
        let event = ScriptEvent::new("player_stealth_kill", [killer.into(), victim.into()]);
        k.denied |= host.emit(&event).refused;
    }
}

/// What carrying out a kill writes.
#[derive(bevy_ecs::system::SystemParam)]
pub(super) struct KillEffects<'w, 's> {
    connections: Query<'w, 's, &'static mut Connection>,
    victims: Query<'w, 's, (&'static mut Ledger, &'static DeathEpoch)>,
    events: MessageWriter<'w, LedgerEvent>,
}

/// Judges each request of this tick again after `player_stealth_kill`, then carries out
/// the ones that still hold: RemoteStealthKill to both participants (critical) and to the
/// players the killer is shown to, and the victim's health to 0 by the knife of the killer
/// (the ledger's rule 4 then commits the death, [`crate::ledger`]). A refused one frees
/// both participants.
pub(super) fn carry_out(
    time: Res<Time>,
    mut intake: StealthIntake,
    own: Query<(&Launcher, &Inventory)>,
    mut effects: KillEffects,
) {
    let now = time.elapsed();
    let pending = std::mem::take(&mut intake.pending.0);
    for k in pending {
        let judged = if k.denied {
            Err(StealthDrop::Denied)
        } else {
            own.get(k.killer)
                .map_err(|_| StealthDrop::NotInControl)
                .and_then(|state| {
                    judge(
                        (k.killer, &k.request),
                        state,
                        (&intake.players, &intake.index),
                        (*intake.on, *intake.ledger),
                        now,
                    )
                })
        };
        let victim = match judged {
            Ok(victim) => victim,
            Err(why) => {
                intake.busy.0.remove(&k.killer);
                if let Some(v) = intake.index.get(k.request.victim_id) {
                    intake.busy.0.remove(&v);
                }
                refused(&mut intake.stats, k.killer, why);
                continue;
            }
        };
        intake.stats.accepted += 1;
        intake.stats.relay_refused += tell(k.killer, victim, &intake, &mut effects);
        let Ok((mut ledger, _)) = effects.victims.get_mut(victim) else {
            continue;
        };
        let amount = ledger.take_lethal_blow(KNIFE, k.killer, now);
        effects.events.write(LedgerEvent::Damage {
            victim,
            attacker: Some(k.killer),
            weapon: KNIFE,
            amount,
            bodypart: HEAD,
        });
    }
    intake.busy.forget_ended(now);
}

/// Queues RemoteStealthKill to the killer and the victim (critical: the victim's client
/// must play its death and nothing repeats it) and to every other player the killer is
/// shown to (a normal event). The number of observers whose lane refused it.
fn tell(killer: Entity, victim: Entity, intake: &StealthIntake, effects: &mut KillEffects) -> u64 {
    let (Ok(k), Ok(v), Ok((_, epoch))) = (
        intake.players.get(killer),
        intake.players.get(victim),
        effects.victims.get(victim),
    ) else {
        return 0;
    };
    let (me, .., viewers, _, _) = k;
    let (them, _, _, body, _, position, ..) = v;
    let packet = RemoteStealthKill {
        id: me.id,
        player_token: me.token,
        event_id: EventId(0),
        victim_id: them.id,
        victim_token: them.token,
        victim_life: epoch.0,
        pos: position.0,
        heading: body.yaw,
    };
    let participants = [killer, victim];
    let observers = viewers
        .iter()
        .filter_map(|id| intake.index.get(id))
        .filter(|r| !participants.contains(r));
    let recipients = participants
        .into_iter()
        .map(|r| (r, Delivery::Critical))
        .chain(observers.map(|r| (r, Delivery::Normal)));
    let mut refused = 0;
    for (recipient, delivery) in recipients {
        if let Ok(mut conn) = effects.connections.get_mut(recipient)
            && let Err(e) = conn.send_event(ServerPacket::from(packet.clone()), delivery)
        {
            debug!(?recipient, ?e, "RemoteStealthKill not queued");
            refused += 1;
        }
    }
    refused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behind_is_more_than_90_degrees_from_the_heading() {
        let v = Vec3::new(10.0, 10.0, 0.0);
        // Heading 0 faces +y: behind is −y.
        assert!(behind(v, 0.0, Vec3::new(10.0, 9.0, 0.0)));
        assert!(!behind(v, 0.0, Vec3::new(10.0, 11.0, 0.0)));
        assert!(!behind(v, 0.0, Vec3::new(11.0, 10.0, 0.0)), "at the side");
        // Heading 90 faces −x: behind is +x.
        assert!(behind(v, 90.0, Vec3::new(11.0, 10.0, 0.0)));
        assert!(!behind(v, 90.0, Vec3::new(9.0, 10.0, 0.0)));
    }
}
