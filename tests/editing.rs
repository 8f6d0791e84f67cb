//! editing.md in the harness, through bytes: a session started by the gamemode, the
//! selection and its rules (kind, list, resource, shown, range, one editor per entity),
//! updates, commits at the current revision and the correction of a stale or refused
//! one, cancel, every end of a session with the camera given back, the free camera as
//! the stream center, the edit limit, and the Lua functions and events of section 5.

mod world_support;

use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::ServerPacket;
use dlmp::protocol::edit::state::NO_ENTITY;
use dlmp::protocol::edit::{
    EditAction, EditCamera, EditEndReason, EditKind, EditKinds, EditSessionId, EditState,
    EntityEdit,
};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{EventId, Seq};
use dlmp::protocol::world::object::ObjectState;
use dlmp::protocol::world::shared::EntityRev;
use dlmp::script::ScriptHost;
use dlmp::world::edit::EditDrops;
use dlmp_core::position::StreamCenter;
use world_support::objects::barrel;
use world_support::{SPAWN, lua, lua_now, server, spawned, told};

/// Every edit event is told to its player in words; `G.deny_select` and `G.deny_commit`
/// refuse.
const EVENTS: &str = r#"
local function pose_words(pose)
    if not pose then return "" end
    local keys = {}
    for k in pairs(pose) do keys[#keys + 1] = k end
    table.sort(keys)
    local out = {}
    for _, k in ipairs(keys) do out[#out + 1] = k .. "=" .. pose[k] end
    return " " .. table.concat(out, ",")
end
dlmp.on("edit_select", function(p, e)
    tell(p, "select " .. e:id())
    if G.deny_select then return false end
end)
dlmp.on("entity_edit", function(p, e, action, pose)
    tell(p, action .. " " .. e:id() .. pose_words(pose))
    if action == "commit" and G.deny_commit then return false end
end)
dlmp.on("edit_end", function(p, session, reason)
    G.ends = (G.ends or 0) + 1
    tell(p, "end " .. session .. " " .. reason)
end)
dlmp.on("spectate_lost", function(p, target)
    tell(p, "lost " .. target:id())
end)
"#;

/// An object of the gamemode 5 m east of the spawn.
const NEAR: Vec3 = Vec3::new(SPAWN.x + 5.0, SPAWN.y, SPAWN.z);

fn alice(test: &str) -> (world_support::Scripts, Harness, ClientId) {
    let (s, mut h) = server(test, EVENTS);
    let a = spawned(&mut h, "alice");
    (s, h, a)
}

/// The gamemode's object at [`NEAR`], shown to `c`; its id.
fn object(h: &mut Harness, c: ClientId) -> u32 {
    lua(
        h,
        c,
        "G.o = dlmp.create_object(1225, 5, 0, 10); say(G.o:id())",
    );
    h.steps(3);
    let id: u32 = told(h, c)[0].parse().expect("the id");
    h.clear(c);
    id
}

/// `dlmp.start_edit(p, OPTS)` for `c`; the session its EditState names.
fn start(h: &mut Harness, c: ClientId, opts: &str) -> u32 {
    lua(h, c, &format!("dlmp.start_edit(p, {opts})"));
    h.step();
    states(h, c)
        .last()
        .unwrap_or_else(|| panic!("an EditState, the player was told {:?}", h.chat_lines(c)))
        .session
        .0
}

/// What `c` was told, an error as its first line without the runtime's prefix.
fn heard(h: &mut Harness, c: ClientId) -> Vec<String> {
    told(h, c)
        .into_iter()
        .map(|l| {
            let first = l.lines().next().unwrap_or_default().to_owned();
            first.replace("error: runtime error: ", "error: ")
        })
        .collect()
}

/// An EntityEdit from `c` and one tick.
#[allow(clippy::too_many_arguments)]
fn edit(
    h: &mut Harness,
    c: ClientId,
    session: u32,
    action: EditAction,
    kind: EditKind,
    id: u32,
    rev: u32,
    a: Vec3,
    b: [f32; 4],
) {
    let packet = EntityEdit {
        session_token: h.token(c),
        event_id: EventId(0),
        session: EditSessionId(session),
        action,
        kind,
        entity_id: id,
        rev: EntityRev(rev),
        a,
        b,
    };
    h.send_event(c, packet);
    h.step();
}

fn select(h: &mut Harness, c: ClientId, session: u32, id: u32) {
    edit(
        h,
        c,
        session,
        EditAction::Select,
        EditKind::Object,
        id,
        0,
        Vec3::ZERO,
        [0.0; 4],
    );
}

fn commit(h: &mut Harness, c: ClientId, session: u32, id: u32, rev: u32, at: Vec3, rz: f32) {
    edit(
        h,
        c,
        session,
        EditAction::Commit,
        EditKind::Object,
        id,
        rev,
        at,
        [0.0, 0.0, rz, 0.0],
    );
}

/// The chat lines `c` got since the last clear, kept.
fn told_kept(h: &Harness, c: ClientId) -> Vec<String> {
    h.chat_lines(c)
}

fn states(h: &Harness, c: ClientId) -> Vec<EditState> {
    h.packets::<EditState>(c)
}

/// (session, selected_id, selected_rev) of every EditState since the last clear.
fn selections(h: &Harness, c: ClientId) -> Vec<(u32, u32, u32)> {
    states(h, c)
        .iter()
        .map(|s| (s.session.0, s.selected_id, s.selected_rev.0))
        .collect()
}

fn objects(h: &Harness, c: ClientId) -> Vec<ObjectState> {
    h.packets::<ObjectState>(c)
}

fn drops(h: &Harness) -> EditDrops {
    *h.world().resource::<EditDrops>()
}

/// The edit and control packets `c` got since the last clear, in lane order, in words.
fn lane(h: &Harness, c: ClientId) -> Vec<String> {
    h.received(c)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::SetFrozen(p) => Some(format!("frozen {}", u8::from(p.frozen))),
            ServerPacket::SetCamera(p) => Some(format!("camera {:?}", p.mode)),
            ServerPacket::EditState(s) if s.session.0 == 0 => Some(format!("end {:?}", s.reason)),
            ServerPacket::EditState(s) => Some(format!("edit {}", s.session.0)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_session_starts_with_edit_state_and_a_commit_moves_the_object_for_everyone() {
    let (_s, mut h, a) = alice("commit");
    let b = spawned(&mut h, "bob");
    let id = object(&mut h, a);
    h.clear(b);
    lua(&mut h, a, "say(dlmp.start_edit(p))");
    h.step();
    assert_eq!(told_kept(&h, a), ["1"], "the first session of the run");
    let session = 1;
    let st = states(&h, a);
    assert_eq!(st.len(), 1);
    assert_eq!(
        (
            st[0].session,
            st[0].flags.pick(),
            st[0].flags.free_camera(),
            st[0].kinds
        ),
        (EditSessionId(1), true, false, EditKinds::ALL)
    );
    assert_eq!((st[0].anchor, st[0].range), (SPAWN, 300.0));
    assert_eq!(
        (st[0].selected_kind, st[0].selected_id),
        (EditKind::None, NO_ENTITY)
    );
    assert!(
        states(&h, b).is_empty(),
        "only the editor gets its EditState"
    );
    h.clear(a);

    select(&mut h, a, session, id);
    assert_eq!(selections(&h, a), [(1, id, 0)]);
    assert_eq!(told(&mut h, a), [format!("select {id}")]);
    let to = Vec3::new(SPAWN.x + 6.5, SPAWN.y + 1.0, SPAWN.z);
    h.clear(a);
    commit(&mut h, a, session, id, 0, to, 90.0);
    h.step();
    for c in [a, b] {
        let shows = objects(&h, c);
        assert_eq!(
            shows.len(),
            1,
            "one change, shown to everyone it is shown to"
        );
        assert_eq!(
            (
                shows[0].object_id.0,
                shows[0].pos,
                shows[0].rot.z,
                shows[0].rev
            ),
            (id, to, 90.0, EntityRev(1))
        );
    }
    assert_eq!(
        told(&mut h, a),
        [format!(
            "commit {id} rx=0.0,ry=0.0,rz=90.0,x=6.5,y=1.0,z=10.0"
        )]
    );
    lua_now(&mut h, a, "local x, y = G.o:position(); say(x .. ' ' .. y)");
    assert_eq!(told(&mut h, a), ["6.5 1.0"]);
    lua_now(
        &mut h,
        a,
        "say(p:edit_selection():id() .. ' ' .. p:edit_session())",
    );
    assert_eq!(told(&mut h, a), [format!("{id} 1")], "the selection stays");
}

#[test]
fn a_commit_at_a_stale_revision_is_corrected_for_the_editor_alone() {
    let (_s, mut h, a) = alice("stale");
    let b = spawned(&mut h, "bob");
    let id = object(&mut h, a);
    let session = start(&mut h, a, "nil");
    select(&mut h, a, session, id);
    lua(&mut h, a, "G.o:set_position(7, 0, 10)");
    h.step();
    h.clear(a);
    h.clear(b);
    commit(&mut h, a, session, id, 0, Vec3::new(20.0, 0.0, 10.0), 0.0);
    h.step();
    let fix = objects(&h, a);
    assert_eq!(fix.len(), 1, "the correction");
    assert_eq!(
        (fix[0].pos, fix[0].rev),
        (Vec3::new(7.0, 0.0, 10.0), EntityRev(1)),
        "the current show with the current revision"
    );
    assert!(
        objects(&h, b).is_empty(),
        "everyone else never saw the attempt"
    );
    assert_eq!(drops(&h).stale, 1);
    assert!(told(&mut h, a).is_empty(), "the gamemode is not asked");
    h.clear(a);
    commit(&mut h, a, session, id, 1, Vec3::new(20.0, 0.0, 10.0), 0.0);
    h.step();
    assert_eq!(
        objects(&h, a)[0].rev,
        EntityRev(2),
        "the current revision is taken"
    );
}

#[test]
fn a_denied_or_out_of_range_commit_is_corrected_and_changes_nothing() {
    let (_s, mut h, a) = alice("deny");
    let id = object(&mut h, a);
    let session = start(&mut h, a, "{ range = 50 }");
    select(&mut h, a, session, id);
    lua(&mut h, a, "G.deny_commit = true");
    told(&mut h, a);
    h.clear(a);
    commit(&mut h, a, session, id, 0, Vec3::new(8.0, 0.0, 10.0), 0.0);
    h.step();
    assert_eq!(objects(&h, a).len(), 1);
    assert_eq!(
        (objects(&h, a)[0].pos, objects(&h, a)[0].rev),
        (NEAR, EntityRev(0))
    );
    assert_eq!(
        told(&mut h, a),
        [format!(
            "commit {id} rx=0.0,ry=0.0,rz=0.0,x=8.0,y=0.0,z=10.0"
        )]
    );
    lua(&mut h, a, "G.deny_commit = false");
    h.clear(a);
    commit(&mut h, a, session, id, 0, Vec3::new(80.0, 0.0, 10.0), 0.0);
    h.step();
    assert_eq!(
        (objects(&h, a)[0].pos, objects(&h, a)[0].rev),
        (NEAR, EntityRev(0))
    );
    assert!(told(&mut h, a).is_empty(), "out of range: not asked");
    assert_eq!((drops(&h).denied, drops(&h).bad_pose), (1, 1));
}

#[test]
fn two_editors_race_for_one_object_and_the_second_is_refused() {
    let (_s, mut h, a) = alice("race");
    let b = spawned(&mut h, "bob");
    let id = object(&mut h, a);
    let sa = start(&mut h, a, "nil");
    let sb = start(&mut h, b, "nil");
    assert_eq!((sa, sb), (1, 2), "ids count server-wide");
    h.clear(a);
    h.clear(b);
    edit(
        &mut h,
        a,
        sa,
        EditAction::Select,
        EditKind::Object,
        id,
        0,
        Vec3::ZERO,
        [0.0; 4],
    );
    // Bob's select comes after Alice's got the entity: refused, answered with no selection.
    select(&mut h, b, sb, id);
    assert_eq!(selections(&h, a), [(1, id, 0)]);
    assert_eq!(selections(&h, b), [(2, NO_ENTITY, 0)]);
    assert_eq!(drops(&h).not_selectable, 1);
    lua(&mut h, b, "dlmp.edit_select(p, G.o)");
    assert_eq!(
        heard(&mut h, b),
        [format!(
            "error: edit_select: object {id} is selected by player {}",
            h.player_id(a).0
        )]
    );
    // Bob's commit of what he does not hold is refused and corrected.
    h.clear(b);
    commit(&mut h, b, sb, id, 0, Vec3::new(9.0, 0.0, 10.0), 0.0);
    h.step();
    assert_eq!(drops(&h).not_selected, 1);
    assert_eq!(objects(&h, b)[0].pos, NEAR);
    // Alice cancels: Bob may take it.
    h.clear(a);
    edit(
        &mut h,
        a,
        sa,
        EditAction::Cancel,
        EditKind::Object,
        id,
        0,
        Vec3::ZERO,
        [0.0; 4],
    );
    assert_eq!(selections(&h, a), [(1, NO_ENTITY, 0)]);
    assert_eq!(told(&mut h, a), [format!("cancel {id}")]);
    h.clear(b);
    select(&mut h, b, sb, id);
    assert_eq!(selections(&h, b), [(2, id, 0)]);
}

#[test]
fn only_the_starting_resources_shown_objects_within_range_of_listed_kinds_are_selectable() {
    let (_s, mut h, a) = alice("rules");
    let id = object(&mut h, a);
    let foreign = barrel(&mut h, Vec3::new(SPAWN.x + 3.0, SPAWN.y, SPAWN.z)).0;
    lua(&mut h, a, "G.far = dlmp.create_object(1225, 40, 0, 10)");
    lua(
        &mut h,
        a,
        "G.hidden = dlmp.create_object(1225, 5, 0, 10, 0, 0, 0, { virtual_world = 3 })",
    );
    lua(&mut h, a, "say(G.far:id() .. ' ' .. G.hidden:id())");
    h.steps(3);
    let ids: Vec<u32> = told(&mut h, a)[0]
        .split(' ')
        .map(|s| s.parse().expect("an id"))
        .collect();
    let (far, hidden) = (ids[0], ids[1]);
    let session = start(&mut h, a, "{ range = 20, kinds = { \"object\" } }");
    for id in [foreign, far, hidden] {
        h.clear(a);
        select(&mut h, a, session, id);
        assert_eq!(selections(&h, a), [(1, NO_ENTITY, 0)], "object {id}");
    }
    edit(
        &mut h,
        a,
        session,
        EditAction::Select,
        EditKind::Pickup,
        id,
        0,
        Vec3::ZERO,
        [0.0; 4],
    );
    assert_eq!(drops(&h).not_selectable, 4);
    assert!(told(&mut h, a).is_empty(), "the gamemode heard of none");
    lua(&mut h, a, "dlmp.stop_edit(p)");
    let session = start(&mut h, a, "{ any_resource = true, entities = { G.o } }");
    h.clear(a);
    select(&mut h, a, session, foreign);
    assert_eq!(selections(&h, a), [(2, NO_ENTITY, 0)], "not in the list");
    h.clear(a);
    select(&mut h, a, session, id);
    assert_eq!(selections(&h, a), [(2, id, 0)]);
    lua(&mut h, a, "G.deny_select = true");
    lua(&mut h, a, "dlmp.stop_edit(p)");
    let session = start(&mut h, a, "{ any_resource = true }");
    told(&mut h, a);
    h.clear(a);
    select(&mut h, a, session, foreign);
    assert_eq!(
        selections(&h, a),
        [(3, NO_ENTITY, 0)],
        "denied by the handler"
    );
    assert_eq!(told(&mut h, a), [format!("select {foreign}")]);
    assert_eq!(drops(&h).denied, 1);
}

#[test]
fn edits_of_an_ended_session_and_past_the_limit_are_counted_drops() {
    let (_s, mut h, a) = alice("limit");
    let id = object(&mut h, a);
    let session = start(&mut h, a, "nil");
    h.clear(a);
    edit(
        &mut h,
        a,
        session + 1,
        EditAction::Select,
        EditKind::Object,
        id,
        0,
        Vec3::ZERO,
        [0.0; 4],
    );
    assert!(states(&h, a).is_empty());
    assert_eq!(drops(&h).not_current, 1);
    for _ in 0..25 {
        let packet = EntityEdit {
            session_token: h.token(a),
            event_id: EventId(0),
            session: EditSessionId(session),
            action: EditAction::Select,
            kind: EditKind::Object,
            entity_id: id,
            rev: EntityRev(0),
            a: Vec3::ZERO,
            b: [0.0; 4],
        };
        h.send_event(a, packet);
    }
    h.step();
    assert_eq!(states(&h, a).len(), 20, "20 at once");
    assert_eq!(drops(&h).limited, 5);
}

#[test]
fn updates_change_nothing_and_reach_the_gamemode_at_most_5_a_second_the_latest_held() {
    let (_s, mut h, a) = alice("updates");
    let b = spawned(&mut h, "bob");
    let id = object(&mut h, a);
    let session = start(&mut h, a, "nil");
    select(&mut h, a, session, id);
    told(&mut h, a);
    h.clear(b);
    for i in 0..4 {
        let x = 6.0 + i as f32;
        let packet = EntityEdit {
            session_token: h.token(a),
            event_id: EventId(0),
            session: EditSessionId(session),
            action: EditAction::Update,
            kind: EditKind::Object,
            entity_id: id,
            rev: EntityRev(0),
            a: Vec3::new(x, 0.0, 10.0),
            b: [0.0; 4],
        };
        h.send_event(a, packet);
    }
    h.step();
    h.step();
    assert_eq!(
        told(&mut h, a),
        [format!(
            "update {id} rx=0.0,ry=0.0,rz=0.0,x=6.0,y=0.0,z=10.0"
        )]
    );
    h.steps(10);
    assert_eq!(
        told(&mut h, a),
        [format!(
            "update {id} rx=0.0,ry=0.0,rz=0.0,x=9.0,y=0.0,z=10.0"
        )],
        "the latest pose, a fifth of a second later"
    );
    assert!(objects(&h, b).is_empty(), "nothing applied");
}

#[test]
fn each_end_cause_sends_its_reason_and_raises_edit_end() {
    let (s, mut h, a) = alice("ends");
    let session = start(&mut h, a, "nil");
    h.clear(a);
    lua(&mut h, a, "dlmp.stop_edit(p)");
    h.step();
    assert_eq!(lane(&h, a), ["end Gamemode"]);
    assert_eq!(told(&mut h, a), [format!("end {session} gamemode")]);

    let session = start(&mut h, a, "nil");
    h.clear(a);
    h.send_event(a, EntityEdit::leave(h.token(a), EditSessionId(session)));
    h.steps(2);
    assert_eq!(lane(&h, a), ["end Player"]);
    assert_eq!(told(&mut h, a), [format!("end {session} player")]);

    let session = start(&mut h, a, "nil");
    h.clear(a);
    h.set_scope(a, Some(4), None);
    h.steps(2);
    assert_eq!(states(&h, a)[0].reason, EditEndReason::Scope);
    let order: Vec<&str> = h
        .received(a)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::EditState(_) => Some("end"),
            ServerPacket::ScopeChanged(_) => Some("scope"),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["end", "scope"], "the end before ScopeChanged");
    assert_eq!(told(&mut h, a), [format!("end {session} scope")]);
    h.set_scope(a, Some(0), None);

    let session = start(&mut h, a, "nil");
    h.clear(a);
    h.die(a);
    h.steps(2);
    assert_eq!(states(&h, a)[0].reason, EditEndReason::Death);
    assert_eq!(told(&mut h, a), [format!("end {session} death")]);
    lua(&mut h, a, "dlmp.start_edit(p)");
    let id = h.player_id(a).0;
    assert_eq!(
        heard(&mut h, a),
        [format!("error: start_edit: player {id} is not alive")]
    );
    h.respawn(a);
    h.live(a);

    start(&mut h, a, "nil");
    h.clear(a);
    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .stop("gm")
        .expect("running");
    h.steps(2);
    assert_eq!(lane(&h, a), ["end Resource"]);
    drop(s);
}

#[test]
fn a_disconnect_releases_the_selection_without_a_packet() {
    let (_s, mut h, a) = alice("disconnect");
    let b = spawned(&mut h, "bob");
    let id = object(&mut h, a);
    let sa = start(&mut h, a, "nil");
    let sb = start(&mut h, b, "nil");
    select(&mut h, a, sa, id);
    h.disconnect(a);
    h.steps(3);
    h.clear(b);
    select(&mut h, b, sb, id);
    assert_eq!(selections(&h, b), [(sb, id, 0)], "free again");
    told(&mut h, b);
    lua(&mut h, b, "say(G.ends or 0)");
    assert_eq!(told(&mut h, b), ["0"], "no edit_end for a disconnect");
}

#[test]
fn the_free_camera_takes_control_streams_from_its_point_and_gives_the_body_back() {
    let (_s, mut h, a) = alice("free");
    let session = start(&mut h, a, "{ camera = \"free\", range = 100 }");
    assert_eq!(lane(&h, a), ["edit 1", "frozen 1", "camera Free"]);
    assert!(states(&h, a)[0].flags.free_camera());
    lua(&mut h, a, "p:set_camera_fixed(1, 2, 3, 4, 5, 6)");
    assert_eq!(
        heard(&mut h, a),
        ["error: set_camera_fixed: camera held by an edit session"]
    );
    let report = |h: &Harness, seq: u32, pos: Vec3| EditCamera {
        session_token: h.token(a),
        session: EditSessionId(session),
        seq: Seq(seq),
        pos,
        front: Vec3::new(0.0, 1.0, 0.0),
    };
    h.send(a, report(&h, 1, Vec3::new(10.0, 0.0, 10.0)));
    h.step();
    assert_eq!(
        h.get::<StreamCenter>(a).camera,
        Some(Vec3::new(10.0, 0.0, 10.0))
    );
    // A tick later, with half a second of margin at 60 m/s: about 31 m, not 80.
    h.send(a, report(&h, 3, Vec3::new(90.0, 0.0, 10.0)));
    h.step();
    let step = 60.0 * (h.tick().as_secs_f32() + 0.5);
    let x = h.get::<StreamCenter>(a).camera.expect("the camera point").x;
    assert!(
        (x - (10.0 + step)).abs() < 1e-3,
        "{x}: one step of {step} m"
    );
    // Held within range of the anchor.
    h.advance(std::time::Duration::from_secs(10));
    h.send(a, report(&h, 4, Vec3::new(500.0, 0.0, 10.0)));
    h.step();
    assert_eq!(
        h.get::<StreamCenter>(a).camera,
        Some(Vec3::new(100.0, 0.0, 10.0))
    );
    lua_now(&mut h, a, "say(table.concat({ p:edit_camera() }, ' '))");
    assert_eq!(told(&mut h, a), ["100.0 0.0 10.0"]);
    // An old seq and a wrong session are dropped.
    h.send(a, report(&h, 2, Vec3::new(0.0, 0.0, 10.0)));
    h.send(
        a,
        EditCamera {
            session: EditSessionId(9),
            ..report(&h, 5, Vec3::ZERO)
        },
    );
    h.step();
    assert_eq!(
        h.get::<StreamCenter>(a).camera,
        Some(Vec3::new(100.0, 0.0, 10.0))
    );
    assert_eq!(drops(&h).camera, 2);
    h.clear(a);
    lua(&mut h, a, "dlmp.stop_edit(p)");
    h.step();
    assert_eq!(lane(&h, a), ["camera Own", "frozen 0", "end Gamemode"]);
    assert_eq!(h.get::<StreamCenter>(a).camera, None, "the body again");
}

#[rstest::rstest]
#[case(
    "dlmp.start_edit(p, { range = 20000 })",
    "start_edit: range 20000 is outside 1..=12000"
)]
#[case(
    "dlmp.start_edit(p, { colour = 1 })",
    "start_edit: unknown option colour (known: camera, pick, kinds, entities, any_resource, anchor, range, select)"
)]
#[case(
    "dlmp.start_edit(p, { camera = \"fly\" })",
    "start_edit: camera \"fly\" is not \"own\" or \"free\""
)]
#[case(
    "dlmp.start_edit(p, { kinds = { \"car\" } })",
    "start_edit: kinds: \"car\" is not one of object, pickup, label, zone, colshape"
)]
#[case("dlmp.stop_edit(p)", "stop_edit: player 0 is not editing")]
#[case("dlmp.edit_select(p, nil)", "edit_select: player 0 is not editing")]
#[case(
    "dlmp.start_edit(p); dlmp.start_edit(p)",
    "start_edit: player 0 is already editing"
)]
#[case(
    "dlmp.start_edit(p, { select = p })",
    "start_edit: select must be an Object, a Pickup, a Label, a GangZone or a Colshape, got userdata"
)]
fn lua_refuses_bad_calls_naming_the_argument(#[case] code: &str, #[case] error: &str) {
    let (_s, mut h, a) = alice("lua_errors");
    assert_eq!(h.player_id(a).0, 0);
    lua(&mut h, a, code);
    assert_eq!(heard(&mut h, a), [format!("error: {error}")]);
}

