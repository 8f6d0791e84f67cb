//! The players as scripts see them this tick (Lua app data, [`PlayerViews`]): written whole
//! from the ECS at the start of every script pass, changed at once by the calls themselves
//! ("a set in this call shows at once"), and read by every player method.

use std::time::Duration;

use bevy_ecs::entity::EntityHashMap;
use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryItem;
use bevy_time::Time;
use dlmp_core::position::{Position, Scope, StreamCenter};
use dlmp_core::session::{Connection, Name, NametagColor, Player, PlayerDisconnected};
use dlmp_core::streaming::players::stream_center;
use dlmp_core::viewers::Viewers;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{PlayerId, PlayerToken};
use dlmp_protocol::player::action::SpecialAction;
use dlmp_script::ScriptHost;
use mlua::{Error, Lua, Result};

use crate::animation::{Animation, CurrentAnimation};
use crate::control::Control;
use crate::control::camera::CameraSetting;
use crate::frame::{Bounds, FrameState, aim_holds};
use crate::{Appearance, Body, Hud, Inventory, Ledger, Life, Score, Skills, SpawnState, Team};

/// A player as scripts see it this tick.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlayerView {
    pub id: PlayerId,
    pub token: PlayerToken,
    pub name: String,
    /// The name tag's color, 0xRRGGBB (`player:set_color`).
    pub nametag_color: u32,
    pub spawned: bool,
    pub alive: bool,
    pub position: Vec3,
    /// Where its streaming distances are measured from: its body, or its camera while
    /// the camera is not its own (player.md, Player streaming).
    pub stream_center: Vec3,
    pub virtual_world: u32,
    pub interior: u8,
    /// Keys held by the last frame (bits 0..8), 0 while paused or frozen.
    pub keys: u16,
    /// m/s, by the last living frame.
    pub velocity: Vec3,
    /// Unit aim direction by the last living frame (zero before one).
    pub camera_front: Vec3,
    pub paused: bool,
    pub on_fire: bool,
    /// The player under its aim, checked again at this tick's view (aim_target).
    pub target: Option<(Entity, PlayerToken)>,
    /// False once the session ended (inside `player_disconnect`).
    pub connected: bool,
    /// The ledger's health and armor (a set in this call shows at once).
    pub health: f32,
    pub armor: f32,
    /// The damage group (`player:set_team`; a set in this call shows at once).
    pub team: u32,
    /// The query's score (`player:set_score`; a set in this call shows at once).
    pub score: i32,
    /// Skin, styles, hidden head (a set in this call shows at once).
    pub appearance: Appearance,
    /// Weapon skills (a set in this call shows at once).
    pub skills: Skills,
    /// Money, wanted level, drunkenness, stamina and lung capacity (a set in this call
    /// shows at once).
    pub hud: Hud,
    /// A living frame arrived since the last spawn or respawn grant (SetVelocity,
    /// SetOnFire).
    pub life_confirmed: bool,
    /// SetVelocity / SetGravity commands awaiting their echo, at most 32.
    pub physics_pending: usize,
    /// The body gravity the gamemode set last (`player:gravity()`).
    pub gravity: f32,
    /// SetWorldBounds; `None` = the whole world.
    pub world_bounds: Option<Bounds>,
    /// Normal events the reliable lane still takes before "queue full", less those this
    /// call queued.
    pub lane_room: usize,
    /// The gamemode's freeze (a set in this call shows at once).
    pub frozen: bool,
    /// The gamemode's camera (a set in this call shows at once), or an edit session's.
    pub camera: CameraSetting,
    /// An edit session holds the camera: the camera setters fail (editing.md §3; a
    /// session started or ended in this call shows at once).
    pub camera_held: bool,
    /// The animation playing (a command in this call shows at once).
    pub animation: Option<Animation>,
    /// The server's special action (a set in this call shows at once).
    pub special_action: SpecialAction,
    /// The satchels in the player's latch (weapons.md §3).
    pub satchels: usize,
}

/// Every player scripts see, by entity: everyone connected, plus those who left this tick
/// (for their `player_disconnect`), and those whose `player_disconnect` still waits.
#[derive(Debug, Default)]
pub struct PlayerViews(pub EntityHashMap<PlayerView>);

