//! One bot: a client that joins (hello, RequestSpawn until SpawnPlayer), asks freeroam to
//! teleport it home (`/tp x y z`), then walks a small circle there sending PlayerSync at
//! the configured rate, applies the server's reliable lane in order and acknowledges it.
//! Walking, it may spawn vehicles to leave parked (`/v MODEL`) and, if it drives, spawn
//! its own, enter it (VehicleEnter, then the VehicleOccupancy that seats it) and drive it
//! ([`crate::drive`]). Its events (chat lines, the enter) go one at a time, each resent
//! until the server acknowledges it, as a client's lane does.

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use dlmp_protocol::connection::chat::{ChatText, ClientChat};
use dlmp_protocol::connection::handshake::{ClientHello, MAGIC};
use dlmp_protocol::connection::lane::ClientAck;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{EventId, Seq, SessionToken};
use dlmp_protocol::lane::{InboundLane, Verdict};
use dlmp_protocol::player::life::RequestSpawn;
use dlmp_protocol::player::sync::{Frame, Keys, MoveState, PlayerSync};
use dlmp_protocol::serial::Serial;
use dlmp_protocol::text::FixedText;
use dlmp_protocol::vehicle::seats::{OccupancyKind, VehicleEnter, VehicleOccupancy};
use dlmp_protocol::{ClientPacket, MAX_DATAGRAM, ServerPacket};

use crate::drive::{Car, DRIVE_MODEL, MARKS, PARKED_MODELS, SPAWN_OFFSET, mark_of};
use crate::shape::{HOME_Z, WALK_RADIUS};

/// A client resends its hello this often until it is answered (connection.md §2).
const HELLO_RETRY: Duration = Duration::from_millis(500);
/// RequestSpawn repeats this often until SpawnPlayer (player.md, RequestSpawn).
const SPAWN_RETRY: Duration = Duration::from_millis(250);
/// The `/tp` line is sent this long after the spawn (the life is confirmed by then) ...
const TP_DELAY: Duration = Duration::from_millis(200);
/// ... resent until the server acknowledges it, and asked again if no teleport came.
const CHAT_RETRY: Duration = Duration::from_millis(500);
const TP_RETRY: Duration = Duration::from_secs(3);
/// Walking speed, m/s.
const WALK_SPEED: f32 = 1.5;
/// Physics steps per second: Frame.vel is per step (player.md).
const STEPS: f32 = 50.0;
/// Frames remembered for matching relays to their send time.
pub const RING: usize = 256;
/// Chat lines go at most this often after the `/tp` (the server takes 1 a second).
const LINE_GAP: Duration = Duration::from_millis(1100);
/// A driver asks for its vehicle again if none shows this long after `/v`, or if the
/// enter gets no seat in this time.
const VEHICLE_RETRY: Duration = Duration::from_secs(3);
/// A seated driver's PlayerSync heartbeat (player.md: every 100 ms).
const HEARTBEAT: Duration = Duration::from_millis(100);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Not started yet (hellos are paced).
    Idle,
    Hello,
    Spawning,
    /// Spawned at the gamemode's point; `/tp` asked.
    Teleporting,
    /// At home, walking: its frames and relays count.
    Walking,
    /// In its vehicle's seat 0, driving: its vehicle frames and their relays count.
    Driving,
    /// Refused or disconnected by the server.
    Gone,
}

/// What one received packet meant, for the tally.
pub enum Event {
    Relay {
        player_id: u32,
        seq: u32,
    },
    /// A RemoteVehicleFrame of the bots' vehicle `vehicle_id` and the seq mark it carries.
    VehicleRelay {
        source_id: u32,
        mark: u32,
    },
    Joined,
    Spawned,
    Teleported,
    Gone,
    Other,
}

pub struct Bot {
    pub socket: UdpSocket,
    server: SocketAddr,
    nonce: u32,
    name: FixedText<24>,
    protocol: u16,
    pub phase: Phase,
    token: SessionToken,
    pub player_id: Option<u32>,
    lane: InboundLane,
    next_event: EventId,
    /// The client event awaiting the ServerAck (the `/tp` or `/v` line, VehicleEnter),
    /// and when it was last sent.
    pending: Option<(ClientPacket, EventId, Instant)>,
    /// When the next `/v` line may go.
    next_line: Instant,
    /// Vehicles still to spawn and leave parked.
    pub parks: usize,
    pub drive: Drive,
    /// When the next hello, RequestSpawn, or `/tp` is due.
    retry_at: Instant,
    pub home: (f32, f32),
    angle: f32,
    pub pos: Vec3,
    seq: u32,
    pub next_frame: Instant,
    last_frame: Instant,
    /// Wall-clock send time (ns since the epoch) of each remembered frame, by `seq % RING`,
    /// with its seq and whether a relay of it arrived.
    pub sent: Vec<(u32, u64, bool)>,
    /// The same for vehicle frames, by `seq % MARKS` (the mark their relays carry).
    pub vsent: Vec<(u32, u64, bool)>,
    vseq: u32,
    /// An ack is owed for reliable packets received.
    ack_due: bool,
    buf: [u8; MAX_DATAGRAM],
}