/// Makes an entity with `code` (a handle in `G.e`) and returns its id.
fn made(h: &mut Harness, c: ClientId, code: &str) -> u32 {
    lua(h, c, &format!("G.e = {code}; say(G.e:id())"));
    h.steps(3);
    let id = told(h, c)[0].parse().expect("the id");
    h.clear(c);
    id
}

/// Selects `id` of `kind` in a new session and commits (a, b) at `rev`; what the editor
/// was told of the commit.
fn commit_kind(
    h: &mut Harness,
    c: ClientId,
    kind: EditKind,
    id: u32,
    a: Vec3,
    b: [f32; 4],
) -> Vec<String> {
    let session = start(h, c, "nil");
    edit(
        h,
        c,
        session,
        EditAction::Select,
        kind,
        id,
        0,
        Vec3::ZERO,
        [0.0; 4],
    );
    let &(got_session, got_id, rev) = selections(h, c).last().expect("an EditState");
    assert_eq!((got_session, got_id), (session, id), "{kind:?} selected");
    h.advance(std::time::Duration::from_millis(100));
    let told_before = told(h, c);
    assert_eq!(told_before, [format!("select {id}")]);
    edit(h, c, session, EditAction::Commit, kind, id, rev, a, b);
    h.step();
    h.chat_lines(c)
}

