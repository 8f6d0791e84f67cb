//! The answer to one query datagram (query.md), a pure function of the request and the
//! snapshot.

use super::QuerySnapshot;
use dlmp_protocol::query::{Entries, PlayerList, QueryInfo, QueryPlayers, QueryRules, Rules};
use dlmp_protocol::{DecodeError, Packet, Rule};

/// Whether `bytes` is a query request (its first byte), to be answered here rather than
/// decoded as a [`ClientPacket`](dlmp_protocol::ClientPacket).
pub fn is_query(bytes: &[u8]) -> bool {
    matches!(
        bytes.first(),
        Some(&QueryInfo::ID | &QueryPlayers::ID | &QueryRules::ID)
    )
}

/// The encoded answer to the query `request`, from `snapshot`. A request of the wrong size,
/// magic or padding is a decoding error, answered with nothing. The answer is never larger
/// than the request (query.md: every answer to an unknown sender).
pub fn answer(request: &[u8], snapshot: &QuerySnapshot) -> Result<Vec<u8>, DecodeError> {
    let bytes = match request.first().copied() {
        Some(QueryInfo::ID) => {
            let q = QueryInfo::decode(request)?;
            snapshot.server_info(q.nonce).to_bytes()
        }
        Some(QueryPlayers::ID) => {
            let q = QueryPlayers::decode(request)?;
            let (entries, pages) = snapshot.player_page(q.page);
            PlayerList {
                nonce: q.nonce,
                page: q.page,
                pages,
                players: Entries(entries.to_vec()),
            }
            .to_bytes()
        }
        Some(QueryRules::ID) => {
            let q = QueryRules::decode(request)?;
            let (entries, pages) = snapshot.rule_page(q.page);
            Rules {
                nonce: q.nonce,
                page: q.page,
                pages,
                rules: Entries(entries.to_vec()),
            }
            .to_bytes()
        }
        other => {
            return Err(DecodeError {
                packet: "",
                field: "packet_id",
                rule: Rule::UnknownPacket(other.unwrap_or_default()),
            });
        }
    };
    // The snapshot holds only valid entries cut into pages that fit, so encoding cannot
    // fail and the answer cannot outgrow the request; if either ever did, say nothing.
    match bytes {
        Ok(bytes) if bytes.len() <= request.len() => Ok(bytes),
        _ => Err(DecodeError {
            packet: "",
            field: "",
            rule: Rule::Length {
                expected: request.len(),
                actual: 0,
            },
        }),
    }
}
