//! dlmp: a server for the DLMP protocol (the spec lives in `../shared/spec/`), and the
//! library a Rust gameplay plugin is written against. This crate is the assembly
//! ([`server::build_app`], [`Server`]), the test [`harness`] and the [`prelude`]; the
//! features are the workspace's crates below it, re-exported here under their layers'
//! names (`dlmp::protocol`, `dlmp::player`, `dlmp::vehicle`, `dlmp::world`, ...).
//!
//! # Writing a gameplay plugin
//!
//! A plugin is a bevy [`Plugin`](bevy_app::Plugin) that puts systems into the server's
//! ordered sets ([`prelude::ServerSystems`], [`prelude::GameplaySystems`]). Everything it
//! needs is in [`prelude`]: the player's components ([`prelude::Player`],
//! [`prelude::Position`], [`prelude::Ledger`], [`prelude::Scope`],
//! [`prelude::Connection`]), the messages the features announce
//! ([`prelude::PlayerConnected`], [`prelude::PlayerChat`], [`prelude::LedgerEvent`] for
//! damage and deaths, [`prelude::AdmissionRefused`] for refused input), and the helpers
//! that send to a player ([`prelude::notify`], [`prelude::say`]).
//!
//! **1. A crate.** `cargo new --lib plugins/greeter`, with `dlmp = { path = "../.." }`,
//! `bevy_app`, `bevy_ecs` and `serde` as dependencies, added to the root `Cargo.toml`'s
//! `members` and `default-members` (the root's `cargo test` then runs yours too).
//!
//! **2. Settings.** The server's config file gives each plugin a table, `[plugins.NAME]`;
//! [`prelude::plugin_settings`] reads it into the plugin's own type in `build`. No table:
//! the plugin is off. A table that does not fit stops the server's start with the error
//! (docs/decisions/0036-plugin-api.md).
//!
//! **3. Systems.** Read messages and components, act in the Gameplay set:
//!
//! ```
//! use dlmp::prelude::*;
//!
//! #[derive(serde::Deserialize, Resource, Clone)]
//! struct Greeting { text: String }
//!
//! struct GreeterPlugin;
//!
//! impl Plugin for GreeterPlugin {
//!     fn build(&self, app: &mut App) {
//!         let Some(greeting) = plugin_settings::<Greeting>(app, "greeter") else {
//!             return;
//!         };
//!         app.insert_resource(greeting)
//!             .add_systems(FixedUpdate, greet.in_set(GameplaySystems::Apply));
//!     }
//! }
//!
//! fn greet(
//!     greeting: Res<Greeting>,
//!     mut connected: MessageReader<PlayerConnected>,
//!     mut players: Query<&mut Connection>,
//! ) {
//!     for c in connected.read() {
//!         if let Ok(mut conn) = players.get_mut(c.player) {
//!             notify(&mut conn, &greeting.text);
//!         }
//!     }
//! }
//!
//! // **4. A test**, through the harness: virtual clients, a manual clock, exact
//! // assertions on what each client was sent. A plugin's `tests/` do the same.
//! use dlmp::harness::Harness;
//!
//! let mut config = Harness::config();
//! config.plugins.insert(
//!     "greeter".into(),
//!     toml::from_str("text = \"hello\"").unwrap(),
//! );
//! let mut h = Harness::with_app(config, |app| {
//!     app.add_plugins(GreeterPlugin);
//! });
//! let alice = h.connect("alice");
//! h.step();
//! assert!(h.chat_lines(alice).contains(&"hello".to_owned()));
//! ```
//!
//! **5. A server with it.** A binary crate's `main`:
//!
//! ```no_run
//! # struct GreeterPlugin;
//! # impl bevy_app::Plugin for GreeterPlugin { fn build(&self, _: &mut bevy_app::App) {} }
//! fn main() -> std::process::ExitCode {
//!     match dlmp::Server::from_args() {
//!         Ok(server) => server.add_plugins(GreeterPlugin).run(),
//!         Err(_) => std::process::ExitCode::FAILURE,
//!     }
//! }
//! ```
//!
//! `plugins/anticheat` and `plugins/idle-kick` are two complete plugins written
//! only against this API, with their tests; `plugins/server` is the binary that runs the
//! server with them.

pub mod harness;
pub mod prelude;
#[cfg(test)]
mod script_api_tests;
pub mod server;

// The workspace's crates under their layers' names (docs/architecture.md), so a plugin or a
// scenario test names one crate.
pub use dlmp_admin as admin;
pub use dlmp_core::{session, streaming, tick};
pub use dlmp_net as net;
pub use dlmp_net::lane;
pub use dlmp_ops::{bans, config, console, db, logs, map, metrics, password, query, stats};
pub use dlmp_player as player;
pub use dlmp_player::chat;
pub use dlmp_protocol as protocol;
pub use dlmp_protocol::serial;
pub use dlmp_script as script;
pub use dlmp_vehicle as vehicle;
pub use dlmp_world as world;
pub use server::Server;
