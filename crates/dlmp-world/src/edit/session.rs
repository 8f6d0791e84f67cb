//! A session on the lane (editing.md §3): the start with its EditState and the camera
//! taken, the gamemode's selection, the release of a selection that stops being editable,
//! and every end with the camera given back before the last EditState. A disconnect takes
//! the session with the player's entity, without a packet or an event.

use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryItem;
use bevy_ecs::system::SystemParam;
use tracing::debug;

use super::target::{Editable, Editables};
use super::{ACTION_LIMIT, UPDATE_EVENTS, UPDATE_LIMIT};
use super::{EVENT_PLACE, EditCommand, EditOptions, EditSession, Target};
use dlmp_core::owner::reset_owner;
use dlmp_core::position::{Position, Scope};
use dlmp_core::session::{Player, TokenBucket};
use dlmp_player::Life;
use dlmp_player::control::{ControlParts, SessionCamera, hold_for_session, release_from_session};
use dlmp_player::scope::SetScope;
use dlmp_player::script::LuaPlayer;
use dlmp_player::teleport::Teleport;
use dlmp_protocol::edit::state::NO_ENTITY;
use dlmp_protocol::edit::{EditEndReason, EditFlags, EditKind, EditSessionId, EditState};
use dlmp_protocol::ids::{EventId, PlayerId};
use dlmp_protocol::world::shared::EntityRev;
use dlmp_script::{ResourceStopped, ScriptEvent, ScriptEvents};

/// The session's EditState with its selection (`rev`: the selected entity's revision, kept
/// as the one the editor was told).
pub fn state_packet(session: &mut EditSession, rev: EntityRev) -> EditState {
    session.told_rev = rev;
    let mut flags = 0;
    if session.camera == SessionCamera::Free {
        flags |= EditFlags::FREE_CAMERA;
    }
    if session.pick {
        flags |= EditFlags::PICK;
    }
    let (selected_kind, selected_id, selected_rev) = match session.selection {
        Some(t) => (t.kind, t.id, rev),
        None => (EditKind::None, NO_ENTITY, EntityRev(0)),
    };
    EditState {
        event_id: EventId(0),
        session: session.id,
        flags: EditFlags(flags),
        kinds: session.kinds,
        anchor: session.anchor,
        range: session.range,
        selected_kind,
        selected_id,
        selected_rev,
        reason: EditEndReason::Gamemode,
    }
}

/// Why an entity is not selectable (editing.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotSelectable {
    Kind,
    NotListed,
    Missing,
    OtherResource,
    NotShown,
    Attached,
    OutOfRange,
    /// Selected by another session: the other player's id.
    Taken(PlayerId),
}

/// The rules of editing.md §4 for `target` and the session of `player` (`taken`: the
/// player of another session that has it selected).
pub fn selectable(
    session: &EditSession,
    player: PlayerId,
    scope: Scope,
    target: Target,
    editables: &Editables,
    taken: Option<PlayerId>,
) -> Result<Editable, NotSelectable> {
    if !session.kinds.contains(target.kind) {
        return Err(NotSelectable::Kind);
    }
    if session
        .entities
        .as_ref()
        .is_some_and(|list| !list.contains(&target))
    {
        return Err(NotSelectable::NotListed);
    }
    let e = editables.get(target).ok_or(NotSelectable::Missing)?;
    if !session.any_resource && e.owner != Some(session.resource) {
        return Err(NotSelectable::OtherResource);
    }
    if e.scope != scope || !editables.shown_to(target, player) {
        return Err(NotSelectable::NotShown);
    }
    if e.attached {
        return Err(NotSelectable::Attached);
    }
    if !session.in_range(e.center, e.flat) {
        return Err(NotSelectable::OutOfRange);
    }
    if let Some(other) = taken {
        return Err(NotSelectable::Taken(other));
    }
    Ok(e)
}

/// The player of a session other than `except`'s that has `target` selected.
pub fn taken_by(
    sessions: &Query<(Entity, &Player, &mut EditSession)>,
    except: Entity,
    target: Target,
) -> Option<PlayerId> {
    sessions
        .iter()
        .find(|(e, _, s)| *e != except && s.selection == Some(target))
        .map(|(_, p, _)| p.id)
}

/// `item` again for a shorter borrow, so a caller can send after the camera moved.
fn reborrow<'a>(item: &'a mut QueryItem<'_, '_, ControlParts>) -> QueryItem<'a, 'a, ControlParts> {
    let (control, conn, frame, center, position, life) = item;
    (
        control.reborrow(),
        conn.reborrow(),
        frame.reborrow(),
        center.reborrow(),
        *position,
        *life,
    )
}

