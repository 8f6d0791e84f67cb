//! EntityEdit admission (editing.md §2, "Admission"; §4). The lane has put the packets in
//! the order of the sender's reliable stream and checked the token and the decoder's
//! rules; here, in that order: the session is the sender's current one, the edit limit,
//! then by action. A select and a commit ask the gamemode (`edit_select`, `entity_edit`
//! "commit": false from a handler is a deny) and are checked again after it. Every
//! refusal is counted in [`EditDrops`]; a refused commit is answered with the correction.

use std::collections::HashMap;

use bevy_ecs::entity::EntityHashSet;
use bevy_ecs::prelude::*;
use tracing::debug;

use super::session::{end, selectable, state_packet, taken_by};
use super::target::{EditPose, Editables};
use super::{EditDrops, EditSession, Target};
use crate::script::LuaObject;
use dlmp_core::owner::reset_owner;
use dlmp_core::position::Scope;
use dlmp_core::session::{Player, Received};
use dlmp_player::control::ControlParts;
use dlmp_player::script::LuaPlayer;
use dlmp_protocol::ClientPacket;
use dlmp_protocol::edit::{EditAction, EditEndReason, EditKind, EntityEdit};
use dlmp_protocol::world::markers::ColshapeId;
use dlmp_protocol::world::object::ObjectId;
use dlmp_protocol::world::pickup::PickupId;
use dlmp_protocol::world::shared::{EntityRev, MarkerId};
use dlmp_script::{Arg, ScriptEvent, ScriptEvents, ScriptHost};

/// The Lua handle of `target`, for the events.
pub fn handle(target: Target) -> Arg {
    use crate::pickup::script::LuaPickup;
    use crate::script::{LuaColshape, LuaGangZone, LuaLabel};
    match target.kind {
        EditKind::Object => LuaObject {
            id: ObjectId(target.id),
        }
        .into(),
        EditKind::Pickup => LuaPickup {
            id: PickupId(target.id),
        }
        .into(),
        EditKind::Label => LuaLabel {
            id: MarkerId(target.id),
        }
        .into(),
        EditKind::GangZone => LuaGangZone {
            id: MarkerId(target.id),
        }
        .into(),
        EditKind::Colshape => LuaColshape {
            id: ColshapeId(target.id),
        }
        .into(),
        EditKind::None => Arg::Nil,
    }
}

/// `entity_edit(player, entity, action, pose)`.
fn edit_event(
    lua: LuaPlayer,
    target: Target,
    action: EditAction,
    pose: Option<Vec<(&'static str, f64)>>,
) -> ScriptEvent {
    ScriptEvent::new(
        "entity_edit",
        [
            lua.into(),
            handle(target),
            action.name().into(),
            pose.map_or(Arg::Nil, Arg::Numbers),
        ],
    )
}

/// What one pass of admission keeps between packets.
#[derive(Default)]
struct Pass {
    /// Sessions ended by a leave in this pass: their component goes after it.
    ended: EntityHashSet,
    /// Commits applied in this pass: the revision is one higher than the entity shows.
    committed: HashMap<Target, u32>,
}

impl Pass {
    fn rev(&self, target: Target, rev: EntityRev) -> EntityRev {
        EntityRev(
            rev.0
                .wrapping_add(self.committed.get(&target).copied().unwrap_or(0)),
        )
    }
}

/// Admits the tick's EntityEdit packets in order, and raises the updates held back by the
/// event limit as tokens come back.
#[allow(
    clippy::too_many_arguments,
    reason = "the session, the lane, the kinds and the host"
)]
pub(super) fn admit_edits(
    mut commands: Commands,
    mut host: NonSendMut<ScriptHost>,
    mut received: MessageReader<Received>,
    mut sessions: Query<(Entity, &'static Player, &'static mut EditSession)>,
    scopes: Query<&Scope>,
    mut control: Query<ControlParts>,
    mut editables: Editables,
    mut drops: ResMut<EditDrops>,
    mut events: ResMut<ScriptEvents>,
) {
    let now = editables.now();
    for (entity, who, mut session) in &mut sessions {
        if session.held_update.is_some() && session.update_events.try_take(now) {
            let (target, pose) = session.held_update.take().expect("checked");
            let lua = LuaPlayer {
                entity,
                token: who.token,
            };
            let numbers = editables.numbers(target, &pose);
            host.emit(&edit_event(lua, target, EditAction::Update, Some(numbers)));
        }
    }
    let mut pass = Pass::default();
    for Received { player, packet, .. } in received.read() {
        let ClientPacket::EntityEdit(edit) = packet else {
            continue;
        };
        let Ok((_, who, session)) = sessions.get(*player) else {
            drops.not_current += 1;
            continue;
        };
        if edit.session != session.id || pass.ended.contains(player) {
            drops.not_current += 1;
            continue;
        }
        let (pid, lua) = (
            who.id,
            LuaPlayer {
                entity: *player,
                token: who.token,
            },
        );
        let scope = scopes.get(*player).copied().unwrap_or_default();
        let mut edit_one = EditOne {
            player: *player,
            pid,
            lua,
            scope,
            edit,
            host: &mut host,
            sessions: &mut sessions,
            editables: &mut editables,
            drops: &mut drops,
            pass: &mut pass,
        };
        if !edit_one.within_limit() {
            continue;
        }
        match edit.action {
            EditAction::Select => edit_one.select(&mut control),
            EditAction::Update => edit_one.update(),
            EditAction::Commit => edit_one.commit(&mut control),
            EditAction::Cancel => edit_one.cancel(&mut control),
            EditAction::Leave => {
                let Ok((_, _, session)) = sessions.get(*player) else {
                    continue;
                };
                if let Ok(item) = control.get_mut(*player) {
                    end(lua, session, EditEndReason::Player, item, &mut events);
                }
                pass.ended.insert(*player);
                commands.entity(*player).remove::<EditSession>();
            }
        }
    }
}

