//! `Player` methods for the player's look and HUD values (player.md, SetSkin,
//! SetWalkingStyle, SetFightingStyle, SetHeadless, PlayerSkills, SetMoney, SetWanted,
//! SetDrunkLevel, SetPlayerStats). Setters check their arguments, show the new value in
//! the view at once (a read later in the same call sees it) and queue the feature's
//! message ([`LookCommand`], [`HudCommand`]).

use mlua::{Error, Lua, Result, UserDataMethods, Value};

use super::movement::take_room;
use super::player::LuaPlayer;
use super::view::PlayerView;
use super::{args, queue_message};
use crate::hud::{HudChange, HudCommand, money_after};
use crate::looks::{LookChange, LookCommand, SKILL_SLOTS};
use crate::skins::SkinCatalog;
use dlmp_protocol::player::appearance::{FightingStyle, MAX_SKILL, WalkingStyle};
use dlmp_protocol::player::hud::{MAX_MONEY, MAX_STAT, MAX_WANTED};

/// Fighting style names and ids (player.md, SetFightingStyle).
const FIGHTING_STYLES: [(&str, FightingStyle); 6] = [
    ("normal", FightingStyle::Normal),
    ("boxing", FightingStyle::Boxing),
    ("kung_fu", FightingStyle::KungFu),
    ("knee_head", FightingStyle::KneeHead),
    ("grab_kick", FightingStyle::GrabKick),
    ("elbow", FightingStyle::Elbow),
];

/// Weapon names of the skill slots (player.md, PlayerSkills, the slot table).
const SKILL_NAMES: [(&str, usize); 13] = [
    ("pistol", 0),
    ("silenced_pistol", 1),
    ("desert_eagle", 2),
    ("shotgun", 3),
    ("sawnoff_shotgun", 4),
    ("combat_shotgun", 5),
    ("micro_smg", 6),
    ("tec9", 6),
    ("smg", 7),
    ("ak47", 8),
    ("m4", 9),
    ("country_rifle", 10),
    ("sniper_rifle", 10),
];

/// A model id of the skin catalog, for `func`'s argument `arg`.
pub(super) fn skin_model(func: &str, arg: &str, v: &Value) -> Result<u32> {
    let model = args::integer(func, arg, v, 0..=i64::from(u32::MAX))?;
    let model = u32::try_from(model).map_err(Error::external)?;
    if SkinCatalog::game().allows(model) {
        Ok(model)
    } else {
        Err(Error::runtime(format!(
            "{func}: {arg} {model} is not an allowed skin (0..=311 except 74)"
        )))
    }
}

/// An optional variant >= 1, `default` when nil.
pub(super) fn skin_variant(func: &str, v: &Value, default: u16) -> Result<u16> {
    let variant = args::integer_or(func, "variant", v, 1..=i64::from(u16::MAX), default.into())?;
    u16::try_from(variant).map_err(Error::external)
}

/// A skill slot 0..=10 or one of its weapon names.
fn skill_slot(func: &str, v: &Value) -> Result<usize> {
    if let Value::String(s) = v {
        let name = s.to_str()?;
        return SKILL_NAMES
            .iter()
            .find(|(n, _)| *n == &*name)
            .map(|&(_, slot)| slot)
            .ok_or_else(|| {
                Error::runtime(format!(
                    "{func}: slot \"{}\" is not a skill weapon ({})",
                    &*name,
                    SKILL_NAMES.map(|(n, _)| n).join(", ")
                ))
            });
    }
    let last = i64::try_from(SKILL_SLOTS - 1).map_err(Error::external)?;
    let slot = args::integer(func, "slot", v, 0..=last)?;
    usize::try_from(slot).map_err(Error::external)
}