impl PlayerViews {
    /// The player behind a handle, if it still exists as that generation.
    pub fn player(&self, entity: Entity, token: PlayerToken) -> Option<&PlayerView> {
        self.0.get(&entity).filter(|p| p.token == token)
    }
}

/// The players' view of this pass, for reading.
pub fn views(lua: &Lua) -> Result<mlua::AppDataRef<'_, PlayerViews>> {
    lua.app_data_ref::<PlayerViews>()
        .ok_or_else(|| Error::runtime("no player view"))
}

/// The players' view of this pass, for writing.
pub fn views_mut(lua: &Lua) -> Result<mlua::AppDataRefMut<'_, PlayerViews>> {
    lua.app_data_mut::<PlayerViews>()
        .ok_or_else(|| Error::runtime("no player view"))
}

/// Replaces the players scripts see with `players`: the app rebuilds this view at the
/// start of every script pass; this is for driving a host without the app (benchmarks,
/// tests).
pub fn set_players(lua: &Lua, players: impl IntoIterator<Item = (Entity, PlayerView)>) {
    let mut views = PlayerViews::default();
    views.0.extend(players);
    lua.set_app_data(views);
}

/// What the script view reads of a player.
pub(crate) type PlayerParts = (
    Entity,
    &'static Player,
    &'static Name,
    Option<&'static Life>,
    Option<&'static Position>,
    Option<&'static Scope>,
    Option<&'static Body>,
    Option<&'static FrameState>,
    Option<&'static Viewers>,
    Option<&'static CurrentAnimation>,
);

