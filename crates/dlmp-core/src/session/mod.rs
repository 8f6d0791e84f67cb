//! Sessions, the I/O-free core of the handshake (connection.md §2, "Handshake and
//! sessions") and of ids and generations (§5, "Sequence and generation"):
//!
//! - [`ratelimit`]: the sliding window behind the hello limit (4 a second per IP, §2) and
//!   the token bucket behind the chat limit (5 at once, 1 a second, §4).
//! - [`budget`]: a session's inbound datagram budget and the kick of a flooding session.
//! - [`pace`]: [`SendPace`], the global send budget of a tick that paces lane traffic
//!   through a join storm (ADR 0043).
//! - [`registry`]: [`Sessions`], the player slots `0..max_players` (smallest free id,
//!   reused after a disconnect), the server-wide generation counter (player_token, never
//!   0), CSPRNG session tokens (never 0, unique among live sessions), the token-and-address
//!   check of every inbound packet (§1), the 10 s silence timeout and the ban set.
//! - [`hello`]: [`HelloGate`], what becomes of a ClientHello: accepted, repeated, refused
//!   (ConnectRefused reasons 0..=5) or ignored, and the one builder of a ServerHello.
//!
//! Everything takes the time as a [`Duration`](std::time::Duration) since server start and
//! returns what the caller must send or broadcast; nothing here touches a socket or a
//! clock. Decisions the spec left open: docs/decisions/0004-sessions.md.

pub mod budget;
pub mod components;
pub mod connection;
pub mod hello;
pub mod nametag;
pub mod pace;
pub mod plugin;
pub use dlmp_net::ratelimit;
pub mod registry;
pub mod relays;

pub use components::{
    EndSession, Farewells, Name, Player, PlayerConnected, PlayerDisconnected, PlayerIndex, Received,
};
pub use connection::{Connection, SendError};
pub use nametag::NametagColor;
pub use pace::SendPace;
pub use plugin::{HelloWorld, SessionPlugin, SessionSettings, SessionState};
pub use relays::{RelayPacket, Relays};

pub use budget::{Admit, InboundBudget};
pub use hello::{HelloGate, HelloLimits, HelloOutcome, Ignored, WorldInfo, server_hello};
pub use ratelimit::{RateLimit, TokenBucket, WindowLimit};
pub use registry::{
    Ended, InsertError, Inserted, NewSession, PlayerName, SESSION_TIMEOUT, Session, Sessions,
    Stranger, TokenSource, default_max_unproven, os_tokens,
};
