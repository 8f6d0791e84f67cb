//! Every admission refusal, per player, as one message: frames dropped whole, movement the
//! server held back, toggles past their rate limit (player.md, PlayerSync "Admission") and
//! shots dropped (connection.md §6). The server's own counters ([`FrameDrops`],
//! [`ShotDrops`]) count them for the whole server; this message says who, for anti-cheat
//! plugins and scripts. ADR 0036.
//!
//! [`FrameDrops`]: super::frame::FrameDrops
//! [`ShotDrops`]: super::shots::ShotDrops

use bevy_ecs::prelude::*;

use super::frame::FrameDrop;
use super::shots::ShotDrop;

/// One refusal of one player's input, written in [`ServerSystems::Validation`] and
/// readable from then on in the same tick.
///
/// [`ServerSystems::Validation`]: dlmp_core::tick::ServerSystems::Validation
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdmissionRefused {
    pub player: Entity,
    pub reason: RefusalReason,
}

/// Why the input was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalReason {
    /// A PlayerSync dropped whole.
    Frame(FrameDrop),
    /// A frame's position further than the body could have gone: the server kept its own.
    Movement,
    /// A toggle changed again within its rate limit; the change was not taken.
    RateLimit(RateLimit),
    /// A WeaponShot dropped.
    Shot(ShotDrop),
}

/// The rate-limited toggles of a frame (one change a second each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateLimit {
    Pause,
    OnFire,
}

/// The families of [`RefusalReason`], for per-family thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RefusalKind {
    Frame,
    Movement,
    RateLimit,
    Shot,
}

impl RefusalReason {
    pub fn kind(self) -> RefusalKind {
        match self {
            RefusalReason::Frame(_) => RefusalKind::Frame,
            RefusalReason::Movement => RefusalKind::Movement,
            RefusalReason::RateLimit(_) => RefusalKind::RateLimit,
            RefusalReason::Shot(_) => RefusalKind::Shot,
        }
    }

    /// A stable snake_case name (logs, Lua events): `frame_stale`, `movement`,
    /// `rate_limit_pause`, `shot_range`, ...
    pub fn name(self) -> &'static str {
        match self {
            RefusalReason::Frame(FrameDrop::NotSpawned) => "frame_not_spawned",
            RefusalReason::Frame(FrameDrop::Stale) => "frame_stale",
            RefusalReason::Frame(FrameDrop::RateLimited) => "frame_rate_limited",
            RefusalReason::Movement => "movement",
            RefusalReason::RateLimit(RateLimit::Pause) => "rate_limit_pause",
            RefusalReason::RateLimit(RateLimit::OnFire) => "rate_limit_on_fire",
            RefusalReason::Shot(ShotDrop::NotInControl) => "shot_not_in_control",
            RefusalReason::Shot(ShotDrop::NoRay) => "shot_no_ray",
            RefusalReason::Shot(ShotDrop::NoAmmo) => "shot_no_ammo",
            RefusalReason::Shot(ShotDrop::Stale) => "shot_stale",
            RefusalReason::Shot(ShotDrop::Origin) => "shot_origin",
            RefusalReason::Shot(ShotDrop::Range) => "shot_range",
        }
    }
}

impl RefusalKind {
    /// `frame`, `movement`, `rate_limit`, `shot`: the keys of a threshold table.
    pub fn name(self) -> &'static str {
        match self {
            RefusalKind::Frame => "frame",
            RefusalKind::Movement => "movement",
            RefusalKind::RateLimit => "rate_limit",
            RefusalKind::Shot => "shot",
        }
    }
}

/// What an anti-cheat decided about a player past its threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheatVerdict {
    Warned,
    Kicked,
}

impl CheatVerdict {
    /// `warned`, `kicked`: the word scripts read.
    pub fn name(self) -> &'static str {
        match self {
            CheatVerdict::Warned => "warned",
            CheatVerdict::Kicked => "kicked",
        }
    }
}

/// A player an anti-cheat plugin (`plugins/anticheat`) judged past a threshold of its
/// [`AdmissionRefused`] counts. Written before [`GameplaySystems::Scripts`] (the reporter
/// writes it in `Intake`), it reaches other plugins and, as
/// `player_cheat_suspected(player, verdict, counts)`, every resource in the same tick; a
/// kick ends the session after that (ADR 0042).
///
/// [`GameplaySystems::Scripts`]: dlmp_core::tick::GameplaySystems::Scripts
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct CheatSuspected {
    pub player: Entity,
    pub verdict: CheatVerdict,
    /// The refusals of the window that passed the threshold, by kind.
    pub counts: std::collections::BTreeMap<RefusalKind, u32>,
}
