//! Why a command to a player was refused, where the features refuse alike: the player
//! has no life to take it (player.md: PlayerNotSpawned, PlayerNotAlive; the new life not
//! confirmed yet) or its lane has no room ("queue full", connection.md §3). Each
//! feature's refusal wraps it beside its own reasons.

use std::fmt;

use super::Life;
use super::frame::movement::QueueFull;
use dlmp_core::session::Connection;
use dlmp_net::lane::Delivery;

/// A refusal several features share; the text reads like the Lua errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    NotSpawned,
    Dead,
    /// No living frame has arrived since the last spawn or respawn grant.
    LifeNotConfirmed,
    /// The lane (or the physics queue) has no room for the command.
    QueueFull,
}

impl Refusal {
    /// Refuses a player not spawned or dead.
    pub fn living(life: Life) -> Result<(), Refusal> {
        if !life.spawned {
            Err(Refusal::NotSpawned)
        } else if !life.alive {
            Err(Refusal::Dead)
        } else {
            Ok(())
        }
    }

    /// Refuses a player without a confirmed life: not spawned, dead, or no living frame
    /// since the last grant.
    pub fn confirmed(life: Life, life_confirmed: bool) -> Result<(), Refusal> {
        Refusal::living(life)?;
        if life_confirmed {
            Ok(())
        } else {
            Err(Refusal::LifeNotConfirmed)
        }
    }

    /// Refuses a command whose `packets` normal events the lane has no room for, before
    /// anything changes.
    pub fn room(conn: &Connection, packets: usize) -> Result<(), Refusal> {
        if conn.room(Delivery::Normal) < packets {
            Err(Refusal::QueueFull)
        } else {
            Ok(())
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refusal::NotSpawned => "the player has not spawned (PlayerNotSpawned)",
            Refusal::Dead => "the player is dead (PlayerNotAlive)",
            Refusal::LifeNotConfirmed => "the player's new life is not confirmed yet",
            Refusal::QueueFull => "queue full",
        })
    }
}

impl std::error::Error for Refusal {}

impl From<QueueFull> for Refusal {
    fn from(_: QueueFull) -> Self {
        Refusal::QueueFull
    }
}