#[test]
fn a_pickup_commit_is_a_move_with_a_new_rev_to_everyone() {
    let (_s, mut h, a) = alice("pickup");
    let b = spawned(&mut h, "bob");
    let id = made(&mut h, a, "dlmp.create_pickup(346, 5, 0, 10)");
    h.clear(b);
    let to = Vec3::new(7.0, 2.0, 10.0);
    let heard = commit_kind(&mut h, a, EditKind::Pickup, id, to, [0.0; 4]);
    assert_eq!(heard, [format!("commit {id} x=7.0,y=2.0,z=10.0")]);
    for c in [a, b] {
        let syncs = h.packets::<dlmp::protocol::world::pickup::PickupSync>(c);
        assert_eq!(syncs.len(), 1, "one move");
        assert_eq!((syncs[0].pos, syncs[0].rev), (to, EntityRev(1)));
    }
}

#[test]
fn a_label_commit_is_followed_by_edit_state_with_its_new_revision() {
    use dlmp::protocol::world::label::Label3D;
    let (_s, mut h, a) = alice("label");
    let id = made(&mut h, a, "dlmp.create_label(\"sign\", 5, 0, 10)");
    let to = Vec3::new(6.0, 1.0, 11.0);
    let heard = commit_kind(&mut h, a, EditKind::Label, id, to, [0.0; 4]);
    assert_eq!(heard, [format!("commit {id} x=6.0,y=1.0,z=11.0")]);
    let order: Vec<String> = h
        .received(a)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::Label3D(l) => Some(format!("label {:?}", l.pos)),
            ServerPacket::EditState(s) => Some(format!("state {}", s.selected_rev.0)),
            _ => None,
        })
        .collect();
    assert_eq!(order, [format!("label {to:?}"), "state 1".to_owned()]);
    // A change by the gamemode: the Label3D, then its revision in EditState.
    h.clear(a);
    lua(&mut h, a, "G.e:set_position(4, 0, 10)");
    h.step();
    assert_eq!(h.packets::<Label3D>(a).len(), 1);
    assert_eq!(selections(&h, a).last().map(|s| s.2), Some(2));
}

