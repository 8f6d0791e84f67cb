//! `dlmp.create_explosion` (weapons.md §5 and §8): an explosion the gamemode creates,
//! sent as CreateExplosion to every spawned player in its scope whose stream center is
//! within 420 m of the center. The event is neither critical nor droppable: a recipient
//! whose lane is full misses it, and the call returns how many players it reached.

use std::time::Duration;

use bevy_ecs::prelude::*;
use dlmp_core::position::Scope;
use dlmp_core::session::Connection;
use dlmp_core::streaming::players::SHOW_DISTANCE;
use dlmp_net::lane::Delivery;
use dlmp_protocol::geometry::{Vec3, distance};
use dlmp_protocol::ids::{EventId, PlayerId, PlayerToken};
use dlmp_protocol::weapons::explosion::{CreateExplosion, ExplosionType, RADIUS, flag};
use dlmp_protocol::world::shared::{WORLD_XY, WORLD_Z_MAX, WORLD_Z_MIN};
use dlmp_script::ScriptCommand;
use dlmp_script::api::{args, queue};
use mlua::{Error, Lua, Result, Table, Value};
use tracing::debug;

use super::actions::{Action, ActionKind, ActionLog};
use crate::script::{PlayerViews, player_arg, views_mut};

const F: &str = "create_explosion";

/// Explosions the gamemode creates in one tick at most (weapons.md §7).
pub const MAX_PER_TICK: u32 = 64;

/// The distance from a recipient's stream center within which it gets the explosion:
/// the distance players are shown at (weapons.md §5, player.md Player streaming).
pub const REACH: f32 = SHOW_DISTANCE;

const OPTIONS: [&str; 5] = ["radius", "creator", "harmless", "virtual_world", "interior"];

/// The explosions this tick's script pass created, for the per-tick cap.
#[derive(Debug, Default)]
pub struct TickBudget {
    pass: Option<Duration>,
    used: u32,
}

impl TickBudget {
    /// Takes one explosion of the pass at `now`; false past the cap.
    fn take(&mut self, now: Duration) -> bool {
        if self.pass != Some(now) {
            *self = TickBudget {
                pass: Some(now),
                used: 0,
            };
        }
        if self.used >= MAX_PER_TICK {
            return false;
        }
        self.used += 1;
        true
    }
}

/// The explosion type: 0..=12 or its name.
fn explosion_type(v: &Value) -> Result<ExplosionType> {
    if let Value::String(s) = v {
        let name = s.to_str()?;
        return ExplosionType::from_name(&name).ok_or_else(|| {
            let names: Vec<&str> = ExplosionType::ALL.iter().map(|t| t.name()).collect();
            Error::runtime(format!(
                "{F}: type \"{name}\" is not an explosion type ({})",
                names.join(", ")
            ))
        });
    }
    let n = args::integer(F, "type", v, 0..=12)?;
    u8::try_from(n)
        .ok()
        .and_then(ExplosionType::from_repr)
        .ok_or_else(|| Error::runtime(format!("{F}: type {n} is outside 0..=12")))
}

/// The center: three finite numbers within world bounds.
fn center(x: &Value, y: &Value, z: &Value) -> Result<Vec3> {
    let mut c = [0.0f32; 3];
    for (slot, (name, v)) in c.iter_mut().zip([("x", x), ("y", y), ("z", z)]) {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "checked against the world's bounds next"
        )]
        let f = args::number(F, name, v)? as f32;
        *slot = f;
    }
    let p = Vec3::new(c[0], c[1], c[2]);
    let inside = p.x.abs() <= WORLD_XY
        && p.y.abs() <= WORLD_XY
        && (WORLD_Z_MIN..=WORLD_Z_MAX).contains(&p.z);
    if inside {
        Ok(p)
    } else {
        Err(Error::runtime(format!(
            "{F}: position is outside the world"
        )))
    }
}

/// The damage radius: a number whose f32 lies in 0.1..=50 (the f32 of 0.1 is a little
/// above 0.1, so the check is on the f32 the packet carries).
fn radius(v: &Value) -> Result<f32> {
    let n = args::number(F, "radius", v)?;
    #[expect(
        clippy::cast_possible_truncation,
        reason = "checked against the range next"
    )]
    let r = n as f32;
    if RADIUS.contains(&r) {
        Ok(r)
    } else {
        Err(Error::runtime(format!(
            "{F}: radius {n} is outside {}..={}",
            RADIUS.start(),
            RADIUS.end()
        )))
    }
}

/// The option `key` of `opts`, nil when absent.
fn option(opts: Option<&Table>, key: &str) -> Result<Value> {
    opts.map_or(Ok(Value::Nil), |t| t.get::<Value>(key))
}

/// What one call asks for.
struct Request {
    center: Vec3,
    kind: ExplosionType,
    radius: f32,
    harmless: bool,
    creator: Option<(PlayerId, PlayerToken)>,
    /// The creator's entity, whose action log the explosion enters (weapons.md §6).
    creator_entity: Option<Entity>,
    scope: Scope,
}