/// A fighting style id or name.
fn fighting_style(func: &str, v: &Value) -> Result<FightingStyle> {
    let known = || {
        FIGHTING_STYLES
            .map(|(n, s)| format!("{} {n}", s.to_repr()))
            .join(", ")
    };
    let found = match v {
        Value::String(s) => {
            let name = s.to_str()?;
            FIGHTING_STYLES
                .iter()
                .find(|(n, _)| *n == &*name)
                .map(|&(_, style)| style)
                .ok_or_else(|| format!("\"{}\"", &*name))
        }
        _ => {
            let id = args::integer(func, "style", v, 0..=255)?;
            u8::try_from(id)
                .ok()
                .and_then(FightingStyle::from_repr)
                .ok_or_else(|| id.to_string())
        }
    };
    found.map_err(|got| {
        Error::runtime(format!(
            "{func}: style {got} is not a fighting style ({})",
            known()
        ))
    })
}

fn style_name(style: FightingStyle) -> &'static str {
    FIGHTING_STYLES
        .iter()
        .find(|(_, s)| *s == style)
        .map_or("grab_kick", |(n, _)| n)
}

/// Takes the place of the set's packet on the lane ("queue full" otherwise: a normal
/// event, connection.md §3), shows the set in the view at once and queues its message;
/// fails if the player has left.
fn set<M: bevy_ecs::message::Message>(
    lua: &Lua,
    this: &LuaPlayer,
    method: &str,
    show: impl FnOnce(&mut PlayerView),
    message: M,
) -> Result<()> {
    this.with_mut(lua, method, |view| {
        take_room(view, method)?;
        show(view);
        Ok(())
    })?;
    queue_message(lua, message)
}

fn look(this: &LuaPlayer, change: LookChange) -> LookCommand {
    LookCommand {
        player: this.entity,
        change,
    }
}

fn hud(this: &LuaPlayer, change: HudChange) -> HudCommand {
    HudCommand {
        player: this.entity,
        change,
    }
}

