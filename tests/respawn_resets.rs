//! player.md, "a new respawn grant sends ... after it", across every feature at once: a
//! gamemode sets each per-life command through Lua, the player dies by damage and respawns
//! through RespawnRequest, and the owner gets the resets after RespawnPlayer, in the order
//! the pages require, while the state that survives a respawn stays.

use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::player::frame::FrameState;
use dlmp::player::{Appearance, Body, Hud, Life};
use dlmp::protocol::ServerPacket;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::player::action::SpecialAction;
use dlmp::protocol::player::appearance::SetHeadless;
use dlmp::protocol::player::control::{
    CameraMode, SetCamera, SetFrozen, SetOnFire, SetSpecialAction,
};
use dlmp::protocol::player::hud::SetDrunkLevel;
use dlmp::protocol::player::life::RespawnPlayer;
use dlmp::protocol::player::sync::Frame;

const SPAWN: Vec3 = Vec3::new(100.0, 200.0, 10.0);

const GM: &str = r#"
dlmp.on("player_connect", function(p)
    dlmp.spawn_player(p, 100, 200, 10, 0)
end)
dlmp.on("player_command", function(p, name)
    if name == "setup" then
        p:set_frozen(true)
        p:set_camera_fixed(120, 200, 30, 100, 200, 10)
        p:set_on_fire(true)
        p:set_special_action("phone")
        p:set_headless(true)
        p:set_drunk_level(100)
        p:set_velocity(0, 0, 10)
        p:set_gravity(0.004)
        p:set_world_bounds(-500, -500, 500, 500)
        p:set_money(500)
        p:set_skin(230, 2)
    end
    return true
end)
"#;

/// Alice, spawned by the gamemode and confirmed by a living frame.
fn alice(test: &str) -> (TempScripts, Harness, ClientId) {
    let s = TempScripts::new(test);
    s.resource("gm", GM);
    let mut h = s.harness();
    let a = h.connect("alice");
    h.step();
    h.request_spawn(a);
    h.step();
    h.sync(a, 1, Frame::standing(SPAWN));
    assert!(h.get::<Life>(a).alive);
    (s, h, a)
}

#[test]
fn a_real_respawn_grant_resets_each_per_life_command_after_respawn_player() {
    let (_s, mut h, a) = alice("respawn-resets");
    h.chat(a, "/setup");
    h.step();
    assert_eq!(h.script_host().errors(), 0);
    assert!(
        h.get::<FrameState>(a).movement.pending() > 0,
        "a throw awaits"
    );
    let burning = Frame {
        on_fire: true,
        ..Frame::standing(SPAWN)
    };
    h.sync(a, 2, burning);
    assert!(h.get::<Body>(a).on_fire, "the body burns");

    // Death by a fall: the ledger commits it. Death keeps the freeze and the camera.
    h.die(a);
    assert!(!h.get::<Life>(a).alive);
    assert_eq!(
        h.get::<Body>(a).special_action,
        SpecialAction::None,
        "death ends it"
    );
    assert!(
        h.get::<FrameState>(a).frozen.is_some(),
        "death keeps the freeze"
    );
    h.clear(a);
    assert_eq!(
        h.get::<FrameState>(a).movement.throws_unechoed(),
        1,
        "the throw is not echoed"
    );

    h.respawn(a);
    h.steps(2);

    let got: Vec<&ServerPacket> = h
        .received(a)
        .iter()
        .filter(|p| {
            matches!(
                p,
                ServerPacket::RespawnPlayer(_)
                    | ServerPacket::SetCamera(_)
                    | ServerPacket::SetFrozen(_)
                    | ServerPacket::SetOnFire(_)
                    | ServerPacket::SetSpecialAction(_)
                    | ServerPacket::SetHeadless(_)
                    | ServerPacket::SetDrunkLevel(_)
            )
        })
        .collect();
    let position = |f: &dyn Fn(&ServerPacket) -> bool| got.iter().position(|p| f(p));
    let grant = position(&|p| matches!(p, ServerPacket::RespawnPlayer(_))).expect("granted");
    assert_eq!(grant, 0, "every reset follows the grant: {got:?}");
    assert_eq!(got.len(), 7, "one of each: {got:?}");

    let camera = position(&|p| matches!(p, ServerPacket::SetCamera(_))).expect("camera");
    let frozen = position(&|p| matches!(p, ServerPacket::SetFrozen(_))).expect("frozen");
    assert!(
        camera < frozen,
        "the own camera returns before SetFrozen(0)"
    );
    assert_eq!(h.packets::<SetCamera>(a)[0].mode, CameraMode::Own);
    assert!(!h.packets::<SetFrozen>(a)[0].frozen);
    assert!(!h.packets::<SetOnFire>(a)[0].on_fire);
    assert_eq!(
        h.packets::<SetSpecialAction>(a)[0].action,
        SpecialAction::None
    );
    assert!(!h.packets::<SetHeadless>(a)[0].headless);
    assert_eq!(h.packets::<SetDrunkLevel>(a)[0].level, 0);
    assert_eq!(h.packets::<RespawnPlayer>(a)[0].spawn, SPAWN);

    // Reset: the freeze, the throws awaiting echo, fire, head, drunkenness.
    let state = h.get::<FrameState>(a);
    assert!(state.frozen.is_none());
    // Applied by the ack rule during the death, the throw has no echo yet: still one to
    // discard.
    assert_eq!(state.movement.throws_unechoed(), 0, "throws are discarded");
    assert!(!h.get::<Appearance>(a).headless);
    assert_eq!(h.get::<Hud>(a).drunk_level, 0);
    assert!(
        !h.get::<Body>(a).on_fire,
        "the grant clears the server's on_fire"
    );

    // Kept: gravity, world bounds, money, skin.
    assert_eq!(h.get::<Body>(a).gravity, 0.004);
    assert!(state.bounds.is_some());
    assert_eq!(h.get::<Hud>(a).money, 500);
    assert_eq!(
        (h.get::<Appearance>(a).skin, h.get::<Appearance>(a).variant),
        (230, 2)
    );
    assert_eq!(h.script_host().errors(), 0);
}