#[test]
fn a_gang_zone_commit_moves_its_rectangle_and_a_degenerate_one_is_corrected() {
    use dlmp::protocol::world::markers::GangZone;
    let (_s, mut h, a) = alice("zone");
    let id = made(&mut h, a, "dlmp.create_gang_zone(-10, -10, 10, 10)");
    let heard = commit_kind(
        &mut h,
        a,
        EditKind::GangZone,
        id,
        Vec3::new(-20.0, -5.0, 0.0),
        [20.0, 5.0, 0.0, 0.0],
    );
    assert_eq!(
        heard,
        [format!(
            "commit {id} max_x=20.0,max_y=5.0,min_x=-20.0,min_y=-5.0"
        )]
    );
    let zones = h.packets::<GangZone>(a);
    assert_eq!(
        (zones[0].min_x, zones[0].max_x, zones[0].rev),
        (-20.0, 20.0, EntityRev(1))
    );
}

#[test]
fn a_colshape_commit_keeps_its_form_and_another_form_is_corrected() {
    use dlmp::protocol::world::markers::ColshapeShape;
    let (_s, mut h, a) = alice("colshape");
    let id = made(
        &mut h,
        a,
        "dlmp.create_colshape(\"sphere\", 5, 0, 10, 2); G.e:show(p)",
    );
    let heard = commit_kind(
        &mut h,
        a,
        EditKind::Colshape,
        id,
        Vec3::new(6.0, 0.0, 10.0),
        [3.0, 0.0, 0.0, 0.0],
    );
    assert_eq!(
        heard,
        [format!("commit {id} radius=3.0,x=6.0,y=0.0,z=10.0")]
    );
    let shapes = h.packets::<ColshapeShape>(a);
    assert_eq!(
        (shapes[0].a, shapes[0].b.x, shapes[0].rev),
        (Vec3::new(6.0, 0.0, 10.0), 3.0, EntityRev(2)),
        "the outline was shown at revision 1"
    );
    // A height on a sphere is not its form: refused and corrected.
    h.clear(a);
    let session = h.get::<dlmp::world::edit::EditSession>(a).id.0;
    edit(
        &mut h,
        a,
        session,
        EditAction::Commit,
        EditKind::Colshape,
        id,
        2,
        Vec3::new(6.0, 0.0, 10.0),
        [3.0, 1.0, 0.0, 0.0],
    );
    h.step();
    assert_eq!(drops(&h).bad_pose, 1);
    let fix = h.packets::<ColshapeShape>(a);
    assert_eq!((fix.len(), fix[0].rev), (1, EntityRev(2)), "the correction");
}