/// Adds the look and HUD methods to `Player`.
pub(super) fn add_methods<M: UserDataMethods<LuaPlayer>>(methods: &mut M) {
    methods.add_method("set_skin", |lua, this, (m, v): (Value, Value)| {
        const F: &str = "set_skin";
        let model = skin_model(F, "model", &m)?;
        let variant = skin_variant(F, &v, 1)?;
        let change = LookChange::Skin { model, variant };
        set(
            lua,
            this,
            F,
            |p| (p.appearance.skin, p.appearance.variant) = (model, variant),
            look(this, change),
        )
    });
    methods.add_method("skin", |lua, this, ()| {
        this.with(lua, "skin", |p| (p.appearance.skin, p.appearance.variant))
    });

    methods.add_method("set_walking_style", |lua, this, s: Value| {
        const F: &str = "set_walking_style";
        let id = args::integer(F, "style", &s, 0..=255)?;
        let style = u8::try_from(id)
            .ok()
            .map(WalkingStyle)
            .filter(|s| s.is_known())
            .ok_or_else(|| {
                Error::runtime(format!(
                    "{F}: style {id} is not a walking style (0, 54..=70, 118..=138)"
                ))
            })?;
        set(
            lua,
            this,
            F,
            |p| p.appearance.walk_style = style.0,
            look(this, LookChange::WalkingStyle(style)),
        )
    });
    methods.add_method("walking_style", |lua, this, ()| {
        this.with(lua, "walking_style", |p| p.appearance.walk_style)
    });

    methods.add_method("set_fighting_style", |lua, this, s: Value| {
        const F: &str = "set_fighting_style";
        let style = fighting_style(F, &s)?;
        set(
            lua,
            this,
            F,
            |p| p.appearance.fight_style = style.to_repr(),
            look(this, LookChange::FightingStyle(style)),
        )
    });
    methods.add_method("fighting_style", |lua, this, ()| {
        this.with(lua, "fighting_style", |p| {
            let id = p.appearance.fight_style;
            (
                id,
                FightingStyle::from_repr(id).map_or("grab_kick", style_name),
            )
        })
    });

    methods.add_method("set_headless", |lua, this, on: Value| {
        const F: &str = "set_headless";
        let on = args::boolean(F, "headless", &on)?;
        set(
            lua,
            this,
            F,
            |p| p.appearance.headless = on,
            look(this, LookChange::Headless(on)),
        )
    });
    methods.add_method("is_headless", |lua, this, ()| {
        this.with(lua, "is_headless", |p| p.appearance.headless)
    });

    methods.add_method("set_skill", |lua, this, (s, v): (Value, Value)| {
        const F: &str = "set_skill";
        let slot = skill_slot(F, &s)?;
        let value = args::integer(F, "value", &v, 0..=i64::from(MAX_SKILL))?;
        let value = u16::try_from(value).map_err(Error::external)?;
        set(
            lua,
            this,
            F,
            |p| p.skills.0[slot] = value,
            look(this, LookChange::Skill { slot, value }),
        )
    });
    methods.add_method("skill", |lua, this, s: Value| {
        let slot = skill_slot("skill", &s)?;
        this.with(lua, "skill", |p| p.skills.0[slot])
    });

    methods.add_method("set_money", |lua, this, n: Value| {
        const F: &str = "set_money";
        let range = -i64::from(MAX_MONEY)..=i64::from(MAX_MONEY);
        let amount = args::integer(F, "amount", &n, range)?;
        let amount = i32::try_from(amount).map_err(Error::external)?;
        set(
            lua,
            this,
            F,
            |p| p.hud.money = amount,
            hud(this, HudChange::SetMoney(amount)),
        )
    });
    methods.add_method("give_money", |lua, this, d: Value| {
        const F: &str = "give_money";
        let delta = args::integer(F, "delta", &d, i64::MIN..=i64::MAX)?;
        let mut balance = 0;
        set(
            lua,
            this,
            F,
            |p| {
                p.hud.money = money_after(p.hud.money, delta);
                balance = p.hud.money;
            },
            hud(this, HudChange::GiveMoney(delta)),
        )?;
        Ok(balance)
    });
    methods.add_method("money", |lua, this, ()| {
        this.with(lua, "money", |p| p.hud.money)
    });

    methods.add_method("set_wanted", |lua, this, l: Value| {
        const F: &str = "set_wanted";
        let level = args::integer(F, "level", &l, 0..=i64::from(MAX_WANTED))?;
        let level = u8::try_from(level).map_err(Error::external)?;
        set(
            lua,
            this,
            F,
            |p| p.hud.wanted = level,
            hud(this, HudChange::Wanted(level)),
        )
    });
    methods.add_method("wanted", |lua, this, ()| {
        this.with(lua, "wanted", |p| p.hud.wanted)
    });

    methods.add_method("set_drunk_level", |lua, this, l: Value| {
        const F: &str = "set_drunk_level";
        let level = args::integer(F, "level", &l, 0..=255)?;
        let level = u8::try_from(level).map_err(Error::external)?;
        set(
            lua,
            this,
            F,
            |p| p.hud.drunk_level = level,
            hud(this, HudChange::DrunkLevel(level)),
        )
    });
    methods.add_method("drunk_level", |lua, this, ()| {
        this.with(lua, "drunk_level", |p| p.hud.drunk_level)
    });

    methods.add_method("set_stats", |lua, this, (s, l): (Value, Value)| {
        const F: &str = "set_stats";
        let range = 0..=i64::from(MAX_STAT);
        let stamina = args::integer(F, "stamina", &s, range.clone())?;
        let lung_capacity = args::integer(F, "lung_capacity", &l, range)?;
        let stamina = u16::try_from(stamina).map_err(Error::external)?;
        let lung_capacity = u16::try_from(lung_capacity).map_err(Error::external)?;
        set(
            lua,
            this,
            F,
            |p| (p.hud.stamina, p.hud.lung_capacity) = (stamina, lung_capacity),
            hud(
                this,
                HudChange::Stats {
                    stamina,
                    lung_capacity,
                },
            ),
        )
    });
    methods.add_method("stats", |lua, this, ()| {
        this.with(lua, "stats", |p| (p.hud.stamina, p.hud.lung_capacity))
    });
}
