//! The run: open the bots' sockets, join at the hello rate, wait until everyone walks (or
//! the join timeout), measure the window, and keep reading a little past it so the relays
//! of its last frames count.

use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags};
use socket2::{Domain, Protocol, Socket, Type};

use dlmp_protocol::bundle::ServerDatagram;

use crate::bot::{Bot, Event, Phase, RING};
use crate::cli::Args;
use crate::drive::PATH_REACH;
use crate::recv::{self, Reader};
use crate::tally::{Counts, Latency};
use crate::{procfs, shape};

/// Relays of the window's last frames still count this long after it.
const GRACE: Duration = Duration::from_millis(300);
/// Shows settle this long after the last bot started walking.
const SETTLE: Duration = Duration::from_millis(1500);

/// What a finished run hands to the report.
pub struct Outcome {
    pub counts: Counts,
    pub latency: Latency,
    /// Of RemoteVehicleFrame relays.
    pub vehicle_latency: Latency,
    pub window: Duration,
    /// Seconds from the first hello until every bot walked (`None`: not all did).
    pub join_seconds: Option<f64>,
    /// The server process at the window's start and end.
    pub server: Option<(procfs::Sample, procfs::Sample)>,
    /// Receive-buffer drops of every UDP socket on the machine during the window.
    pub udp_rcvbuf_drops: Option<u64>,
}

/// The source address of bot `i`: `per_ip` bots share each of 127.1.x.y.
fn source_ip(i: usize, per_ip: usize) -> Ipv4Addr {
    let ip = i / per_ip.max(1);
    Ipv4Addr::new(127, 1, (ip / 250) as u8, (1 + ip % 250) as u8)
}

fn open_socket(ip: Ipv4Addr) -> io::Result<UdpSocket> {
    let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
    socket.set_recv_buffer_size(1 << 20)?;
    socket.set_nonblocking(true)?;
    socket.bind(&SocketAddr::V4(SocketAddrV4::new(ip, 0)).into())?;
    let socket: UdpSocket = socket.into();
    recv::enable_timestamps(&socket)?;
    Ok(socket)
}

/// Phases of the run.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stage {
    Joining,
    /// Everyone walks (or the join timed out); shows settle until this instant.
    Settling(Instant),
    /// Measuring until `end`.
    Measuring {
        end: Instant,
    },
    /// Past the window, reading its late relays until this instant.
    Grace(Instant),
}

/// Whether bot `i` of `bots` is one of `drivers`, spread evenly over the bots.
fn drives(i: usize, bots: usize, drivers: usize) -> bool {
    (i + 1) * drivers / bots.max(1) > i * drivers / bots.max(1)
}

/// Bot `i`'s share of `parked` vehicles to spawn, spread evenly over the bots.
fn parks(i: usize, bots: usize, parked: usize) -> usize {
    (i + 1) * parked / bots.max(1) - i * parked / bots.max(1)
}