#[test]
fn a_selection_is_released_when_its_object_goes_is_attached_or_leaves_the_range() {
    let (_s, mut h, a) = alice("release");
    let id = object(&mut h, a);
    let session = start(&mut h, a, "{ range = 50, select = G.o }");
    assert_eq!(selections(&h, a), [(session, id, 0)], "selected at once");
    h.clear(a);
    lua(&mut h, a, "G.o:set_position(100, 0, 10)");
    h.step();
    assert_eq!(selections(&h, a), [(session, NO_ENTITY, 0)], "out of range");
    lua(&mut h, a, "G.o:set_position(5, 0, 10)");
    h.steps(2);
    lua(&mut h, a, "dlmp.edit_select(p, G.o)");
    h.step();
    h.clear(a);
    lua(&mut h, a, "G.o:attach_to(p, 0, 0, 1)");
    h.step();
    assert_eq!(selections(&h, a), [(session, NO_ENTITY, 0)], "attached");
    let other = object(&mut h, a);
    lua(&mut h, a, "dlmp.edit_select(p, G.o)");
    h.step();
    assert_eq!(selections(&h, a).last(), Some(&(session, other, 0)));
    h.clear(a);
    lua(&mut h, a, "dlmp.destroy_object(G.o)");
    h.step();
    assert_eq!(selections(&h, a), [(session, NO_ENTITY, 0)], "deleted");
    lua_now(&mut h, a, "say(tostring(p:edit_selection()))");
    assert_eq!(told(&mut h, a), ["nil"]);
}

/// The pickups the server has shown to `c` now.
fn pickups_shown(h: &Harness, c: ClientId) -> Vec<u32> {
    h.world()
        .resource::<dlmp::world::pickup::PickupStream>()
        .shown()
        .of(h.player_id(c))
        .to_vec()
}

