//! The console's `ban ID|NAME|IP [MINUTES] [REASON]`, `unban NAME|IP` and `bans`; `by` is
//! `console` on stdin, the admin's name on the web panel.

use std::net::IpAddr;

use bevy_ecs::prelude::*;

use super::{Bans, ban_address, ban_player, lift, now};

/// `ban`: an address as such, else the connected player `find` names (id or name).
pub fn ban(
    world: &mut World,
    by: &str,
    args: &str,
    find: impl FnOnce(&mut World, &str) -> Option<Entity>,
) -> Vec<String> {
    let mut words = args.splitn(2, char::is_whitespace);
    let target = words.next().unwrap_or("").trim();
    let mut rest = words.next().unwrap_or("").trim();
    if target.is_empty() {
        return vec!["usage: ban ID|NAME|IP [MINUTES] [REASON]".to_owned()];
    }
    let (first, after) = rest
        .split_once(char::is_whitespace)
        .map_or((rest, ""), |(a, b)| (a, b.trim()));
    let mut minutes = None;
    if let Ok(m) = first.parse::<u32>() {
        if m == 0 {
            return vec![
                "error: MINUTES must be at least 1 (leave it out for a permanent ban)".to_owned(),
            ];
        }
        minutes = Some(m);
        rest = after;
    }
    let reason = rest.to_owned();
    let ban = if let Ok(ip) = target.parse::<IpAddr>() {
        ban_address(world, ip, String::new(), minutes, reason, by.to_owned())
    } else {
        let Some(player) = find(world, target) else {
            return vec![format!(
                "error: no player with id or name {target} (ban an offline player by IP)"
            )];
        };
        match ban_player(world, player, minutes, reason, by.to_owned()) {
            Some(ban) => ban,
            None => return vec![format!("error: {target} has no connection")],
        }
    };
    vec![format!("banned {}", ban.describe())]
}

/// `unban NAME|IP`.
pub fn unban(world: &mut World, by: &str, args: &str) -> Vec<String> {
    let what = args.trim();
    if what.is_empty() || what.contains(char::is_whitespace) {
        return vec!["usage: unban NAME|IP".to_owned()];
    }
    let lifted = lift(world, what, by);
    if lifted.is_empty() {
        return vec![format!("error: no ban of {what}")];
    }
    lifted
        .iter()
        .map(|b| format!("unbanned {}", b.describe()))
        .collect()
}

/// `bans`: every ban in force, with who, when, why and until.
pub fn bans(world: &mut World) -> Vec<String> {
    let now = now(world);
    let Some(bans) = world.get_resource::<Bans>() else {
        return vec!["error: bans are unavailable".to_owned()];
    };
    let list: Vec<String> = bans
        .list
        .list()
        .into_iter()
        .filter(|b| !b.expired(now))
        .map(|b| format!("  {}", b.describe()))
        .collect();
    if list.is_empty() {
        return vec!["no bans".to_owned()];
    }
    let unconfirmed = bans.store.unconfirmed();
    let mut out = vec![format!("{} bans:", list.len())];
    out.extend(list);
    if unconfirmed > 0 {
        out.push(format!("({unconfirmed} not yet written to the database)"));
    }
    out
}
