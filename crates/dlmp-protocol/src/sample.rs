//! The fixture table: one valid packet per fixture file in `fixtures/` (the pages'
//! "Example: name.bin" names). The fixture test decodes each file and compares it with its
//! entry; `cargo run -p dlmp-protocol --example fixtures` writes the files from the same entries.

use core::fmt::Debug;

use super::bundle;
use super::dispatch::ServerPacket;
use super::error::EncodeError;
use super::packet::{Direction, Packet};

/// One fixture: a file name and the packet it holds, type-erased so that every page's
/// table is one list.
pub trait Sample: Send + Sync {
    /// The fixture's file name in `fixtures/`.
    fn file(&self) -> &'static str;
    /// The packet's name as the pages spell it.
    fn packet(&self) -> &'static str;
    fn id(&self) -> u8;
    fn direction(&self) -> Direction;
    /// The fixture's bytes.
    fn encode(&self) -> Result<Vec<u8>, EncodeError>;
    /// Decodes `bytes` as this packet type and compares every field with the entry.
    fn check(&self, bytes: &[u8]) -> Result<(), String>;
    /// Whether `bytes` decode as this packet type (docs/protocol.md probes the decoder
    /// with the fixture's bytes, one field changed).
    fn accepts(&self, bytes: &[u8]) -> bool;
}

struct Typed<P> {
    file: &'static str,
    packet: P,
}

impl<P: Packet + Send + Sync + Debug> Sample for Typed<P> {
    fn file(&self) -> &'static str {
        self.file
    }
    fn packet(&self) -> &'static str {
        P::NAME
    }
    fn id(&self) -> u8 {
        P::ID
    }
    fn direction(&self) -> Direction {
        P::DIRECTION
    }
    fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        self.packet.to_bytes()
    }
    fn accepts(&self, bytes: &[u8]) -> bool {
        P::decode(bytes).is_ok()
    }
    fn check(&self, bytes: &[u8]) -> Result<(), String> {
        let decoded = P::decode(bytes).map_err(|e| format!("{}: {e}", self.file))?;
        if decoded == self.packet {
            Ok(())
        } else {
            Err(format!(
                "{}: decoded {decoded:?}\nexpected {:?}",
                self.file, self.packet
            ))
        }
    }
}

/// A fixture entry.
pub fn sample<P: Packet + Send + Sync + 'static>(file: &'static str, packet: P) -> Box<dyn Sample> {
    Box::new(Typed { file, packet })
}

/// A bundle's fixture (connection.md §1): the packets it holds, in order.
struct BundleSample {
    file: &'static str,
    packets: Vec<ServerPacket>,
}

impl Sample for BundleSample {
    fn file(&self) -> &'static str {
        self.file
    }
    fn packet(&self) -> &'static str {
        bundle::NAME
    }
    fn id(&self) -> u8 {
        bundle::BUNDLE_ID
    }
    fn direction(&self) -> Direction {
        Direction::ServerToClient
    }
    fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        bundle::to_bytes(&self.packets)
    }
    fn accepts(&self, bytes: &[u8]) -> bool {
        bundle::Bundle::parse(bytes).is_ok_and(|b| b.packets().all(|p| p.is_ok()))
    }
    fn check(&self, bytes: &[u8]) -> Result<(), String> {
        let parsed = bundle::Bundle::parse(bytes).map_err(|e| format!("{}: {e}", self.file))?;
        let decoded: Result<Vec<ServerPacket>, _> = parsed.packets().collect();
        let decoded = decoded.map_err(|e| format!("{}: {e}", self.file))?;
        if decoded == self.packets {
            Ok(())
        } else {
            Err(format!(
                "{}: decoded {decoded:?}\nexpected {:?}",
                self.file, self.packets
            ))
        }
    }
}

/// A bundle's fixture entry.
pub fn bundle_sample(file: &'static str, packets: Vec<ServerPacket>) -> Box<dyn Sample> {
    Box::new(BundleSample { file, packets })
}

/// Every fixture entry of every page.
pub fn all() -> Vec<Box<dyn Sample>> {
    [
        super::connection::samples::all(),
        super::player::samples::all(),
        super::world::samples::all(),
        super::vehicle::samples::all(),
        super::weapons::samples::all(),
        super::edit::samples::all(),
        super::query::samples::all(),
    ]
    .into_iter()
    .flatten()
    .collect()
}