/// The labels the server has shown to `c` now.
fn labels_shown(h: &Harness, c: ClientId) -> Vec<u32> {
    h.world()
        .resource::<dlmp::world::label::LabelStream>()
        .shown()
        .of(h.player_id(c))
        .to_vec()
}

/// The vehicles the server has shown to `c` now.
fn vehicles_shown(h: &Harness, c: ClientId) -> Vec<u32> {
    h.world()
        .resource::<dlmp::vehicle::VehicleStream>()
        .shown()
        .of(h.player_id(c))
        .to_vec()
}

#[test]
fn the_world_streams_from_the_camera_point_while_it_flies_and_from_the_body_after() {
    let (_s, mut h, a) = alice("camera_stream");
    let b = spawned(&mut h, "bob");
    // Beyond the stream distances from the body: an object 350 m north (300 m), a pickup
    // 380 m north (150 m), a vehicle 400 m north (200 m), a label 320 m north (50 m), a
    // player 700 m north (420 m).
    let far = barrel(&mut h, Vec3::new(0.0, 350.0, 10.0)).0;
    let pickup = made(&mut h, a, "dlmp.create_pickup(346, 0, 380, 10)");
    let car = made(&mut h, a, "dlmp.create_vehicle(411, 0, 400, 10, 0)");
    let label = made(&mut h, a, "dlmp.create_label(\"sign\", 0, 320, 10)");
    h.teleport(b, Vec3::new(0.0, 700.0, 10.0));
    h.steps(3);
    assert!(!world_support::objects::shown(&h, a).contains(&far));
    assert!(!pickups_shown(&h, a).contains(&pickup));
    assert!(!vehicles_shown(&h, a).contains(&car));
    assert!(!labels_shown(&h, a).contains(&label));
    assert!(!h.is_shown(b, a));
    let session = start(&mut h, a, "{ camera = \"free\", range = 1000 }");
    let mut seq = 0;
    // Fly north at 50 m/s, a report every 100 ms, to 300 m.
    for i in 1..=60 {
        seq += 1;
        h.send(
            a,
            EditCamera {
                session_token: h.token(a),
                session: EditSessionId(session),
                seq: Seq(seq),
                pos: Vec3::new(0.0, i as f32 * 5.0, 10.0),
                front: Vec3::new(0.0, 1.0, 0.0),
            },
        );
        h.advance(std::time::Duration::from_millis(100));
        if i == 20 {
            h.steps(3);
            assert!(
                world_support::objects::shown(&h, a).contains(&far),
                "the object 250 m from the camera point at 100 m"
            );
            assert!(!pickups_shown(&h, a).contains(&pickup), "280 m");
        }
    }
    h.steps(5);
    assert_eq!(
        h.get::<StreamCenter>(a).camera,
        Some(Vec3::new(0.0, 300.0, 10.0))
    );
    assert!(
        pickups_shown(&h, a).contains(&pickup),
        "the pickup 80 m from the camera point"
    );
    assert!(
        vehicles_shown(&h, a).contains(&car),
        "the vehicle 100 m from the camera point"
    );
    assert!(
        labels_shown(&h, a).contains(&label),
        "the label 20 m from the camera point"
    );
    assert!(h.is_shown(b, a), "the player 400 m from the camera point");
    lua(&mut h, a, "dlmp.stop_edit(p)");
    h.steps(3);
    assert!(
        !world_support::objects::shown(&h, a).contains(&far),
        "350 m from the body again"
    );
    assert!(!pickups_shown(&h, a).contains(&pickup));
    assert!(!vehicles_shown(&h, a).contains(&car));
    assert!(!labels_shown(&h, a).contains(&label));
    assert!(!h.is_shown(b, a));
}

#[test]
fn a_nan_pose_is_dropped_by_the_decoder_and_changes_nothing() {
    use dlmp::net::DropReason;
    use dlmp::protocol::ErrorKind;
    let (_s, mut h, a) = alice("nan");
    let b = spawned(&mut h, "bob");
    let id = object(&mut h, a);
    let session = start(&mut h, a, "nil");
    select(&mut h, a, session, id);
    h.clear(a);
    h.clear(b);
    // The bytes a bad client would send: the packet's own encoder does not check.
    let before = h.stats().drops(DropReason::Decode(ErrorKind::NonFinite));
    h.send(
        a,
        EntityEdit {
            session_token: h.token(a),
            event_id: EventId(100),
            session: EditSessionId(session),
            action: EditAction::Commit,
            kind: EditKind::Object,
            entity_id: id,
            rev: EntityRev(0),
            a: Vec3::new(f32::NAN, 0.0, 10.0),
            b: [0.0; 4],
        },
    );
    h.steps(2);
    assert_eq!(
        h.stats().drops(DropReason::Decode(ErrorKind::NonFinite)),
        before + 1
    );
    assert!(
        objects(&h, a).is_empty() && objects(&h, b).is_empty(),
        "nothing changed"
    );
    assert!(told(&mut h, a).is_empty(), "the gamemode never heard of it");
}

#[test]
fn an_own_camera_session_gives_a_spectator_its_camera_back_without_spectate_lost() {
    let (_s, mut h, a) = alice("own_camera");
    let _b = spawned(&mut h, "bob");
    lua(
        &mut h,
        a,
        "for _, q in ipairs(dlmp.players()) do if q:id() ~= p:id() then p:spectate(q) end end",
    );
    h.step();
    assert_eq!(lane(&h, a), ["frozen 1", "camera Spectate"]);
    h.clear(a);
    let session = start(&mut h, a, "nil");
    assert_eq!(
        lane(&h, a),
        [
            format!("edit {session}"),
            "camera Own".into(),
            "frozen 0".into()
        ],
        "EditState, the own camera, then control"
    );
    h.steps(3);
    lua_now(&mut h, a, "say(p:camera())");
    assert_eq!(
        told(&mut h, a),
        ["own"],
        "no spectate_lost: the gamemode chose"
    );
    lua(&mut h, a, "p:reset_camera()");
    assert_eq!(
        heard(&mut h, a),
        ["error: reset_camera: camera held by an edit session"]
    );
}

