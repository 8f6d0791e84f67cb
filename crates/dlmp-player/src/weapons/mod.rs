//! weapons.md: thrown and launched projectiles, satchel charges, stealth kills and the
//! gamemode's explosions (ADR 0130: a feature of the player crate, below the vehicle
//! crate whose killer credit reads its action log).
//!
//! Done so far: CreateExplosion from `dlmp.create_explosion` ([`explosion`]), the weapon
//! event limit ([`limit`]), launches and `player_projectile` ([`launch`]), the satchel latch and
//! detonations ([`satchel`]), stealth kills ([`stealth`]), the action log ([`actions`])
//! and the two credit tables that read it ([`explains`]: a player's DamageReport 51 / 37 /
//! 17 and a vehicle's explosion; ADR 0122).

pub mod actions;
pub mod explains;
pub mod explosion;
pub mod launch;
pub mod limit;
pub mod satchel;
pub mod stats;
pub mod stealth;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use dlmp_core::session::{Connection, PlayerIndex, Received};
use dlmp_core::streaming::Reshows;
use dlmp_core::tick::{GameplaySystems, ServerSystems, StreamingSystems};
use dlmp_protocol::ClientPacket;
use dlmp_script::{ScriptApi, ScriptSystems};

use crate::frame::FrameState;
use crate::frame::admit_frames;
use crate::ledger::WastedHold;
use crate::script::LuaPlayer;
use crate::{Body, Inventory, Life, SpawnState};
use mlua::UserDataMethods;

/// The weapons feature: launches, their relay and the Lua API.
pub struct WeaponsPlugin;

impl Plugin for WeaponsPlugin {
    fn build(&self, app: &mut App) {
        let mut api = app.world_mut().get_resource_or_init::<ScriptApi>();
        register(&mut api);
        app.init_resource::<launch::LaunchStats>()
            .init_resource::<satchel::DetonationStats>()
            .init_resource::<launch::PendingLaunches>()
            .init_resource::<satchel::PendingDetonations>()
            .init_resource::<stealth::StealthStats>()
            .init_resource::<stealth::StealthKills>()
            .init_resource::<stealth::InStealthKill>()
            .init_resource::<stealth::PendingKills>()
            .add_systems(
                FixedUpdate,
                (
                    limit::give,
                    launch::note_armed,
                    launch::clear_latches,
                    admit.in_set(AdmitWeapons),
                )
                    .chain()
                    .after(admit_frames)
                    .in_set(ServerSystems::Validation),
            )
            .add_systems(
                FixedUpdate,
                (
                    launch::ask_launches,
                    satchel::emit_detonations,
                    stealth::ask_scripts,
                )
                    .chain()
                    .in_set(ScriptSystems::Ask),
            )
            .add_systems(
                FixedUpdate,
                stealth::carry_out
                    .in_set(GameplaySystems::Apply)
                    .before(crate::ledger::CommitGameplayDeaths),
            )
            .add_systems(
                FixedUpdate,
                (
                    launch::relay_launches,
                    actions::log_actions,
                    satchel::relay_detonations,
                    release_wasted,
                )
                    .chain()
                    .in_set(StreamingSystems::Relay),
            );
    }
}

/// Where the tick's weapon events are admitted (in validation): a feature above orders
/// its own part of the admission after it (the vehicles' heat-seeker targets, ADR 0134).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AdmitWeapons;

/// Whether the player may act with a weapon: spawned (granted), alive, not frozen and
/// not paused (weapons.md §2, §3, §4; connection.md WeaponShot).
pub fn in_control(spawn: &SpawnState, life: &Life, body: &Body, frame: &FrameState) -> bool {
    spawn.granted && life.spawned && life.alive && frame.frozen.is_none() && !body.paused
}

/// What a weapon event's sender earned before the event's own checks: its token of the
/// shared limit (weapons.md §7, taken first), and its life as its stream has told it so
/// far this tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Past the weapon event limit.
    Limit,
    /// A DeathReport of the current life came before it in the sender's stream this tick
    /// (counted as not in control: the ledger commits that death later in the tick).
    Died,
    /// The event's own checks decide.
    Open,
}