/// What the script view reads of a player's vitals.
type Vitals = (&'static Ledger, &'static Inventory, &'static Team);

/// What the script view reads of a player's look and HUD values.
type Looks = (
    &'static Appearance,
    &'static Skills,
    &'static Hud,
    Option<&'static NametagColor>,
);

/// What the players' view reads besides [`PlayerParts`].
#[derive(bevy_ecs::system::SystemParam)]
pub(crate) struct ViewSources<'w, 's> {
    vitals: Query<'w, 's, Vitals>,
    looks: Query<'w, 's, Looks>,
    spawn_states: Query<'w, 's, &'static SpawnState>,
    connections: Query<'w, 's, &'static Connection>,
    controls: Query<'w, 's, &'static Control>,
    scores: Query<'w, 's, &'static Score>,
    centers: Query<'w, 's, &'static StreamCenter>,
    launchers: Query<'w, 's, &'static crate::weapons::launch::Launcher>,
}

/// The players who left this tick, whose views go once their `player_disconnect` ran
/// ([`settle_departures`]).
#[derive(Resource, Debug, Default)]
pub(crate) struct Departed(Vec<Entity>);

/// The players scripts see: everyone connected, plus those who left this tick (for their
/// `player_disconnect`). Each view is written whole every tick, in place: a view keeps
/// its entry and its name's room, so a crowd costs no allocation a tick.
pub(crate) fn refresh_views(
    host: NonSend<ScriptHost>,
    time: Res<Time>,
    players: Query<PlayerParts>,
    sources: ViewSources,
    mut disconnected: MessageReader<PlayerDisconnected>,
    mut departed: ResMut<Departed>,
) {
    let now = time.elapsed();
    let lua = host.lua();
    if lua.app_data_ref::<PlayerViews>().is_none() {
        lua.set_app_data(PlayerViews::default());
    }
    let Some(mut views) = lua.app_data_mut::<PlayerViews>() else {
        return;
    };
    // A view stays for a `player_disconnect` that still waits for a tick (ADR 0082).
    views.0.retain(|entity, view| {
        players.contains(*entity) || (!view.connected && host.awaits_release(*entity))
    });
    for parts in &players {
        let entity = parts.0;
        let view = views.0.entry(entity).or_default();
        let mut name = std::mem::take(&mut view.name);
        // A name seldom changes: the copy (and its UTF-8 check) only when it did.
        if name.as_bytes() != parts.2.0.as_bytes() {
            name.clear();
            name.push_str(parts.2.as_str());
        }
        *view = player_view(&players, parts, name, now, &sources);
    }
    for d in disconnected.read() {
        views.0.insert(d.player, departed_view(d));
        departed.0.push(d.player);
    }
}

/// After the tick's notifications: the views of players who left go, and their handles
/// and data with them, unless their `player_disconnect` still waits for a tick.
pub(crate) fn settle_departures(mut host: NonSendMut<ScriptHost>, mut departed: ResMut<Departed>) {
    {
        let host = &*host;
        if let Some(mut views) = host.lua().app_data_mut::<PlayerViews>() {
            views
                .0
                .retain(|entity, view| view.connected || host.awaits_release(*entity));
        }
    }
    for entity in departed.0.drain(..) {
        if !host.awaits_release(entity) {
            host.forget_entity(entity);
        }
    }
}

/// The view of one connected player, its name already written into `name`.
fn player_view(
    players: &Query<PlayerParts>,
    (entity, player, _, life, position, scope, body, frame_state, _, animation): QueryItem<
        PlayerParts,
    >,
    name: String,
    now: Duration,
    sources: &ViewSources,
) -> PlayerView {
    let life = life.copied().unwrap_or_default();
    let body = body.copied().unwrap_or_default();
    let target = aim_target(players, (player, &life, &body), frame_state);
    let scope = scope.copied().unwrap_or_default();
    let vitals = sources.vitals.get(entity).ok();
    let looks = sources.looks.get(entity).ok();
    let control = sources.controls.get(entity).ok();
    let mut view = PlayerView {
        id: player.id,
        token: player.token,
        name,
        spawned: life.spawned,
        alive: life.alive,
        position: position.map(|p| p.0).unwrap_or_default(),
        stream_center: position
            .map(|p| {
                let center = sources.centers.get(entity).copied().unwrap_or_default();
                stream_center(p, &center)
            })
            .unwrap_or_default(),
        virtual_world: scope.virtual_world,
        interior: scope.interior,
        keys: body.keys.0,
        velocity: body.velocity,
        camera_front: body.camera_front,
        paused: body.paused,
        on_fire: body.on_fire,
        target,
        connected: true,
        health: vitals.as_ref().map_or(0.0, |(l, ..)| l.health),
        armor: vitals.as_ref().map_or(0.0, |(l, ..)| l.armor),
        team: vitals.as_ref().map_or(0, |(.., t)| t.group),
        appearance: looks.map(|(a, ..)| *a).unwrap_or_default(),
        skills: looks.map(|(_, s, ..)| *s).unwrap_or_default(),
        hud: looks.map(|(_, _, h, _)| *h).unwrap_or_default(),
        nametag_color: looks.and_then(|(.., c)| c).copied().unwrap_or_default().0.0,
        animation: animation
            .and_then(|a| a.playing(now))
            .copied()
            .filter(|_| life.alive),
        special_action: body.special_action,
        score: sources.scores.get(entity).map_or(0, |s| s.0),
        frozen: control.is_some_and(|c| c.frozen),
        camera: control.map(|c| c.camera).unwrap_or_default(),
        satchels: sources
            .launchers
            .get(entity)
            .map_or(0, |l| l.satchels.len()),
        camera_held: control.is_some_and(Control::camera_held),
        ..PlayerView::default()
    };
    super::movement::fill_view(
        &mut view,
        frame_state,
        sources.spawn_states.get(entity).ok(),
        sources.connections.get(entity).ok(),
    );
    view
}

/// The player `shooter` aims at, while the aim still holds (the target is here, the same
/// player, and [`aim_holds`] says so).
fn aim_target(
    players: &Query<PlayerParts>,
    shooter: (&Player, &Life, &Body),
    frame_state: Option<&FrameState>,
) -> Option<(Entity, PlayerToken)> {
    let frozen = frame_state.is_some_and(|s| s.frozen.is_some());
    let aim = frame_state.and_then(|s| s.aim)?;
    let (_, target, _, life, _, _, _, _, viewers, _) = players.get(aim.entity).ok()?;
    let holds = target.token == aim.token
        && life.is_some_and(|l| viewers.is_some_and(|v| aim_holds(shooter, frozen, (l, v))));
    holds.then_some((aim.entity, aim.token))
}

/// The view of a player who left this tick, for its `player_disconnect`.
fn departed_view(d: &PlayerDisconnected) -> PlayerView {
    PlayerView {
        id: d.id,
        token: d.token,
        name: d.name.as_str().to_owned(),
        connected: false,
        ..PlayerView::default()
    }
}