#[test]
fn a_teleport_into_another_interior_ends_the_session_before_teleport_player() {
    let (_s, mut h, a) = alice("teleport_interior");
    let session = start(&mut h, a, "nil");
    h.clear(a);
    lua(&mut h, a, "p:set_position(6, 0, 10)");
    h.step();
    assert!(
        states(&h, a).is_empty(),
        "the same interior: the session goes on"
    );
    h.clear(a);
    lua(&mut h, a, "p:set_position(5, 0, 10, 3)");
    h.step();
    let order: Vec<&str> = h
        .received(a)
        .iter()
        .filter_map(|p| match p {
            ServerPacket::EditState(s) if s.session.0 == 0 => Some("end"),
            ServerPacket::EditState(_) => Some("state"),
            ServerPacket::TeleportPlayer(_) => Some("teleport"),
            ServerPacket::ScopeChanged(_) => Some("scope"),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["end", "teleport", "scope"]);
    assert_eq!(states(&h, a)[0].reason, EditEndReason::Scope);
    assert_eq!(told(&mut h, a), [format!("end {session} scope")]);
}

#[test]
fn a_moving_object_stops_at_the_committed_pose() {
    let (_s, mut h, a) = alice("moving");
    let id = object(&mut h, a);
    lua(&mut h, a, "G.o:move_to(5, 40, 10, 1)");
    h.step();
    let session = start(&mut h, a, "nil");
    h.clear(a);
    select(&mut h, a, session, id);
    let rev = selections(&h, a)[0].2;
    h.clear(a);
    let to = Vec3::new(8.0, 0.0, 10.0);
    commit(&mut h, a, session, id, rev, to, 45.0);
    h.step();
    let shows = objects(&h, a);
    assert_eq!(
        (shows[0].pos, shows[0].move_ms, shows[0].rev.0),
        (to, 0, rev + 1),
        "standing at the pose"
    );
    told(&mut h, a);
    h.advance(std::time::Duration::from_secs(3));
    h.step();
    lua_now(
        &mut h,
        a,
        "local x, y, z = G.o:position(); say(x .. ' ' .. y .. ' ' .. z)",
    );
    assert_eq!(told(&mut h, a), ["8.0 0.0 10.0"], "it moves no more");
}

#[test]
fn update_and_camera_floods_past_their_limits_are_counted_drops() {
    let (_s, mut h, a) = alice("floods");
    let id = object(&mut h, a);
    let session = start(&mut h, a, "{ camera = \"free\" }");
    select(&mut h, a, session, id);
    told(&mut h, a);
    for i in 0..15 {
        let packet = EntityEdit {
            session_token: h.token(a),
            event_id: EventId(0),
            session: EditSessionId(session),
            action: EditAction::Update,
            kind: EditKind::Object,
            entity_id: id,
            rev: EntityRev(0),
            a: Vec3::new(6.0 + i as f32 * 0.1, 0.0, 10.0),
            b: [0.0; 4],
        };
        h.send_event(a, packet);
    }
    h.step();
    assert_eq!(drops(&h).limited, 5, "updates: 10 at once");
    for seq in 1..=15 {
        h.send(
            a,
            EditCamera {
                session_token: h.token(a),
                session: EditSessionId(session),
                seq: Seq(seq),
                pos: Vec3::new(0.0, seq as f32 * 0.1, 10.0),
                front: Vec3::new(0.0, 1.0, 0.0),
            },
        );
    }
    h.step();
    assert_eq!(drops(&h).camera, 5, "reports: half a second of 20 a second");
    assert_eq!(
        h.get::<StreamCenter>(a).camera,
        Some(Vec3::new(0.0, 1.0, 10.0)),
        "the tenth report is the last taken"
    );
}

#[test]
fn the_anchor_centers_the_range_and_a_refused_select_keeps_the_selection_before() {
    let (_s, mut h, a) = alice("anchor");
    let id = object(&mut h, a);
    // In range of the anchor but beyond an object's stream distance: not shown.
    let hidden = made(&mut h, a, "dlmp.create_object(1225, 500, 0, 10)");
    let at = Vec3::new(250.0, 0.0, 10.0);
    let session = start(&mut h, a, "{ anchor = { 250, 0, 10 }, range = 260 }");
    assert_eq!(
        (states(&h, a)[0].anchor, states(&h, a)[0].range),
        (at, 260.0)
    );
    h.clear(a);
    select(&mut h, a, session, id);
    assert_eq!(selections(&h, a), [(session, id, 0)]);
    h.clear(a);
    select(&mut h, a, session, hidden);
    assert_eq!(
        selections(&h, a),
        [(session, id, 0)],
        "not shown: the answer is the selection before"
    );
    assert_eq!(drops(&h).not_selectable, 1);
    h.clear(a);
    lua(&mut h, a, "dlmp.edit_select(p, nil)");
    h.step();
    assert_eq!(selections(&h, a), [(session, NO_ENTITY, 0)], "released");
    lua(&mut h, a, "dlmp.start_edit(p, { anchor = { 7000, 0, 0 } })");
    let heard = heard(&mut h, a);
    assert!(
        heard[0].starts_with("error: start_edit: anchor x 7000 is outside"),
        "{heard:?}"
    );
}

#[test]
fn a_death_under_the_free_camera_gives_the_camera_back_before_the_end() {
    let (_s, mut h, a) = alice("free_death");
    let session = start(&mut h, a, "{ camera = \"free\" }");
    h.clear(a);
    h.die(a);
    h.steps(2);
    assert_eq!(lane(&h, a), ["camera Own", "frozen 0", "end Death"]);
    assert_eq!(told(&mut h, a), [format!("end {session} death")]);
    assert_eq!(h.get::<StreamCenter>(a).camera, None, "the body again");
}

#[test]
fn a_player_the_gamemode_froze_edits_and_stays_frozen_after_a_free_camera_session() {
    let (_s, mut h, a) = alice("frozen");
    let id = object(&mut h, a);
    lua(&mut h, a, "p:set_frozen(true)");
    h.step();
    h.clear(a);
    let session = start(&mut h, a, "{ camera = \"free\" }");
    assert_eq!(
        lane(&h, a),
        [format!("edit {session}"), "camera Free".into()],
        "frozen already: no second SetFrozen"
    );
    h.clear(a);
    select(&mut h, a, session, id);
    assert_eq!(
        selections(&h, a),
        [(session, id, 0)],
        "a frozen editor edits"
    );
    h.clear(a);
    lua(&mut h, a, "dlmp.stop_edit(p)");
    h.step();
    assert_eq!(
        lane(&h, a),
        ["camera Own", "end Gamemode"],
        "the gamemode's freeze holds: no SetFrozen(0)"
    );
}

#[test]
fn edit_camera_needs_the_free_camera_and_its_seq_counts_per_connection_across_sessions() {
    let (_s, mut h, a) = alice("camera_seq");
    let report = |h: &Harness, session: u32, seq: u32, y: f32| EditCamera {
        session_token: h.token(a),
        session: EditSessionId(session),
        seq: Seq(seq),
        pos: Vec3::new(0.0, y, 10.0),
        front: Vec3::new(0.0, 1.0, 0.0),
    };
    let own = start(&mut h, a, "nil");
    h.send(a, report(&h, own, 1, 1.0));
    h.step();
    assert_eq!(drops(&h).camera, 1, "no free camera in this session");
    assert_eq!(h.get::<StreamCenter>(a).camera, None, "the body");
    lua(&mut h, a, "dlmp.stop_edit(p)");
    let first = start(&mut h, a, "{ camera = \"free\" }");
    h.send(a, report(&h, first, 5, 1.0));
    h.step();
    lua(&mut h, a, "dlmp.stop_edit(p)");
    let second = start(&mut h, a, "{ camera = \"free\" }");
    h.send(a, report(&h, second, 3, 2.0));
    h.step();
    assert_eq!(
        drops(&h).camera,
        2,
        "older than the last of the first session"
    );
    assert_eq!(h.get::<StreamCenter>(a).camera, Some(SPAWN));
    h.send(a, report(&h, second, 6, 2.0));
    h.step();
    assert_eq!(
        h.get::<StreamCenter>(a).camera,
        Some(Vec3::new(0.0, 2.0, 10.0))
    );
}

#[test]
fn an_update_held_back_is_not_raised_after_the_commit_that_ends_the_drag() {
    let (_s, mut h, a) = alice("held_commit");
    let id = object(&mut h, a);
    let session = start(&mut h, a, "nil");
    select(&mut h, a, session, id);
    told(&mut h, a);
    for x in [6.0, 7.0] {
        let packet = EntityEdit {
            session_token: h.token(a),
            event_id: EventId(0),
            session: EditSessionId(session),
            action: EditAction::Update,
            kind: EditKind::Object,
            entity_id: id,
            rev: EntityRev(0),
            a: Vec3::new(x, 0.0, 10.0),
            b: [0.0; 4],
        };
        h.send_event(a, packet);
    }
    h.step();
    commit(&mut h, a, session, id, 0, Vec3::new(8.0, 0.0, 10.0), 0.0);
    h.steps(15);
    assert_eq!(
        told(&mut h, a),
        [
            format!("update {id} rx=0.0,ry=0.0,rz=0.0,x=6.0,y=0.0,z=10.0"),
            format!("commit {id} rx=0.0,ry=0.0,rz=0.0,x=8.0,y=0.0,z=10.0"),
        ],
        "the pose at 7 m was held back and the commit ended the drag"
    );
}

#[test]
fn two_selects_of_one_object_in_one_tick_go_to_the_first_sender() {
    let (_s, mut h, a) = alice("race_tick");
    let b = spawned(&mut h, "bob");
    let id = object(&mut h, a);
    let sa = start(&mut h, a, "{ any_resource = true }");
    let sb = start(&mut h, b, "{ any_resource = true }");
    h.clear(a);
    h.clear(b);
    for (c, session) in [(b, sb), (a, sa)] {
        let packet = EntityEdit {
            session_token: h.token(c),
            event_id: EventId(0),
            session: EditSessionId(session),
            action: EditAction::Select,
            kind: EditKind::Object,
            entity_id: id,
            rev: EntityRev(0),
            a: Vec3::ZERO,
            b: [0.0; 4],
        };
        h.send_event(c, packet);
    }
    h.step();
    assert_eq!(selections(&h, b), [(sb, id, 0)], "Bob's came first");
    assert_eq!(selections(&h, a), [(sa, NO_ENTITY, 0)]);
    // Both commit in one tick: only the holder's is applied; Alice's is corrected.
    h.clear(a);
    h.clear(b);
    for (c, session, x) in [(a, sa, 9.0), (b, sb, 7.0)] {
        let packet = EntityEdit {
            session_token: h.token(c),
            event_id: EventId(0),
            session: EditSessionId(session),
            action: EditAction::Commit,
            kind: EditKind::Object,
            entity_id: id,
            rev: EntityRev(0),
            a: Vec3::new(x, 0.0, 10.0),
            b: [0.0; 4],
        };
        h.send_event(c, packet);
    }
    h.steps(2);
    let shows = |c| {
        objects(&h, c)
            .iter()
            .map(|o| (o.pos.x, o.rev.0))
            .collect::<Vec<_>>()
    };
    assert_eq!(shows(b), [(7.0, 1)], "Bob's commit, once");
    assert_eq!(
        shows(a),
        [(5.0, 0), (7.0, 1)],
        "Alice's correction, then Bob's change"
    );
}

#[test]
fn a_colshape_is_selectable_only_with_its_outline_shown_and_a_box_keeps_its_form() {
    use dlmp::protocol::world::markers::ColshapeShape;
    let (_s, mut h, a) = alice("colshape_box");
    let id = made(
        &mut h,
        a,
        "dlmp.create_colshape(\"box\", 0, 0, 5, 10, 10, 15)",
    );
    let session = start(&mut h, a, "nil");
    h.clear(a);
    edit(
        &mut h,
        a,
        session,
        EditAction::Select,
        EditKind::Colshape,
        id,
        0,
        Vec3::ZERO,
        [0.0; 4],
    );
    assert_eq!(
        selections(&h, a),
        [(session, NO_ENTITY, 0)],
        "no outline shown to the editor"
    );
    lua(&mut h, a, "dlmp.stop_edit(p); G.e:show(p)");
    h.steps(2);
    h.clear(a);
    let heard = commit_kind(
        &mut h,
        a,
        EditKind::Colshape,
        id,
        Vec3::new(2.0, 2.0, 5.0),
        [12.0, 12.0, 16.0, 0.0],
    );
    assert_eq!(
        heard,
        [format!(
            "commit {id} max_x=12.0,max_y=12.0,max_z=16.0,min_x=2.0,min_y=2.0,min_z=5.0"
        )]
    );
    let shapes = h.packets::<ColshapeShape>(a);
    let last = shapes.last().expect("the change");
    assert_eq!(
        (last.a, last.b, last.rev),
        (
            Vec3::new(2.0, 2.0, 5.0),
            Vec3::new(12.0, 12.0, 16.0),
            EntityRev(2)
        )
    );
    // A box whose min is not below its max: corrected.
    let session = h.get::<dlmp::world::edit::EditSession>(a).id.0;
    h.clear(a);
    edit(
        &mut h,
        a,
        session,
        EditAction::Commit,
        EditKind::Colshape,
        id,
        2,
        Vec3::new(2.0, 2.0, 5.0),
        [12.0, 1.0, 16.0, 0.0],
    );
    h.step();
    let fix = h.packets::<ColshapeShape>(a);
    assert_eq!((fix.len(), fix[0].b.y, fix[0].rev), (1, 12.0, EntityRev(2)));
}