impl Bot {
    pub fn new(
        socket: UdpSocket,
        server: SocketAddr,
        index: usize,
        protocol: u16,
        home: (f32, f32),
        jobs: (usize, bool),
        now: Instant,
    ) -> Bot {
        let name = FixedText::new(&format!("bot{index}")).expect("a short name");
        Bot {
            socket,
            server,
            nonce: 0x1000_0000 ^ index as u32,
            name,
            protocol,
            phase: Phase::Idle,
            token: SessionToken(0),
            player_id: None,
            lane: InboundLane::new(),
            next_event: EventId(1),
            pending: None,
            next_line: now,
            parks: jobs.0,
            drive: if jobs.1 { Drive::Need } else { Drive::No },
            retry_at: now,
            home,
            angle: 0.0,
            pos: Vec3::new(home.0, home.1, HOME_Z),
            seq: 0,
            next_frame: now,
            last_frame: now,
            sent: vec![(0, 0, false); RING],
            vsent: vec![(0, 0, false); MARKS as usize],
            vseq: 0,
            ack_due: false,
            buf: [0; MAX_DATAGRAM],
        }
    }

    fn send(&mut self, packet: impl Into<ClientPacket>) -> io::Result<()> {
        let n = packet
            .into()
            .encode(&mut self.buf)
            .map_err(|e| io::Error::other(e.to_string()))?;
        match self.socket.send_to(&self.buf[..n], self.server) {
            Ok(_) => Ok(()),
            // A full send buffer loses the datagram, as the network could.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(()),
            Err(e) => Err(e),
        }
    }

    pub fn start(&mut self, now: Instant) {
        self.phase = Phase::Hello;
        self.retry_at = now;
    }

    /// Sends whatever is due at `now`: hello, RequestSpawn and event resends, the owed
    /// ack, the `/tp` line, the `/v` lines and the enter. Frames are sent by
    /// [`Bot::send_frame`] and [`Bot::send_vehicle_frame`].
    pub fn poll(&mut self, now: Instant) -> io::Result<()> {
        if self.ack_due {
            self.ack_due = false;
            self.send(ClientAck {
                session_token: self.token,
                event_id: self.lane.last_applied(),
            })?;
        }
        if let Some((packet, _, sent)) = &mut self.pending {
            if now >= *sent + CHAT_RETRY {
                *sent = now;
                let packet = packet.clone();
                self.send(packet)?;
            }
            return Ok(());
        }
        if now < self.retry_at {
            return Ok(());
        }
        match self.phase {
            Phase::Idle | Phase::Driving | Phase::Gone => {}
            Phase::Walking => self.vehicle_jobs(now)?,
            Phase::Hello => {
                self.retry_at = now + HELLO_RETRY;
                self.send(ClientHello {
                    magic: MAGIC,
                    protocol: self.protocol,
                    nonce: self.nonce,
                    name: self.name,
                    pad: [0; 29],
                })?;
            }
            Phase::Spawning => {
                self.retry_at = now + SPAWN_RETRY;
                self.send(RequestSpawn {
                    session_token: self.token,
                })?;
            }
            Phase::Teleporting => {
                let (x, y) = (self.home.0 + WALK_RADIUS, self.home.1);
                self.line(&format!("/tp {x:.2} {y:.2} {HOME_Z:.2}"), now)?;
                self.retry_at = now + CHAT_RETRY;
            }
        }
        Ok(())
    }

    /// A walking bot's next step toward its vehicles: the parked ones first, then its own
    /// (ask, and once shown, enter).
    fn vehicle_jobs(&mut self, now: Instant) -> io::Result<()> {
        if self.parks > 0 && now >= self.next_line {
            let model = PARKED_MODELS[(self.parks + self.nonce as usize) % PARKED_MODELS.len()];
            self.parks -= 1;
            return self.line(&format!("/v {model}"), now);
        }
        match self.drive {
            Drive::Need if self.parks == 0 && now >= self.next_line => {
                let spot = Vec3::new(self.pos.x + SPAWN_OFFSET, self.pos.y, self.pos.z);
                self.drive = Drive::Asked { spot, at: now };
                self.line(&format!("/v {DRIVE_MODEL}"), now)
            }
            Drive::Asked { at, .. } | Drive::Entering { at, .. } if now >= at + VEHICLE_RETRY => {
                self.drive = Drive::Need;
                Ok(())
            }
            Drive::Found(car) => {
                self.drive = Drive::Entering { car, at: now };
                let event_id = self.take_event();
                self.event(
                    VehicleEnter {
                        session_token: self.token,
                        event_id,
                        vehicle_id: car.id,
                        seat: 0,
                    }
                    .into(),
                    event_id,
                    now,
                )
            }
            _ => Ok(()),
        }
    }

