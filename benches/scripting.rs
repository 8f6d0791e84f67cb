//! The Lua hot paths: dispatching an event to one handler, a Lua call into a core
//! function (reported per call), and the `tick` event with no handler. Target on the
//! 2-core machine: under 1 µs each.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bevy_ecs::entity::Entity;
use criterion::{Criterion, criterion_group, criterion_main};
use dlmp::player::script::events::player_chat;
use dlmp::player::script::{LuaPlayer, PlayerView, set_players};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{PlayerId, PlayerToken};
use dlmp::script::events::host_events;
use dlmp::script::{ScriptApi, ScriptHost};
use mlua::Function;

/// The benchmark's resource: an empty chat handler, and loops over core calls published
/// as globals so the benchmark can run them `n` times in one call.
const MAIN: &str = r#"
dlmp.on("player_chat", function(p, text) end)
_G.bench_name = function(p, n) for _ = 1, n do p:name() end end
_G.bench_id = function(p, n) for _ = 1, n do p:id() end end
_G.bench_players = function(n) for _ = 1, n do dlmp.players() end end
"#;

/// A scripts folder in the temp dir, removed on drop.
struct Scripts(PathBuf);

impl Scripts {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("dlmp-bench-scripting-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let res = dir.join("bench");
        std::fs::create_dir_all(&res).expect("temp dir");
        std::fs::write(res.join("resource.toml"), "name = \"bench\"\n").expect("manifest");
        std::fs::write(res.join("main.lua"), MAIN).expect("main.lua");
        Scripts(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scripts {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A host with the player's API, the `bench` resource (when `start`) and one connected
/// player.
fn host(scripts: &Scripts, start: bool) -> (ScriptHost, LuaPlayer) {
    let mut api = ScriptApi::default();
    dlmp::player::script::register(&mut api);
    let mut host = ScriptHost::with_api(
        scripts.path().to_owned(),
        dlmp::script::ScriptLimits::default(),
        api,
    )
    .expect("Lua VM");
    if start {
        host.start("bench").expect("bench resource starts");
    }
    let entity = Entity::from_raw_u32(1).expect("valid index");
    let token = PlayerToken(7);
    set_players(
        host.lua(),
        [(
            entity,
            PlayerView {
                id: PlayerId(0),
                token,
                name: "Tommy".to_owned(),
                spawned: true,
                alive: true,
                position: Vec3::ZERO,
                virtual_world: 0,
                interior: 0,
                connected: true,
                ..PlayerView::default()
            },
        )],
    );
    (host, LuaPlayer { entity, token })
}

/// Times `iters` calls of a Lua loop `f(args..., n)`.
fn per_call(f: &Function, player: Option<LuaPlayer>, iters: u64) -> Duration {
    let start = Instant::now();
    match player {
        Some(p) => f.call::<()>((p, iters)),
        None => f.call::<()>(iters),
    }
    .expect("loop runs");
    start.elapsed()
}

fn scripting(c: &mut Criterion) {
    let scripts = Scripts::new();

    let (mut with_handler, player) = host(&scripts, true);
    let chat = player_chat(player, "hello there".to_owned());
    assert_eq!(
        with_handler.emit(&chat).handlers,
        1,
        "one handler hears chat"
    );
    c.bench_function("emit player_chat to one handler", |b| {
        b.iter(|| with_handler.emit(black_box(&chat)))
    });
    assert_eq!(with_handler.errors(), 0, "the handler ran cleanly");

    let globals = with_handler.lua().globals();
    for (name, global, pass_player) in [
        ("Lua call p:name()", "bench_name", true),
        ("Lua call p:id()", "bench_id", true),
        ("Lua call dlmp.players() (1 player)", "bench_players", false),
    ] {
        let f: Function = globals.get(global).expect("loop defined");
        let p = pass_player.then_some(player);
        c.bench_function(name, |b| b.iter_custom(|iters| per_call(&f, p, iters)));
    }

    let (mut bare, _) = host(&scripts, false);
    let tick = host_events::tick(50.0);
    assert_eq!(bare.emit(&tick).handlers, 0, "nothing listens to tick");
    c.bench_function("emit tick, no handler", |b| {
        b.iter(|| bare.emit(black_box(&tick)))
    });
}

criterion_group!(benches, scripting);
criterion_main!(benches);
