//! `Player` handles (lua-api.md, "The core"): a player entity and its generation. A handle
//! to a player that has left raises a clear error; `player:exists()` tells.

use bevy_ecs::entity::Entity;
use dlmp_core::session::nametag::NametagCommand;
use dlmp_protocol::connection::chat::Color;
use dlmp_protocol::connection::handshake::check_name;
use dlmp_protocol::ids::PlayerToken;
use dlmp_protocol::player::sync::MAX_VITAL;
use dlmp_script::EventHandle;
use dlmp_script::api::handles::{Cached, EntityHandle, add_data_methods};
use mlua::{Error, IntoLua, Lua, MetaMethod, Result, UserDataMethods, Value};

use super::commands::{self, Vital};
use super::movement::take_room;
use super::view::{PlayerView, PlayerViews, views, views_mut};
use super::{args, queue, queue_message};

/// A Lua handle to a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LuaPlayer {
    pub entity: Entity,
    pub token: PlayerToken,
}

impl LuaPlayer {
    /// Reads the player's view, or fails with "METHOD: the player has left the server" for
    /// a stale handle. Inside `player_disconnect` the leaving player still answers reads.
    pub fn with<R>(&self, lua: &Lua, method: &str, f: impl FnOnce(&PlayerView) -> R) -> Result<R> {
        views(lua)?
            .player(self.entity, self.token)
            .map(f)
            .ok_or_else(|| left(method))
    }

    /// Runs `f` on the view of a player still connected (a set shows in the view at once,
    /// for reads later in the same call), or fails like [`LuaPlayer::with`], also for a
    /// player leaving this tick: every setter goes through here.
    pub fn with_mut<R>(
        &self,
        lua: &Lua,
        method: &str,
        f: impl FnOnce(&mut PlayerView) -> Result<R>,
    ) -> Result<R> {
        let mut views = views_mut(lua)?;
        let view = views
            .0
            .get_mut(&self.entity)
            .filter(|p| p.token == self.token && p.connected)
            .ok_or_else(|| left(method))?;
        f(view)
    }

    /// Fails like [`LuaPlayer::with_mut`] unless the player is still connected.
    pub fn present(&self, lua: &Lua, method: &str) -> Result<()> {
        self.with_mut(lua, method, |_| Ok(()))
    }
}

/// "METHOD: the player has left the server": a stale handle, or a player leaving this
/// tick.
fn left(method: &str) -> Error {
    Error::runtime(format!("{method}: the player has left the server"))
}

/// The refusal of a command that needs the player's body in the world (player.md: a
/// command to a player not spawned or dead is refused).
pub fn require_alive(view: &PlayerView, method: &str) -> Result<()> {
    if !view.spawned {
        return Err(Error::runtime(format!(
            "{method}: the player has not spawned"
        )));
    }
    if !view.alive {
        return Err(Error::runtime(format!("{method}: the player is dead")));
    }
    Ok(())
}

/// The refusal of a command that needs the current life confirmed by a living frame since
/// the last spawn or respawn grant (SetVelocity, SetOnFire).
pub fn require_confirmed_life(view: &PlayerView, method: &str) -> Result<()> {
    if view.life_confirmed {
        Ok(())
    } else {
        Err(Error::runtime(format!(
            "{method}: the player's new life is not confirmed yet (no living frame since its spawn)"
        )))
    }
}

/// A health or armor value 0..=200 for `player:METHOD(v)`.
fn vital(method: &str, v: &Value) -> Result<f32> {
    args::f32_in(method, "value", v, 0.0..=MAX_VITAL)
}

impl EntityHandle for LuaPlayer {
    fn entity(&self) -> Entity {
        self.entity
    }
    fn check(&self, lua: &Lua, method: &str) -> Result<()> {
        self.with(lua, method, |_| ())
    }
}

/// A player handle is one userdata per entity (ADR 0035).
impl IntoLua for LuaPlayer {
    fn into_lua(self, lua: &Lua) -> Result<Value> {
        Cached(self).into_lua(lua)
    }
}