    fn take_event(&mut self) -> EventId {
        let id = self.next_event;
        self.next_event = id.next();
        id
    }

    /// Sends a chat line as the next client event.
    fn line(&mut self, text: &str, now: Instant) -> io::Result<()> {
        let text = ChatText::new(text).map_err(|e| io::Error::other(format!("{e:?}")))?;
        let event_id = self.take_event();
        self.next_line = now + LINE_GAP;
        let chat = ClientChat {
            session_token: self.token,
            event_id,
            text,
        };
        self.event(chat.into(), event_id, now)
    }

    /// Sends a client event and keeps it until the server acknowledges it.
    fn event(&mut self, packet: ClientPacket, id: EventId, now: Instant) -> io::Result<()> {
        self.pending = Some((packet.clone(), id, now));
        self.send(packet)
    }

    /// Whether the bot has nothing left to do before the window: walking with no vehicle
    /// to spawn or get, or driving.
    pub fn ready(&self) -> bool {
        match self.phase {
            Phase::Walking => self.parks == 0 && matches!(self.drive, Drive::No),
            Phase::Driving => true,
            _ => false,
        }
    }

    /// Whether it is a client the server shows others to: walking or driving.
    pub fn live(&self) -> bool {
        matches!(self.phase, Phase::Walking | Phase::Driving)
    }

    /// Whether a vehicle frame is due: driving and the vehicle frame period passed.
    pub fn vehicle_frame_due(&self, now: Instant) -> bool {
        matches!(self.drive, Drive::Driving { next, .. } if now >= next)
    }

    /// Sends the next VehicleFrame of the loop; returns its seq.
    pub fn send_vehicle_frame(
        &mut self,
        now: Instant,
        period: Duration,
        wall_ns: u64,
    ) -> io::Result<u32> {
        let Drive::Driving { car, since, next } = &mut self.drive else {
            return Ok(0);
        };
        *next += period;
        if *next < now {
            *next = now + period;
        }
        let t = now.duration_since(*since).as_secs_f32();
        self.pos = car.position(t);
        self.vseq = self.vseq.wrapping_add(1);
        let seq = self.vseq;
        let frame = car.frame(self.token, seq, t);
        self.vsent[(seq % MARKS) as usize] = (seq, wall_ns, false);
        self.send(frame)?;
        Ok(seq)
    }

    /// Whether a frame is due: spawned and the frame period passed.
    pub fn frame_due(&self, now: Instant) -> bool {
        matches!(
            self.phase,
            Phase::Teleporting | Phase::Walking | Phase::Driving
        ) && now >= self.next_frame
    }

    /// Sends the next PlayerSync: standing at the spawn point until the teleport, then
    /// walking the circle around home; seated, a heartbeat at the vehicle every 100 ms.
    /// Returns its seq.
    pub fn send_frame(&mut self, now: Instant, period: Duration, wall_ns: u64) -> io::Result<u32> {
        let period = if self.phase == Phase::Driving {
            HEARTBEAT
        } else {
            period
        };
        let dt = now
            .saturating_duration_since(self.last_frame)
            .as_secs_f32()
            .min(0.2);
        self.last_frame = now;
        self.next_frame += period;
        if self.next_frame < now {
            self.next_frame = now + period;
        }
        let frame = if self.phase == Phase::Walking {
            self.angle += WALK_SPEED * dt / WALK_RADIUS;
            let (s, c) = self.angle.sin_cos();
            self.pos = Vec3::new(
                self.home.0 + WALK_RADIUS * c,
                self.home.1 + WALK_RADIUS * s,
                HOME_Z,
            );
            // The tangent of the circle, counter-clockwise.
            let (vx, vy) = (-s * WALK_SPEED, c * WALK_SPEED);
            Frame {
                yaw: vy.atan2(vx).to_degrees(),
                keys: Keys::FORWARD,
                vel: Vec3::new(vx / STEPS, vy / STEPS, 0.0),
                shift_y: WALK_SPEED / STEPS,
                move_state: MoveState::Walk,
                ..Frame::standing(self.pos)
            }
        } else {
            Frame::standing(self.pos)
        };
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        self.sent[seq as usize % RING] = (seq, wall_ns, false);
        self.send(PlayerSync {
            session_token: self.token,
            seq: Seq(seq),
            frame,
        })?;
        Ok(seq)
    }