/// Takes this tick's weapon events (ProjectileCreate, SatchelDetonate, StealthKillRequest)
/// of each connection in lane order, after the tick's frames: each takes its token of the
/// shared limit first (weapons.md §7), then its own checks. A DeathReport that the ledger
/// will commit (not one of the previous life, inside the respawn window, ADR 0012) refuses
/// the sender's weapon events after it in the stream: "alive on the server" in the order
/// of the sender's reliable stream (weapons.md §2, ADR 0136).
fn admit(
    time: Res<Time>,
    mut received: MessageReader<Received>,
    mut own: Query<(
        &mut limit::WeaponEvents,
        &mut launch::Launcher,
        &mut Inventory,
    )>,
    lives: Query<(&SpawnState, &Life)>,
    mut launches: launch::LaunchIntake,
    mut detonations: satchel::DetonationIntake,
    mut kills: stealth::StealthIntake,
    mut died: Local<bevy_ecs::entity::EntityHashSet>,
    mut hold: ResMut<WastedHold>,
) {
    let now = time.elapsed();
    died.clear();
    launches.begin_tick();
    for Received { player, packet, at } in received.read() {
        if let ClientPacket::DeathReport(_) = packet {
            if lives
                .get(*player)
                .is_ok_and(|(spawn, life)| life.alive && !spawn.in_respawn_window())
            {
                died.insert(*player);
            }
            continue;
        }
        if !matches!(
            packet,
            ClientPacket::ProjectileCreate(_)
                | ClientPacket::SatchelDetonate(_)
                | ClientPacket::StealthKillRequest(_)
        ) {
            continue;
        }
        let Ok((mut limit, mut launcher, mut inv)) = own.get_mut(*player) else {
            continue;
        };
        let gate = if !limit.take(now) {
            Gate::Limit
        } else if died.contains(player) {
            Gate::Died
        } else {
            Gate::Open
        };
        if matches!(gate, Gate::Open) && !matches!(packet, ClientPacket::StealthKillRequest(_)) {
            hold.awaiting.insert(*player);
        }
        let state = (&mut *launcher, &mut *inv);
        match packet {
            ClientPacket::ProjectileCreate(p) => {
                launches.take((*player, p, *at), gate, state, now);
            }
            ClientPacket::SatchelDetonate(p) => {
                let thrown = launches.thrown_this_tick(*player);
                if detonations.take((*player, p), gate, state, &thrown, now) {
                    launches.burst_this_tick(*player);
                }
            }
            ClientPacket::StealthKillRequest(p) => {
                let (launcher, inv) = state;
                kills.take((*player, p), gate, (&*launcher, &*inv), now);
            }
            _ => {}
        }
    }
}

/// The PlayerWasted the ledger held behind this tick's relays go out now (ADR 0136).
fn release_wasted(
    index: Res<PlayerIndex>,
    mut hold: ResMut<WastedHold>,
    mut connections: Query<&mut Connection>,
    mut reshows: ResMut<Reshows>,
) {
    hold.release(&index, &mut connections, &mut reshows);
}

/// What the weapons feature adds to the Lua API.
pub fn register(api: &mut ScriptApi) {
    api.functions(|lua, dlmp, _| {
        explosion::install(lua, dlmp)?;
        stealth::install(lua, dlmp)
    })
    .events(&[
        // (player, projectile): refusable
        "player_projectile",
        // (player, count): refusable
        "player_satchel_detonate",
        // (killer, victim): refusable
        "player_stealth_kill",
    ])
    .methods::<LuaPlayer>(|methods| {
        methods.add_method("satchels", |lua, this, ()| {
            this.with(lua, "satchels", |p| p.satchels)
        });
    })
    .setup(|lua, _| {
        lua.set_app_data(explosion::TickBudget::default());
    });
}
