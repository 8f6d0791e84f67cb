//! The connect spawn in a join storm (issue 11, ADR 0043): clients that join at 200 hellos a
//! second and ask for their spawn at once each get SpawnPlayer within a bounded number of
//! ticks of their first RequestSpawn, although the server's send budget paces a roster of
//! hundreds to each of them, and the spawn point holds objects whose shows must be
//! acknowledged first (world.md, "Ordering around spawns"). Every ordering rule still holds
//! on each client's wire: the objects at the point before the grant, nothing naming a
//! player before that player's PlayerJoin (connection.md §5), the whole roster delivered.

mod world_support;

use std::collections::HashSet;

use dlmp::harness::{ClientId, Harness};
use dlmp::protocol::ServerPacket;
use dlmp::protocol::connection::handshake::ServerHello;
use dlmp::protocol::connection::roster::PlayerJoin;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::player::life::SpawnPlayer;
use dlmp::world::object::{ObjectSpec, create_object};
use world_support::{SPAWN, scripts};

/// Hellos per 20 ms tick: 200 a second.
const HELLOS_PER_TICK: usize = 4;
/// A client repeats RequestSpawn this often until SpawnPlayer arrives (250 ms).
const SPAWN_RETRY_TICKS: usize = 12;
/// The longest a client may wait for its SpawnPlayer after its first RequestSpawn.
const SPAWN_WITHIN_TICKS: usize = 25;
const MAX_TICKS: usize = 2_000;

/// The player ids a packet names besides the recipient's own (connection.md §5: a packet
/// that names another player carries its id and token).
fn names_player(packet: &ServerPacket) -> Option<u32> {
    match packet {
        ServerPacket::PlayerNametag(p) => Some(p.id.0),
        ServerPacket::RemotePlayerSync(p) => Some(p.player_id.0),
        ServerPacket::PlayerSkills(p) => Some(p.id.0),
        _ => None,
    }
}

struct Client {
    id: ClientId,
    hello_tick: usize,
    asked: Option<usize>,
    spawned: Option<usize>,
}

/// `n` clients join at [`HELLOS_PER_TICK`] on a server with `budget` datagrams a tick and
/// five objects at the spawn point; each asks for its spawn as soon as it has its
/// ServerHello and repeats until granted. Returns the most ticks any waited.
fn storm(n: usize, budget: usize) -> usize {
    let s: world_support::Scripts = scripts("spawn_storm", "");
    let mut h = s.harness_with(|c| dlmp::config::Config {
        session_timeout_ms: 3_600_000,
        net_send_budget: budget,
        ..c
    });
    for i in 0..5 {
        let at = Vec3::new(SPAWN.x + i as f32, SPAWN.y, SPAWN.z);
        create_object(h.world_mut(), ObjectSpec::new(1225, at), None).expect("an object");
    }
    let mut clients: Vec<Client> = (0..n)
        .map(|i| Client {
            id: h.add_client(),
            hello_tick: i / HELLOS_PER_TICK,
            asked: None,
            spawned: None,
        })
        .collect();
    let mut worst = 0;
    for tick in 0..MAX_TICKS {
        for (i, c) in clients.iter_mut().enumerate() {
            if c.hello_tick == tick {
                let hello = h.client_hello(c.id, &format!("bot{i}"));
                h.send(c.id, hello);
            }
            if c.spawned.is_some() || h.packets::<ServerHello>(c.id).is_empty() {
                continue;
            }
            if !h.packets::<SpawnPlayer>(c.id).is_empty() {
                let asked = c.asked.expect("asked before granted");
                c.spawned = Some(tick);
                worst = worst.max(tick - asked);
                continue;
            }
            let first = *c.asked.get_or_insert(tick);
            if (tick - first) % SPAWN_RETRY_TICKS == 0 {
                h.request_spawn(c.id);
            }
        }
        let everyone = clients.iter().all(|c| c.spawned.is_some())
            && clients
                .iter()
                .all(|c| h.packets::<PlayerJoin>(c.id).len() == n - 1);
        if everyone {
            for c in &clients {
                check_order(&h, c.id, n);
            }
            return worst;
        }
        h.step();
    }
    let late: Vec<usize> = (0..n).filter(|&i| clients[i].spawned.is_none()).collect();
    panic!("the storm of {n} did not complete in {MAX_TICKS} ticks; not spawned: {late:?}");
}

/// The ordering rules on one client's wire.
fn check_order(h: &Harness, c: ClientId, n: usize) {
    let wire = h.received(c);
    let spawn = wire
        .iter()
        .position(|p| matches!(p, ServerPacket::SpawnPlayer(_)))
        .expect("granted");
    let objects: HashSet<u32> = wire[..spawn]
        .iter()
        .filter_map(|p| match p {
            ServerPacket::ObjectState(s) if s.active => Some(s.object_id.0),
            _ => None,
        })
        .collect();
    assert_eq!(
        objects.len(),
        5,
        "every object at the point before the grant"
    );
    let own = h.player_id(c).0;
    let mut joined = HashSet::new();
    for packet in wire {
        if let ServerPacket::PlayerJoin(j) = packet {
            assert!(joined.insert(j.id.0), "one PlayerJoin of {}", j.id.0);
        }
        if let Some(subject) = names_player(packet)
            && subject != own
        {
            assert!(
                joined.contains(&subject),
                "{packet:?} before the PlayerJoin of {subject}"
            );
        }
    }
    assert_eq!(joined.len(), n - 1, "the whole roster");
}

#[test]
fn a_storm_of_newcomers_each_spawns_promptly_behind_a_paced_roster() {
    let worst = storm(240, 40);
    assert!(
        worst <= SPAWN_WITHIN_TICKS,
        "a newcomer waited {worst} ticks for its SpawnPlayer"
    );
}