    /// Applies one packet from the server as a client would.
    pub fn receive(&mut self, packet: ServerPacket, now: Instant) -> Event {
        if let Some(id) = packet.event_id() {
            self.ack_due = true;
            let (verdict, _) = self.lane.receive(id);
            if verdict != Verdict::Apply {
                return Event::Other;
            }
        }
        match packet {
            ServerPacket::ServerHello(hello) if self.phase == Phase::Hello => {
                if hello.nonce != self.nonce {
                    return Event::Other;
                }
                self.token = hello.session_token;
                self.player_id = Some(hello.player_id.0);
                self.phase = Phase::Spawning;
                // A token-carrying packet at once: the server proves new sessions by it.
                self.retry_at = now;
                Event::Joined
            }
            ServerPacket::SpawnPlayer(spawn) if self.phase == Phase::Spawning => {
                self.pos = spawn.spawn;
                self.phase = Phase::Teleporting;
                self.retry_at = now + TP_DELAY;
                self.next_frame = now;
                self.last_frame = now;
                Event::Spawned
            }
            ServerPacket::ServerAck(ack) => {
                if let Some((_, id, _)) = &self.pending
                    && !id.is_newer_than(ack.event_id)
                {
                    self.pending = None;
                    if self.phase == Phase::Teleporting {
                        // Acknowledged: ask again only if no teleport comes.
                        self.retry_at = now + TP_RETRY;
                    }
                }
                Event::Other
            }
            ServerPacket::VehicleSync(show) => {
                match &mut self.drive {
                    Drive::Asked { spot, .. } => {
                        if let Some(car) = Car::find(&show, *spot) {
                            self.drive = Drive::Found(car);
                        }
                    }
                    Drive::Entering { car, .. } | Drive::Driving { car, .. } => car.update(&show),
                    _ => {}
                }
                Event::Other
            }
            ServerPacket::VehicleOccupancy(o) => {
                self.seat_changed(&o, now);
                Event::Other
            }
            ServerPacket::RemoteVehicleFrame(relay) => match mark_of(relay.state.pos.z) {
                Some(mark) => Event::VehicleRelay {
                    source_id: relay.source_id.0,
                    mark,
                },
                None => Event::Other,
            },
            ServerPacket::TeleportPlayer(tp) => {
                if self.phase == Phase::Driving {
                    // A teleport frees the seat (player.md): walk again, ask again.
                    self.phase = Phase::Walking;
                    self.drive = Drive::Need;
                }
                self.pos = tp.pos;
                self.angle = 0.0;
                if self.phase == Phase::Teleporting {
                    self.phase = Phase::Walking;
                    return Event::Teleported;
                }
                Event::Other
            }
            ServerPacket::RemotePlayerSync(relay) => Event::Relay {
                player_id: relay.player_id.0,
                seq: relay.seq.0,
            },
            ServerPacket::ConnectRefused(r) if r.nonce == self.nonce => {
                self.phase = Phase::Gone;
                Event::Gone
            }
            ServerPacket::ServerDisconnect(_) => {
                self.phase = Phase::Gone;
                Event::Gone
            }
            _ => Event::Other,
        }
    }

    /// A seat change of the vehicle the bot wants or drives.
    fn seat_changed(&mut self, o: &VehicleOccupancy, now: Instant) {
        let mine = Some(o.player_id.0) == self.player_id;
        match self.drive {
            Drive::Entering { car, .. } if o.vehicle_id == car.id => match o.kind {
                OccupancyKind::Enter | OccupancyKind::Warp if mine => {
                    self.phase = Phase::Driving;
                    self.drive = Drive::Driving {
                        car,
                        since: now,
                        next: now,
                    };
                }
                OccupancyKind::Deny if mine => self.drive = Drive::Need,
                OccupancyKind::Enter | OccupancyKind::Warp if o.seat == 0 => {
                    self.drive = Drive::Need;
                }
                _ => {}
            },
            Drive::Driving { car, .. }
                if o.vehicle_id == car.id
                    && mine
                    && matches!(o.kind, OccupancyKind::Exit | OccupancyKind::Jacked) =>
            {
                self.phase = Phase::Walking;
                self.drive = Drive::Need;
            }
            _ => {}
        }
    }
}

/// Where a driving bot is with its vehicle.
#[derive(Debug, Clone, Copy)]
pub enum Drive {
    /// Not a driver.
    No,
    /// Wants a vehicle: `/v` is due.
    Need,
    /// `/v` sent; the vehicle is expected at `spot`.
    Asked { spot: Vec3, at: Instant },
    /// Shown; the enter is due.
    Found(Car),
    /// VehicleEnter sent, waiting for the seat.
    Entering { car: Car, at: Instant },
    /// Seated in seat 0, driving since `since`; the next frame is due at `next`.
    Driving {
        car: Car,
        since: Instant,
        next: Instant,
    },
}
