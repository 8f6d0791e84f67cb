//! One bot: a client that joins (hello, RequestSpawn until SpawnPlayer), asks freeroam to
//! teleport it home (`/tp x y z`), then walks a small circle there sending PlayerSync at
//! the configured rate, applies the server's reliable lane in order and acknowledges it.

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use dlmp::lane::{InboundLane, Verdict};
use dlmp::protocol::connection::chat::{ChatText, ClientChat};
use dlmp::protocol::connection::handshake::{ClientHello, MAGIC};
use dlmp::protocol::connection::lane::ClientAck;
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::ids::{EventId, Seq, SessionToken};
use dlmp::protocol::player::life::RequestSpawn;
use dlmp::protocol::player::sync::{Frame, Keys, MoveState, PlayerSync};
use dlmp::protocol::text::FixedText;
use dlmp::protocol::{ClientPacket, MAX_DATAGRAM, ServerPacket};
use dlmp::serial::Serial;

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
    /// Refused or disconnected by the server.
    Gone,
}

/// What one received packet meant, for the tally.
pub enum Event {
    Relay { player_id: u32, seq: u32 },
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
    /// The `/tp` line awaiting the ServerAck, and when it was last sent.
    chat: Option<(ClientChat, Instant)>,
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
            chat: None,
            retry_at: now,
            home,
            angle: 0.0,
            pos: Vec3::new(home.0, home.1, HOME_Z),
            seq: 0,
            next_frame: now,
            last_frame: now,
            sent: vec![(0, 0, false); RING],
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

    /// Sends whatever is due at `now`: hello, RequestSpawn and `/tp` retries, the owed ack.
    /// Frames are sent by [`Bot::send_frame`].
    pub fn poll(&mut self, now: Instant) -> io::Result<()> {
        if self.ack_due {
            self.ack_due = false;
            self.send(ClientAck {
                session_token: self.token,
                event_id: self.lane.last_applied(),
            })?;
        }
        if now < self.retry_at {
            return Ok(());
        }
        match self.phase {
            Phase::Idle | Phase::Walking | Phase::Gone => {}
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
                let resend = match &self.chat {
                    Some((chat, sent)) if now >= *sent + CHAT_RETRY => Some(chat.clone()),
                    Some(_) => None,
                    None => Some(self.teleport_line()?),
                };
                if let Some(chat) = resend {
                    self.chat = Some((chat.clone(), now));
                    self.send(chat)?;
                }
                self.retry_at = now + CHAT_RETRY;
            }
        }
        Ok(())
    }

    /// A new `/tp` line to the bot's home (a new client event).
    fn teleport_line(&mut self) -> io::Result<ClientChat> {
        let event_id = self.next_event;
        self.next_event = event_id.next();
        let (x, y) = (self.home.0 + WALK_RADIUS, self.home.1);
        let text = ChatText::new(&format!("/tp {x:.2} {y:.2} {HOME_Z:.2}"))
            .map_err(|e| io::Error::other(format!("{e:?}")))?;
        Ok(ClientChat {
            session_token: self.token,
            event_id,
            text,
        })
    }

    /// Whether a frame is due: spawned and the frame period passed.
    pub fn frame_due(&self, now: Instant) -> bool {
        matches!(self.phase, Phase::Teleporting | Phase::Walking) && now >= self.next_frame
    }

    /// Sends the next PlayerSync: standing at the spawn point until the teleport, then
    /// walking the circle around home. Returns its seq.
    pub fn send_frame(&mut self, now: Instant, period: Duration, wall_ns: u64) -> io::Result<u32> {
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
                if let Some((chat, _)) = &self.chat
                    && !chat.event_id.is_newer_than(ack.event_id)
                {
                    // Acknowledged: ask again only if no teleport comes.
                    self.chat = None;
                    self.retry_at = now + TP_RETRY;
                }
                Event::Other
            }
            ServerPacket::TeleportPlayer(tp) => {
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
}
