//! The map-editing session (editing.md): a gamemode opens it for one player, who selects
//! entities, drags them and commits their new pose, which the server checks and applies as
//! the gamemode's own change. Decisions: docs/decisions/0110-the-edit-session.md.
//!
//! - [`session`]: start and every end (editing.md §3), the camera held for the session.
//! - [`admit`]: EntityEdit in the order of the sender's reliable stream (editing.md §2).
//! - [`camera`]: EditCamera and the session's camera point, the stream center.
//! - [`target`]: what an edit reads and changes of each editable kind.
//! - [`script`]: the Lua functions and events of editing.md §5.

pub mod admit;
pub mod camera;
pub mod script;
pub mod session;
pub mod target;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use dlmp_core::position::Scope;
use dlmp_core::session::{RateLimit, TokenBucket};
use dlmp_core::tick::{GameplaySystems, ServerSystems, StreamingSystems};
use dlmp_player::control::SessionCamera;
use dlmp_protocol::edit::{EditKind, EditKinds, EditSessionId};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::Seq;
use dlmp_script::{ResourceId, ScriptSystems};

/// Updates of one connection: 10 at once, 5 a second (editing.md §4, "The edit limit").
pub const UPDATE_LIMIT: RateLimit = RateLimit::per_second(10, 5);
/// The other actions of one connection: 20 at once, 10 a second.
pub const ACTION_LIMIT: RateLimit = RateLimit::per_second(20, 10);
/// `entity_edit(..., "update", ...)` at most this often per session (editing.md §2).
pub const UPDATE_EVENTS: RateLimit = RateLimit::per_second(1, 5);
/// The range of a session whose gamemode names none, m (editing.md §5).
pub const RANGE_DEFAULT: f32 = 300.0;

/// One editable entity: its kind and its id on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    pub kind: EditKind,
    pub id: u32,
}

/// What the gamemode asked for a session (`dlmp.start_edit`'s options, checked).
#[derive(Debug, Clone, PartialEq)]
pub struct EditOptions {
    pub camera: SessionCamera,
    /// The player may pick entities (EntityEdit select).
    pub pick: bool,
    pub kinds: EditKinds,
    /// The entities the session may edit; `None`: any of its kinds.
    pub entities: Option<Vec<Target>>,
    /// Entities of every resource, not only the starter's.
    pub any_resource: bool,
    /// `None`: the player's position.
    pub anchor: Option<Vec3>,
    pub range: f32,
    /// Selected at once, if selectable.
    pub select: Option<Target>,
}

impl Default for EditOptions {
    fn default() -> Self {
        EditOptions {
            camera: SessionCamera::Own,
            pick: true,
            kinds: EditKinds::ALL,
            entities: None,
            any_resource: false,
            anchor: None,
            range: RANGE_DEFAULT,
            select: None,
        }
    }
}

/// A player's open session (editing.md §1): on the player's entity while it lasts.
#[derive(Component, Debug, Clone)]
pub struct EditSession {
    pub id: EditSessionId,
    /// The resource that started it: its entities are editable, its stop ends it.
    pub resource: ResourceId,
    pub camera: SessionCamera,
    pub pick: bool,
    pub kinds: EditKinds,
    pub entities: Option<Vec<Target>>,
    pub any_resource: bool,
    pub anchor: Vec3,
    pub range: f32,
    pub selection: Option<Target>,
    /// The selection's revision the editor was last told in EditState.
    pub told_rev: dlmp_protocol::world::shared::EntityRev,
    /// The scope it started in: a change ends it (reason 3).
    pub scope: Scope,
    pub(crate) updates: TokenBucket,
    pub(crate) actions: TokenBucket,
    /// `entity_edit` "update" events of this session.
    pub(crate) update_events: TokenBucket,
    /// An update past the event limit, the latest one, raised when a token is back.
    pub(crate) held_update: Option<(Target, target::EditPose)>,
    /// The camera point while the free camera applies (editing.md §2, EditCamera).
    pub camera_point: Option<Vec3>,
    pub(crate) camera_at: Duration,
    pub(crate) camera_packets: TokenBucket,
}