/// Ends `session` of `player` (editing.md §3, "End"): SetCamera mode 0 if it had the free
/// camera, SetFrozen(0) if that returns control, then EditState with session 0 and the
/// reason, and `edit_end` for the scripts. The caller removes the component.
pub fn end(
    lua: LuaPlayer,
    session: &EditSession,
    reason: EditEndReason,
    mut control: QueryItem<'_, '_, ControlParts>,
    events: &mut ScriptEvents,
) {
    release_from_session(reborrow(&mut control));
    reset_owner(&mut control.1, EditState::end(EventId(0), reason));
    events.push(
        EVENT_PLACE,
        ScriptEvent::new(
            "edit_end",
            [lua.into(), session.id.0.into(), reason.name().into()],
        ),
    );
}

/// The parts the gamemode's commands and the ends of sessions change.
#[derive(SystemParam)]
pub struct Sessions<'w, 's> {
    commands: Commands<'w, 's>,
    time: Res<'w, bevy_time::Time>,
    sessions: Query<'w, 's, (Entity, &'static Player, &'static mut EditSession)>,
    players: Query<
        'w,
        's,
        (
            &'static Player,
            &'static Scope,
            &'static Position,
            &'static Life,
        ),
    >,
    control: Query<'w, 's, ControlParts>,
    editables: Editables<'w, 's>,
    events: ResMut<'w, ScriptEvents>,
}

impl Sessions<'_, '_> {
    /// Opens a session: EditState, then the camera (editing.md §3, "Start").
    fn start(
        &mut self,
        player: Entity,
        id: EditSessionId,
        resource: dlmp_script::ResourceId,
        o: &EditOptions,
    ) {
        let Ok((who, scope, position, life)) = self.players.get(player) else {
            return;
        };
        if !(life.spawned && life.alive) || self.sessions.contains(player) {
            debug!(
                ?player,
                "edit session not started: not alive or already editing"
            );
            return;
        }
        let now = self.time.elapsed();
        let mut session = EditSession {
            id,
            told_rev: EntityRev(0),
            resource,
            camera: o.camera,
            pick: o.pick,
            kinds: o.kinds,
            entities: o.entities.clone(),
            any_resource: o.any_resource,
            anchor: o.anchor.unwrap_or(position.0),
            range: o.range,
            selection: None,
            scope: *scope,
            updates: TokenBucket::new(UPDATE_LIMIT, now),
            actions: TokenBucket::new(ACTION_LIMIT, now),
            update_events: TokenBucket::new(UPDATE_EVENTS, now),
            held_update: None,
            camera_point: None,
            camera_at: now,
            camera_packets: TokenBucket::new(super::camera::CAMERA_LIMIT, now),
        };
        let (pid, scope) = (who.id, *scope);
        let mut rev = EntityRev(0);
        if let Some(t) = o.select {
            let taken = self
                .sessions
                .iter()
                .find(|(_, _, s)| s.selection == Some(t))
                .map(|(_, p, _)| p.id);
            if let Ok(e) = selectable(&session, pid, scope, t, &self.editables, taken) {
                session.selection = Some(t);
                rev = e.rev;
            }
        }
        let Ok(mut control) = self.control.get_mut(player) else {
            return;
        };
        reset_owner(&mut control.1, state_packet(&mut session, rev));
        hold_for_session(control, session.camera);
        if session.camera == SessionCamera::Free {
            session.camera_point = self
                .control
                .get(player)
                .ok()
                .map(|c| dlmp_core::streaming::players::stream_center(c.4, c.3));
        }
        self.commands
            .entity(player)
            .insert(session)
            .insert_if_new(super::LastEditCamera::default());
    }

    /// Ends the player's session with `reason`, if it has one.
    fn stop(&mut self, player: Entity, reason: EditEndReason) {
        let Ok((_, who, session)) = self.sessions.get(player) else {
            return;
        };
        let (lua, session) = (
            LuaPlayer {
                entity: player,
                token: who.token,
            },
            session.clone(),
        );
        if let Ok(control) = self.control.get_mut(player) {
            end(lua, &session, reason, control, &mut self.events);
        }
        self.commands.entity(player).remove::<EditSession>();
    }