impl EventHandle for LuaPlayer {
    const KIND: &'static str = "Player";
    fn to_bits(self) -> [u64; 2] {
        [self.entity.to_bits(), u64::from(self.token.0)]
    }
    fn from_bits([entity, token]: [u64; 2]) -> Self {
        LuaPlayer {
            entity: Entity::from_bits(entity),
            token: PlayerToken(token as u32),
        }
    }
}

/// A Player handle argument.
pub fn player_arg(func: &str, arg: &str, v: &Value) -> Result<LuaPlayer> {
    args::handle(func, arg, v, "Player")
}

/// A list of Player handles.
pub fn players_arg(func: &str, arg: &str, v: &Value) -> Result<Vec<LuaPlayer>> {
    args::handles(func, arg, v, "Player")
}

/// The core methods of `Player` (lua-api.md, "The core"); the other crates add theirs
/// through the [`ScriptApi`](dlmp_script::ScriptApi).
pub(super) fn add_methods<M: UserDataMethods<LuaPlayer>>(methods: &mut M) {
    {
        add_data_methods(methods);
        methods.add_method("uid", |lua, this, ()| {
            this.with(lua, "uid", |_| ())?;
            Ok(dlmp_script::api::state_mut(lua)?.uid(this.entity))
        });
        methods.add_method("exists", |lua, this, ()| {
            Ok(lua.app_data_ref::<PlayerViews>().is_some_and(|s| {
                s.player(this.entity, this.token)
                    .is_some_and(|p| p.connected)
            }))
        });
        methods.add_method("id", |lua, this, ()| this.with(lua, "id", |p| p.id.0));
        methods.add_method("name", |lua, this, ()| {
            this.with(lua, "name", |p| p.name.clone())
        });
        // ADR 0071: the gamemode's rename and name-tag color (PlayerNametag, connection.md
        // §4: "on a rename or a color change").
        methods.add_method("set_name", |lua, this, name: Value| {
            const F: &str = "set_name";
            let text = args::string(F, "name", &name)?;
            let name = dlmp_protocol::text::FixedText::<24>::new(&text)
                .ok()
                .filter(|n| check_name("name", n).is_ok())
                .ok_or_else(|| {
                    Error::runtime(format!(
                        "{F}: name {text:?} is not 3..=24 characters of A-Z a-z 0-9 _ [ ] ( ) . $ @ ="
                    ))
                })?;
            let taken = views(lua)?.0.iter().any(|(e, p)| {
                *e != this.entity && p.connected && p.name.eq_ignore_ascii_case(&text)
            });
            if taken {
                return Err(Error::runtime(format!("{F}: the name {text:?} is in use")));
            }
            this.with_mut(lua, F, |p| {
                p.name = text.clone();
                Ok(())
            })?;
            queue_message(
                lua,
                NametagCommand::Rename {
                    player: this.entity,
                    token: this.token,
                    name,
                },
            )
        });
        methods.add_method("set_color", |lua, this, rgb: Value| {
            const F: &str = "set_color";
            let rgb = args::integer(F, "rgb", &rgb, 0..=0x00FF_FFFF)? as u32;
            this.with_mut(lua, F, |p| {
                p.nametag_color = rgb;
                Ok(())
            })?;
            queue_message(
                lua,
                NametagCommand::Recolor {
                    player: this.entity,
                    token: this.token,
                    color: Color(rgb),
                },
            )
        });
        methods.add_method("color", |lua, this, ()| {
            this.with(lua, "color", |p| p.nametag_color)
        });
        methods.add_method("is_spawned", |lua, this, ()| {
            this.with(lua, "is_spawned", |p| p.spawned)
        });
        methods.add_method("is_alive", |lua, this, ()| {
            this.with(lua, "is_alive", |p| p.alive)
        });
        methods.add_method("position", |lua, this, ()| {
            this.with(lua, "position", |p| {
                (p.position.x, p.position.y, p.position.z)
            })
        });
        methods.add_method("virtual_world", |lua, this, ()| {
            this.with(lua, "virtual_world", |p| p.virtual_world)
        });
        methods.add_method("interior", |lua, this, ()| {
            this.with(lua, "interior", |p| p.interior)
        });
        methods.add_method("keys", |lua, this, ()| this.with(lua, "keys", |p| p.keys));
        methods.add_method("velocity", |lua, this, ()| {
            this.with(lua, "velocity", |p| {
                (p.velocity.x, p.velocity.y, p.velocity.z)
            })
        });
        methods.add_method("camera_front", |lua, this, ()| {
            this.with(lua, "camera_front", |p| {
                (p.camera_front.x, p.camera_front.y, p.camera_front.z)
            })
        });
        methods.add_method("is_paused", |lua, this, ()| {
            this.with(lua, "is_paused", |p| p.paused)
        });
        methods.add_method("is_on_fire", |lua, this, ()| {
            this.with(lua, "is_on_fire", |p| p.on_fire)
        });
        methods.add_method("target", |lua, this, ()| {
            this.with(lua, "target", |p| {
                p.target
                    .map(|(entity, token)| Cached(LuaPlayer { entity, token }))
            })
        });
        methods.add_method("health", |lua, this, ()| {
            this.with(lua, "health", |p| f64::from(p.health))
        });
        methods.add_method("armor", |lua, this, ()| {
            this.with(lua, "armor", |p| f64::from(p.armor))
        });
        methods.add_method("set_health", |lua, this, v: Value| {
            const F: &str = "set_health";
            let value = vital(F, &v)?;
            this.with_mut(lua, F, |p| {
                take_room(p, F)?;
                p.health = value;
                Ok(())
            })?;
            queue(lua, commands::set_vital(this.entity, Vital::Health, value))
        });
        methods.add_method("set_armor", |lua, this, v: Value| {
            const F: &str = "set_armor";
            let value = vital(F, &v)?;
            this.with_mut(lua, F, |p| {
                take_room(p, F)?;
                p.armor = value;
                Ok(())
            })?;
            queue(lua, commands::set_vital(this.entity, Vital::Armor, value))
        });
        methods.add_method("give_weapon", |lua, this, (w, a): (Value, Value)| {
            const F: &str = "give_weapon";
            let weapon = args::integer(F, "weapon", &w, 0..=46)?;
            let ammo = args::integer(F, "ammo", &a, 0..=i64::from(u16::MAX))?;
            this.with_mut(lua, F, |p| take_room(p, F))?;
            #[expect(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "checked ranges"
            )]
            queue(
                lua,
                commands::give_weapon(this.entity, weapon as u8, ammo as u16),
            )
        });
        methods.add_method("set_team", |lua, this, n: Value| {
            const F: &str = "set_team";
            let group = args::integer(F, "team", &n, 0..=i64::from(u32::MAX))?;
            let group = u32::try_from(group).map_err(Error::external)?;
            this.with_mut(lua, F, |p| {
                p.team = group;
                Ok(())
            })?;
            queue(lua, commands::set_team(this.entity, group))
        });
        methods.add_method("team", |lua, this, ()| this.with(lua, "team", |p| p.team));

        methods.add_method("kick", |lua, this, reason: Value| {
            let reason = args::string_or("kick", "reason", &reason, "")?;
            let connected = this.with(lua, "kick", |p| p.connected)?;
            if connected {
                queue(lua, commands::kick(this.entity, reason))?;
            }
            Ok(())
        });
        methods.add_meta_method(
            MetaMethod::Eq,
            |_, this, other: mlua::UserDataRef<LuaPlayer>| Ok(*this == *other),
        );
        methods.add_meta_method(MetaMethod::ToString, |lua, this, ()| {
            Ok(
                match lua
                    .app_data_ref::<PlayerViews>()
                    .and_then(|s| s.player(this.entity, this.token).cloned())
                {
                    Some(p) => format!("Player({}, {})", p.id.0, p.name),
                    None => "Player(gone)".to_owned(),
                },
            )
        });
    }
}
