//! Helpers shared by the world scenarios (clock, checkpoints, colshapes, waypoints): a
//! gamemode whose `/lua CODE` runs CODE, and players that walk by real frames.
#![allow(dead_code, unreachable_pub)]

use std::time::Duration;

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::player::{DeathEpoch, LastFrame};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::player::sync::Frame;
use dlmp_core::position::Position;

pub mod objects;

/// `/lua CODE` runs CODE with `p` the player, `G` a table kept across calls and `say(x)`
/// telling the player x; an error is told as `error: ...`. Players spawn at [`SPAWN`].
/// `extra` is more gamemode code (event handlers that `tell` what they hear).
pub fn gamemode(extra: &str) -> String {
    format!(
        r#"
G = {{}}
function tell(p, s) dlmp.send_chat(tostring(s), nil, {{ p }}) end
dlmp.on("player_connect", function(p) dlmp.spawn_player(p, 0, 0, 10, 0) end)
dlmp.on("player_command", function(p, name, args)
    if name ~= "lua" then return end
    local env = setmetatable({{ p = p, say = function(s) tell(p, s) end }}, {{ __index = _ENV }})
    local f, err = load(table.concat(args, " "), "cmd", "t", env)
    if f then
        local ok, e = pcall(f)
        if not ok then err = e end
    end
    if err then tell(p, "error: " .. tostring(err)) end
    return true
end)
{extra}
"#
    )
}

/// Where [`gamemode`] spawns players.
pub const SPAWN: Vec3 = Vec3::new(0.0, 0.0, 10.0);

/// A scripts folder with the gamemode as resource `gm`.
pub fn scripts(test: &str, extra: &str) -> TempScripts {
    let s = TempScripts::new(test);
    s.resource("gm", &gamemode(extra));
    s
}

/// A harness running `s` whose sessions outlast the long waits of these scenarios (the
/// virtual clients send nothing while they wait).
pub fn harness(s: &TempScripts) -> Harness {
    s.harness_with(|c| dlmp::config::Config {
        session_timeout_ms: 3_600_000,
        ..c
    })
}

/// The gamemode with `extra` (see [`scripts`]) and a harness running it.
pub fn server(test: &str, extra: &str) -> (Scripts, Harness) {
    let s = scripts(test, extra);
    let h = harness(&s);
    (s, h)
}

/// A player connected, granted its connect spawn at [`SPAWN`] and confirmed by a living
/// frame there; what it got so far is cleared.
pub fn spawned(h: &mut Harness, name: &str) -> ClientId {
    let c = h.connect(name);
    h.step();
    h.request_spawn(c);
    h.steps(2);
    h.live(c);
    h.clear(c);
    c
}

/// Runs `code` as the player's `/lua` command, after a second for the chat limit, and
/// lets it apply.
pub fn lua(h: &mut Harness, c: ClientId, code: &str) {
    h.advance(Duration::from_secs(1));
    lua_now(h, c, code);
}

/// Runs `code` as the player's `/lua` command at once (at most 5 in a row) and lets it
/// apply in two ticks.
pub fn lua_now(h: &mut Harness, c: ClientId, code: &str) {
    h.chat(c, &format!("/lua {code}"));
    h.steps(2);
}

/// The chat lines the player got since the last clear, then forgets what it got.
pub fn told(h: &mut Harness, c: ClientId) -> Vec<String> {
    h.take_chat_lines(c)
}

/// One living frame at `pos` (the next seq, this life's death_epoch) and one tick.
pub fn frame_at(h: &mut Harness, c: ClientId, pos: Vec3) {
    let seq = h.get::<LastFrame>(c).seq.map_or(1, |s| s.0.wrapping_add(1));
    let frame = Frame {
        death_epoch: h.get::<DeathEpoch>(c).0,
        ..Frame::standing(pos)
    };
    h.sync(c, seq, frame);
}

/// Moves the player to `at` as the gamemode and its game would: TeleportPlayer, then a
/// living frame there.
pub fn go(h: &mut Harness, c: ClientId, at: Vec3) {
    h.teleport(c, at);
    frame_at(h, c, at);
}

/// Walks the player to `to` by frames of at most 0.25 m (12.5 m/s at 50 Hz, within the
/// movement check), one a tick; the last frame is at `to`.
pub fn walk_to(h: &mut Harness, c: ClientId, to: Vec3) {
    loop {
        let at = h.get::<Position>(c).0;
        let (dx, dy, dz) = (to.x - at.x, to.y - at.y, to.z - at.z);
        let d = (dx * dx + dy * dy + dz * dz).sqrt();
        if d <= 0.25 {
            frame_at(h, c, to);
            return;
        }
        let k = 0.25 / d;
        frame_at(h, c, Vec3::new(at.x + dx * k, at.y + dy * k, at.z + dz * k));
    }
}

pub use dlmp::harness::TempScripts as Scripts;