    /// The gamemode's selection (`dlmp.edit_select`): the rules of §4 without the pick
    /// flag; EditState answers a change.
    fn select(&mut self, player: Entity, target: Option<Target>) {
        let Ok((_, who, session)) = self.sessions.get(player) else {
            return;
        };
        let Ok((_, scope, _, _)) = self.players.get(player) else {
            return;
        };
        let (pid, scope) = (who.id, *scope);
        let rev = match target {
            None => EntityRev(0),
            Some(t) => {
                let taken = taken_by(&self.sessions, player, t);
                match selectable(session, pid, scope, t, &self.editables, taken) {
                    Ok(e) => e.rev,
                    Err(why) => {
                        debug!(?player, ?t, ?why, "edit_select refused");
                        return;
                    }
                }
            }
        };
        let Ok((_, _, mut session)) = self.sessions.get_mut(player) else {
            return;
        };
        if session.selection != target {
            session.held_update = None;
        }
        session.selection = target;
        let packet = state_packet(&mut session, rev);
        if let Ok(mut control) = self.control.get_mut(player) {
            reset_owner(&mut control.1, packet);
        }
    }
}

/// Applies the gamemode's [`EditCommand`]s in order.
pub(super) fn apply_commands(mut orders: MessageReader<EditCommand>, mut s: Sessions) {
    for order in orders.read() {
        match order {
            EditCommand::Start {
                player,
                session,
                resource,
                options,
            } => s.start(*player, *session, *resource, options),
            EditCommand::Stop { player } => s.stop(*player, EditEndReason::Gamemode),
            EditCommand::Select { player, target } => s.select(*player, *target),
        }
    }
}

/// Ends the session of a player whose virtual world or interior this tick's teleports and
/// scope setters change (reason 3), before their TeleportPlayer and ScopeChanged go on the
/// lane (editing.md §3, "End").
pub(super) fn end_before_scope_change(
    mut teleports: MessageReader<Teleport>,
    mut sets: MessageReader<SetScope>,
    mut s: Sessions,
) {
    let mut ending: Vec<Entity> = Vec::new();
    let scope_of = |s: &Sessions, player: Entity| {
        s.sessions
            .contains(player)
            .then(|| s.players.get(player).ok().map(|(_, scope, _, _)| *scope))
            .flatten()
    };
    for t in teleports.read() {
        if let Some(scope) = scope_of(&s, t.player)
            && t.interior.is_some_and(|i| i != scope.interior)
        {
            ending.push(t.player);
        }
    }
    for set in sets.read() {
        if let Some(scope) = scope_of(&s, set.player)
            && (set.virtual_world.is_some_and(|w| w != scope.virtual_world)
                || set.interior.is_some_and(|i| i != scope.interior))
        {
            ending.push(set.player);
        }
    }
    ending.sort_unstable();
    ending.dedup();
    for player in ending {
        s.stop(player, EditEndReason::Scope);
    }
}

/// Ends the sessions whose player died (reason 2), changed scope (3) or whose resource
/// stopped (4), and releases a selection that stopped being editable: deleted, no longer
/// shown, attached, or its center out of range (editing.md §3).
pub(super) fn end_sessions(mut stopped: MessageReader<ResourceStopped>, mut s: Sessions) {
    let stopped: Vec<_> = stopped.read().map(|r| r.0).collect();
    let mut ending = Vec::new();
    let mut released = Vec::new();
    let mut retold = Vec::new();
    for (entity, who, session) in &s.sessions {
        let Ok((_, scope, _, life)) = s.players.get(entity) else {
            continue;
        };
        let reason = if !life.alive {
            Some(EditEndReason::Death)
        } else if *scope != session.scope {
            Some(EditEndReason::Scope)
        } else if stopped.contains(&session.resource) {
            Some(EditEndReason::Resource)
        } else {
            None
        };
        if let Some(reason) = reason {
            ending.push((entity, reason));
            continue;
        }
        if let Some(t) = session.selection {
            let now = s.editables.get(t);
            let keep = now.is_some_and(|e| {
                !e.attached
                    && e.scope == *scope
                    && session.in_range(e.center, e.flat)
                    && s.editables.shown_to(t, who.id)
            });
            if !keep {
                released.push(entity);
            } else if let Some(e) = now
                && t.kind == EditKind::Label
                && e.rev != session.told_rev
            {
                retold.push((entity, e.rev));
            }
        }
    }
    for (player, reason) in ending {
        s.stop(player, reason);
    }
    for player in released {
        s.select(player, None);
    }
    // A label's revision reaches its editor only in EditState (editing.md §1): after each
    // change of a selected label, its Label3D having gone out first.
    for (player, rev) in retold {
        let Ok((_, _, mut session)) = s.sessions.get_mut(player) else {
            continue;
        };
        let packet = state_packet(&mut session, rev);
        if let Ok(mut control) = s.control.get_mut(player) {
            reset_owner(&mut control.1, packet);
        }
    }
}