/// One EntityEdit being admitted.
struct EditOne<'a, 'w, 's, 'w2, 's2> {
    player: Entity,
    pid: dlmp_protocol::ids::PlayerId,
    lua: LuaPlayer,
    scope: Scope,
    edit: &'a EntityEdit,
    host: &'a mut ScriptHost,
    sessions: &'a mut Query<'w, 's, (Entity, &'static Player, &'static mut EditSession)>,
    editables: &'a mut Editables<'w2, 's2>,
    drops: &'a mut EditDrops,
    pass: &'a mut Pass,
}

impl EditOne<'_, '_, '_, '_, '_> {
    fn target(&self) -> Target {
        Target {
            kind: self.edit.kind,
            id: self.edit.entity_id,
        }
    }

    fn pose(&self) -> EditPose {
        EditPose {
            a: self.edit.a,
            b: self.edit.b,
        }
    }

    fn session(&self) -> EditSession {
        self.sessions
            .get(self.player)
            .map(|(_, _, s)| s.clone())
            .expect("the caller found the session")
    }

    /// The edit limit (editing.md §4): updates and the other actions apart.
    fn within_limit(&mut self) -> bool {
        let now = self.editables.now();
        let Ok((_, _, mut s)) = self.sessions.get_mut(self.player) else {
            return false;
        };
        let ok = if self.edit.action == EditAction::Update {
            s.updates.try_take(now)
        } else {
            s.actions.try_take(now)
        };
        if !ok {
            self.drops.limited += 1;
        }
        ok
    }

    /// The session's selection with its current revision, when it is this edit's entity.
    fn selected(&self) -> Option<EntityRev> {
        let target = self.target();
        if self.session().selection != Some(target) {
            return None;
        }
        self.editables
            .get(target)
            .map(|e| self.pass.rev(target, e.rev))
    }

    /// Checks a select (pick flag, editing.md §4): `Ok` with the entity's revision.
    fn check_select(&self) -> Option<EntityRev> {
        let session = self.session();
        let target = self.target();
        let taken = taken_by(self.sessions, self.player, target);
        let ok = session.pick
            && selectable(
                &session,
                self.pid,
                self.scope,
                target,
                self.editables,
                taken,
            )
            .inspect_err(|why| debug!(player = self.pid.0, ?target, ?why, "select refused"))
            .is_ok();
        ok.then(|| {
            self.editables
                .get(target)
                .map(|e| self.pass.rev(target, e.rev))
        })
        .flatten()
    }

    /// The answer to a select is always EditState: the new selection, or the one before.
    fn select(&mut self, control: &mut Query<ControlParts>) {
        let target = self.target();
        let mut rev = self.check_select();
        if rev.is_none() {
            self.drops.not_selectable += 1;
        } else {
            let event = ScriptEvent::new("edit_select", [self.lua.into(), handle(target)]);
            if self.host.emit(&event).refused {
                self.drops.denied += 1;
                rev = None;
            } else {
                rev = self.check_select();
            }
        }
        let Ok((_, _, mut session)) = self.sessions.get_mut(self.player) else {
            return;
        };
        let answer_rev = match rev {
            Some(r) => {
                if session.selection != Some(target) {
                    session.held_update = None;
                }
                session.selection = Some(target);
                r
            }
            None => session
                .selection
                .and_then(|t| self.editables.get(t).map(|e| self.pass.rev(t, e.rev)))
                .unwrap_or_default(),
        };
        let packet = state_packet(&mut session, answer_rev);
        if let Ok(mut item) = control.get_mut(self.player) {
            reset_owner(&mut item.1, packet);
        }
    }

    /// Whether the pose passes the checks of a commit and lies within range.
    fn pose_ok(&self) -> bool {
        let session = self.session();
        self.editables
            .check(self.target(), &self.pose())
            .is_some_and(|center| session.in_range(center, self.edit.kind == EditKind::GangZone))
    }

    /// An update changes nothing; the gamemode hears it at most 5 times a second, the
    /// latest pose replacing one held back.
    fn update(&mut self) {
        match self.selected() {
            None => self.drops.not_selected += 1,
            Some(rev) if rev != self.edit.rev => self.drops.stale += 1,
            Some(_) if !self.pose_ok() => self.drops.bad_pose += 1,
            Some(_) => {
                let (target, pose) = (self.target(), self.pose());
                let now = self.editables.now();
                let Ok((_, _, mut session)) = self.sessions.get_mut(self.player) else {
                    return;
                };
                if session.held_update.is_none() && session.update_events.try_take(now) {
                    self.host.emit(&edit_event(
                        self.lua,
                        target,
                        EditAction::Update,
                        Some(self.editables.numbers(target, &pose)),
                    ));
                } else {
                    session.held_update = Some((target, pose));
                }
            }
        }
    }

    /// A commit at the current revision whose pose passes is applied as one change; any
    /// other is answered with the correction to the editor alone, as critical.
    fn commit(&mut self, control: &mut Query<ControlParts>) {
        let target = self.target();
        let accepted = match self.selected() {
            None => {
                self.drops.not_selected += 1;
                false
            }
            Some(rev) if rev != self.edit.rev => {
                self.drops.stale += 1;
                false
            }
            Some(_) if !self.pose_ok() => {
                self.drops.bad_pose += 1;
                false
            }
            Some(_) => {
                let pose = self.pose();
                let event = edit_event(
                    self.lua,
                    target,
                    EditAction::Commit,
                    Some(self.editables.numbers(target, &pose)),
                );
                if self.host.emit(&event).refused {
                    self.drops.denied += 1;
                    false
                } else {
                    self.selected() == Some(self.edit.rev) && self.pose_ok()
                }
            }
        };
        if accepted {
            self.editables.apply(target, &self.pose());
            *self.pass.committed.entry(target).or_default() += 1;
            // The drag ended in this commit: a pose held back from it is not raised after.
            if let Ok((_, _, mut session)) = self.sessions.get_mut(self.player) {
                session.held_update = None;
            }
            return;
        }
        if let Some(packet) = self.editables.correction(target, self.pid)
            && let Ok(mut item) = control.get_mut(self.player)
        {
            reset_owner(&mut item.1, packet);
        }
    }

    /// A cancel of the selection releases it; EditState without a selection follows.
    fn cancel(&mut self, control: &mut Query<ControlParts>) {
        let target = self.target();
        let Ok((_, _, mut session)) = self.sessions.get_mut(self.player) else {
            return;
        };
        if session.selection != Some(target) {
            self.drops.not_selected += 1;
            return;
        }
        session.selection = None;
        session.held_update = None;
        let packet = state_packet(&mut session, EntityRev(0));
        self.host
            .emit(&edit_event(self.lua, target, EditAction::Cancel, None));
        if let Ok(mut item) = control.get_mut(self.player) {
            reset_owner(&mut item.1, packet);
        }
    }
}