impl EditSession {
    /// Whether `center` lies within the session's range of its anchor (`flat`: measured
    /// on x and y only, as a gang zone's).
    pub fn in_range(&self, center: Vec3, flat: bool) -> bool {
        let (dx, dy) = (center.x - self.anchor.x, center.y - self.anchor.y);
        let dz = if flat { 0.0 } else { center.z - self.anchor.z };
        (dx * dx + dy * dy + dz * dz).sqrt() <= self.range
    }
}

/// The seq of the last EditCamera accepted from this connection, in any of its sessions:
/// the client's counter is monotonic per connection (editing.md §2, EditCamera). On the
/// player from its first session on; it goes with the player's entity.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LastEditCamera(pub Option<Seq>);

/// The server-wide session counter from 1, never reused; shared with the scripts so that
/// `dlmp.start_edit` returns the id in the call.
#[derive(Resource, Debug, Clone, Default)]
pub struct EditIds(Arc<AtomicU32>);

impl EditIds {
    /// The next id; `None` once 2^32 − 1 sessions were opened in this run.
    pub fn next(&self) -> Option<EditSessionId> {
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1))
            .ok()
            .map(|n| EditSessionId(n + 1))
    }
}

/// What the gamemode asks of sessions (`dlmp.start_edit`, `stop_edit`, `edit_select`).
#[derive(Message, Debug, Clone, PartialEq)]
pub enum EditCommand {
    /// Opens session `session`; the caller checked the player and the options.
    Start {
        player: Entity,
        session: EditSessionId,
        resource: ResourceId,
        options: EditOptions,
    },
    /// Ends the player's session, reason 0.
    Stop { player: Entity },
    /// Selects `target` for the player (`None` releases), with the checks of editing.md §4
    /// without the pick flag.
    Select {
        player: Entity,
        target: Option<Target>,
    },
}

/// Edits dropped or refused, by reason (console `stats`). Every one is acknowledged by the
/// lane and changes nothing.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EditDrops {
    /// The packet names a session that is not the sender's current one.
    pub not_current: u64,
    /// Past the edit limit.
    pub limited: u64,
    /// A select of an entity that is not selectable, or without the pick flag.
    pub not_selectable: u64,
    /// An update, commit or cancel of an entity that is not the selection.
    pub not_selected: u64,
    /// An update or commit at a revision that is not the current one.
    pub stale: u64,
    /// An update or commit whose pose fails the kind's checks or leaves the range.
    pub bad_pose: u64,
    /// A select or commit a handler refused.
    pub denied: u64,
    /// An EditCamera the page's admission drops.
    pub camera: u64,
}

impl EditDrops {
    /// Each count with its name, for the console's `stats`.
    pub fn counts(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("not the current session", self.not_current),
            ("past the edit limit", self.limited),
            ("not selectable", self.not_selectable),
            ("not selected", self.not_selected),
            ("stale revision", self.stale),
            ("bad pose", self.bad_pose),
            ("denied", self.denied),
            ("camera reports", self.camera),
        ]
    }
}

/// Where the edit events stand among a tick's notifications (after the world's 130).
pub const EVENT_PLACE: dlmp_script::EventPlace = dlmp_script::EventPlace(135);

/// Adds the edit sessions.
pub(crate) struct EditPlugin;

impl Plugin for EditPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<EditIds>()
            .init_resource::<EditDrops>()
            .add_message::<EditCommand>()
            .add_systems(
                FixedUpdate,
                admit::admit_edits
                    .in_set(ScriptSystems::Ask)
                    .after(dlmp_player::script::PlayerAsk),
            )
            .add_systems(
                FixedUpdate,
                session::end_before_scope_change
                    .in_set(GameplaySystems::Apply)
                    .before(dlmp_player::teleport::MoveSystems::Apply),
            )
            .add_systems(
                FixedUpdate,
                (session::apply_commands, session::end_sessions)
                    .chain()
                    .after(session::end_before_scope_change)
                    .in_set(GameplaySystems::Apply)
                    .after(crate::object::commands::forget_gone)
                    .after(crate::label::apply),
            )
            .add_systems(
                FixedUpdate,
                camera::admit_camera
                    .in_set(ServerSystems::Streaming)
                    .before(StreamingSystems::Reconcile),
            );
    }
}