/// Runs the bots against `server`; `pid` is the server's process, for /proc.
pub fn run(args: &Args, server: SocketAddr, pid: Option<u32>) -> io::Result<Outcome> {
    let homes = shape::homes(args.shape, args.bots, args.seed);
    let driver = |i: usize| drives(i, args.bots, args.drivers);
    // How far each bot gets from its home: a walk, or a driver's loop.
    let reach = |i: usize| {
        if driver(i) {
            PATH_REACH
        } else {
            shape::WALK_RADIUS
        }
    };
    let due = shape::due_within(&homes, shape::SHOW, reach);
    let vehicle_due = shape::due_within(&homes, shape::VEHICLE_SHOW, reach);
    let start = Instant::now();
    let epoll = Epoll::new(EpollCreateFlags::empty()).map_err(io::Error::from)?;
    let mut bots = Vec::with_capacity(args.bots);
    for (i, &home) in homes.iter().enumerate() {
        let socket = open_socket(source_ip(i, args.per_ip))?;
        epoll
            .add(
                socket.as_fd(),
                EpollEvent::new(EpollFlags::EPOLLIN, i as u64),
            )
            .map_err(io::Error::from)?;
        let jobs = (parks(i, args.bots, args.parked), driver(i));
        bots.push(Bot::new(
            socket,
            server,
            i,
            args.protocol,
            home,
            jobs,
            start,
        ));
    }
    // Bot index by the server's player_id.
    let mut by_id: Vec<Option<u32>> = Vec::new();
    let period = Duration::from_secs_f64(1.0 / args.hz.max(0.1));
    let vehicle_period = Duration::from_secs_f64(1.0 / args.vehicle_hz.max(0.1));
    let hello_gap = Duration::from_secs_f64(1.0 / args.hello_rate.max(0.1));
    let join_deadline = start + Duration::from_secs_f64(args.join_timeout);
    let window = Duration::from_secs_f64(args.seconds);
    let mut reader = Reader::new();
    let mut events = vec![EpollEvent::empty(); 256];
    let mut counts = Counts {
        bots: args.bots,
        ..Counts::default()
    };
    let mut latency = Latency::new();
    let mut vehicle_latency = Latency::new();
    let mut started = 0usize;
    let mut stage = Stage::Joining;
    let mut join_seconds = None;
    // Wall-clock ns of the window: frames sent in it count, and their relays.
    let mut span = (u64::MAX, u64::MAX);
    let (mut server_at_start, mut server_at_end) = (None, None);
    let (mut drops_at_start, mut drops_at_end) = (None, None);
    // Due viewers of each bot that walk, fixed when the window starts.
    let mut due_live = vec![0u32; args.bots];
    let mut vehicle_due_live = vec![0u32; args.bots];
    loop {
        let now = Instant::now();
        // Pace the hellos.
        while started < bots.len() && start + hello_gap.mul_f64(started as f64) <= now {
            bots[started].start(now);
            started += 1;
        }
        stage = match stage {
            Stage::Joining => {
                let ready = bots.iter().filter(|b| b.ready()).count();
                if ready == bots.len() || now >= join_deadline {
                    if ready == bots.len() {
                        join_seconds = Some(now.duration_since(start).as_secs_f64());
                    }
                    Stage::Settling(now + SETTLE)
                } else {
                    Stage::Joining
                }
            }
            Stage::Settling(until) if now >= until => {
                let live = |viewers: &[u32]| {
                    viewers.iter().filter(|&&v| bots[v as usize].live()).count() as u32
                };
                for (i, viewers) in due.iter().enumerate() {
                    due_live[i] = if bots[i].phase == Phase::Walking {
                        live(viewers)
                    } else {
                        0
                    };
                }
                for (i, viewers) in vehicle_due.iter().enumerate() {
                    vehicle_due_live[i] = if bots[i].phase == Phase::Driving {
                        live(viewers)
                    } else {
                        0
                    };
                }
                let walking = bots.iter().filter(|b| b.phase == Phase::Walking).count();
                let driving = bots.iter().filter(|b| b.phase == Phase::Driving).count();
                counts.frames_due = (walking as f64 * args.hz * window.as_secs_f64()) as u64;
                counts.vehicle_frames_due =
                    (driving as f64 * args.vehicle_hz * window.as_secs_f64()) as u64;
                span = (recv::wall_ns(), u64::MAX);
                server_at_start = pid.and_then(procfs::Sample::take);
                drops_at_start = procfs::udp_rcvbuf_errors();
                Stage::Measuring { end: now + window }
            }
            Stage::Measuring { end } if now >= end => {
                span.1 = recv::wall_ns();
                server_at_end = pid.and_then(procfs::Sample::take);
                drops_at_end = procfs::udp_rcvbuf_errors();
                Stage::Grace(now + GRACE)
            }
            Stage::Grace(until) if now >= until => break,
            other => other,
        };
        let measuring = matches!(stage, Stage::Measuring { .. });
        let wall = recv::wall_ns();
        for (i, bot) in bots.iter_mut().enumerate() {
            bot.poll(now)?;
            if bot.vehicle_frame_due(now) {
                bot.send_vehicle_frame(now, vehicle_period, wall)?;
                if measuring {
                    counts.vehicle_frames_sent += 1;
                    counts.vehicle_relays_due += u64::from(vehicle_due_live[i]);
                    if vehicle_due_live[i] > 0 {
                        counts.vehicle_frames_watched += 1;
                    }
                }
            }
            if bot.frame_due(now) {
                let walking = bot.phase == Phase::Walking;
                // A seated driver's heartbeat is sent but not counted (no send time kept).
                bot.send_frame(now, period, if walking { wall } else { 0 })?;
                if measuring && walking {
                    counts.frames_sent += 1;
                    counts.relays_due += u64::from(due_live[i]);
                    if due_live[i] > 0 {
                        counts.frames_watched += 1;
                    }
                }
            }
        }
        let ready = epoll.wait(&mut events, 1u16).unwrap_or(0);
        for event in &events[..ready] {
            let viewer = event.data() as usize;
            loop {
                let mut packets = Vec::new();
                let n =
                    reader.read(
                        &bots[viewer].socket,
                        |bytes, rx_ns| match ServerDatagram::decode(bytes) {
                            Ok(datagram) => {
                                packets.extend(datagram.packets().map(|p| (p.ok(), rx_ns)));
                            }
                            Err(_) => packets.push((None, rx_ns)),
                        },
                    )?;
                counts.datagrams_received += n as u64;
                let now = Instant::now();
                for (packet, rx_ns) in packets {
                    let Some(packet) = packet else {
                        counts.undecodable += 1;
                        continue;
                    };
                    match bots[viewer].receive(packet, now) {
                        Event::Relay { player_id, seq } => {
                            let Some(&Some(subject)) = by_id.get(player_id as usize) else {
                                continue;
                            };
                            let subject = subject as usize;
                            let slot = &mut bots[subject].sent[seq as usize % RING];
                            if slot.0 != seq || slot.1 < span.0 || slot.1 > span.1 {
                                continue;
                            }
                            let sent_ns = slot.1;
                            if !slot.2 {
                                slot.2 = true;
                                counts.frames_relayed += 1;
                                counts.relays_due_of_relayed += u64::from(due_live[subject]);
                            }
                            counts.relays_delivered += 1;
                            if due[subject].binary_search(&(viewer as u32)).is_ok() {
                                counts.relays_due_delivered += 1;
                            }
                            latency.add(rx_ns.saturating_sub(sent_ns));
                        }
                        Event::VehicleRelay { source_id, mark } => {
                            let Some(&Some(subject)) = by_id.get(source_id as usize) else {
                                continue;
                            };
                            let subject = subject as usize;
                            let slot = &mut bots[subject].vsent[mark as usize];
                            if slot.1 < span.0 || slot.1 > span.1 {
                                continue;
                            }
                            let sent_ns = slot.1;
                            if !slot.2 {
                                slot.2 = true;
                                counts.vehicle_frames_relayed += 1;
                                counts.vehicle_relays_due_of_relayed +=
                                    u64::from(vehicle_due_live[subject]);
                            }
                            counts.vehicle_relays_delivered += 1;
                            if vehicle_due[subject].binary_search(&(viewer as u32)).is_ok() {
                                counts.vehicle_relays_due_delivered += 1;
                            }
                            vehicle_latency.add(rx_ns.saturating_sub(sent_ns));
                        }
                        Event::Joined => {
                            if let Some(id) = bots[viewer].player_id {
                                let id = id as usize;
                                if by_id.len() <= id {
                                    by_id.resize(id + 1, None);
                                }
                                by_id[id] = Some(viewer as u32);
                            }
                        }
                        Event::Spawned | Event::Teleported | Event::Gone | Event::Other => {}
                    }
                }
                bots[viewer].poll(now)?;
                if n < recv::BATCH {
                    break;
                }
            }
        }
    }
    counts.unstamped = reader.unstamped;
    for bot in &bots {
        match bot.phase {
            Phase::Idle | Phase::Hello => {}
            Phase::Spawning => counts.joined += 1,
            Phase::Teleporting => {
                counts.joined += 1;
                counts.spawned += 1;
            }
            Phase::Walking => {
                counts.joined += 1;
                counts.spawned += 1;
                counts.walking += 1;
            }
            Phase::Driving => {
                counts.joined += 1;
                counts.spawned += 1;
                counts.driving += 1;
            }
            Phase::Gone => counts.gone += 1,
        }
    }
    Ok(Outcome {
        counts,
        latency,
        vehicle_latency,
        window,
        join_seconds,
        server: server_at_start.zip(server_at_end),
        udp_rcvbuf_drops: drops_at_end
            .zip(drops_at_start)
            .map(|(end, start): (u64, u64)| end.saturating_sub(start)),
    })
}
