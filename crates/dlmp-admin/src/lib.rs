//! The server's HTTP side (ADR 0100): the web admin panel with its live map, and the
//! Prometheus `/metrics`, served by axum on a tokio runtime of their own threads. The tick
//! and the panel meet only through [`bridge`]: a bounded channel of admin actions the tick
//! drains without waiting, and a snapshot it publishes about once a second. This crate is
//! the one in the workspace that builds tokio's runtime and axum, above operations and
//! below the assembly.

pub mod bridge;
pub mod history;
pub mod http;
pub mod snapshot;

pub use bridge::{AdminLink, AdminPlugin, Link, channel};
pub use http::{HttpServer, HttpSettings, start};