fn request(
    lua: &Lua,
    (x, y, z, kind, opts): (Value, Value, Value, Value, Value),
) -> Result<Request> {
    let center = center(&x, &y, &z)?;
    let kind = explosion_type(&kind)?;
    let opts = args::table_or_nil(F, "options", &opts)?;
    if let Some(opts) = &opts {
        args::known_options(F, opts, &OPTIONS)?;
    }
    let opts = opts.as_ref();
    let radius = match option(opts, "radius")? {
        Value::Nil => kind.default_radius(),
        v => radius(&v)?,
    };
    let harmless = args::boolean_or(F, "harmless", &option(opts, "harmless")?, false)?;
    let virtual_world = args::integer_or(
        F,
        "virtual_world",
        &option(opts, "virtual_world")?,
        0..=i64::from(u32::MAX),
        0,
    )?;
    let interior = args::integer_or(F, "interior", &option(opts, "interior")?, 0..=255, 0)?;
    let mut creator_entity = None;
    let creator = match option(opts, "creator")? {
        Value::Nil => None,
        v => {
            let p = player_arg(F, "creator", &v)?;
            let views = crate::script::views(lua)?;
            let view = views
                .player(p.entity, p.token)
                .filter(|v| v.connected)
                .ok_or_else(|| Error::runtime(format!("{F}: creator is not a connected player")))?;
            creator_entity = Some(p.entity);
            Some((view.id, view.token))
        }
    };
    Ok(Request {
        center,
        kind,
        radius,
        harmless,
        creator,
        creator_entity,
        scope: Scope {
            virtual_world: u32::try_from(virtual_world).map_err(Error::external)?,
            interior: u8::try_from(interior).map_err(Error::external)?,
        },
    })
}

/// Takes a lane place of every spawned player in `scope` whose stream center is within
/// [`REACH`] of `center` and whose lane has room, in id order.
fn reserve(views: &mut PlayerViews, center: Vec3, scope: Scope) -> Vec<Entity> {
    let mut near: Vec<_> = views
        .0
        .iter_mut()
        .filter(|(_, v)| {
            v.connected
                && v.spawned
                && v.virtual_world == scope.virtual_world
                && v.interior == scope.interior
                && distance(v.stream_center, center) <= REACH
                && v.lane_room > 0
        })
        .collect();
    near.sort_by_key(|(_, v)| v.id);
    near.into_iter()
        .map(|(&entity, v)| {
            v.lane_room -= 1;
            entity
        })
        .collect()
}

pub(crate) fn install(lua: &Lua, dlmp: &Table) -> Result<()> {
    dlmp.set(
        F,
        lua.create_function(
            |lua, call: (Value, Value, Value, Value, Value)| -> Result<usize> {
                let r = request(lua, call)?;
                let now = dlmp_script::api::state(lua)?.now();
                let within = lua
                    .app_data_mut::<TickBudget>()
                    .ok_or_else(|| Error::runtime("no explosion budget"))?
                    .take(now);
                if !within {
                    return Err(Error::runtime(format!(
                        "{F}: more than {MAX_PER_TICK} explosions in one tick"
                    )));
                }
                let to = {
                    let mut views = views_mut(lua)?;
                    reserve(&mut views, r.center, r.scope)
                };
                let reached = to.len();
                let (creator_id, creator_token) =
                    r.creator.unwrap_or((PlayerId(0), PlayerToken(0)));
                let packet = CreateExplosion {
                    event_id: EventId(0),
                    center: r.center,
                    kind: r.kind,
                    radius: r.radius,
                    flags: if r.harmless { flag::HARMLESS } else { 0 },
                    has_creator: r.creator.is_some(),
                    creator_id,
                    creator_token,
                };
                queue(lua, send(packet, to))?;
                if let (Some(entity), false) = (r.creator_entity, r.harmless) {
                    let kind = ActionKind::GamemodeExplosion { radius: r.radius };
                    let action = Action::new(kind, now, Some(r.center), (creator_token, r.scope));
                    queue(lua, log_creator(entity, action))?;
                }
                Ok(reached)
            },
        )?,
    )
}

/// An explosion with a creator, not harmless, enters the creator's action log (weapons.md
/// §6, "gamemode explosion"), if the creator is still of that generation.
fn log_creator(entity: Entity, mut action: Action) -> ScriptCommand {
    ScriptCommand::new(move |world: &mut World| {
        let Some(scope) = world.get::<Scope>(entity).copied() else {
            return;
        };
        if world
            .get::<dlmp_core::session::Player>(entity)
            .is_none_or(|p| p.token != action.token)
        {
            return;
        }
        action.scope = scope;
        if let Some(mut log) = world.get_mut::<ActionLog>(entity) {
            log.push(action);
        }
    })
}

/// The explosion to the players in `to`, whose lane places the call took.
fn send(packet: CreateExplosion, to: Vec<Entity>) -> ScriptCommand {
    ScriptCommand::new(move |world: &mut World| {
        for player in to {
            if let Some(mut conn) = world.get_mut::<Connection>(player)
                // The call took the place; a refusal here is a bug of the reservation.
                && let Err(e) = conn.send_event(packet.clone(), Delivery::Normal)
            {
                debug!(
                    ?player,
                    ?e,
                    "CreateExplosion refused after the call reserved its place"
                );
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_holds_64_a_pass_and_starts_again_with_the_next() {
        let mut b = TickBudget::default();
        let t = Duration::from_millis(20);
        assert!((0..64).all(|_| b.take(t)));
        assert!(!b.take(t));
        assert!(b.take(t + Duration::from_millis(20)));
    }
}
