//! `--flood RATE`: junk at a server from one source address, to measure what a flood costs
//! the players beside it (docs/benchmarks.md, "Flood"). The junk is the costliest kind a
//! stranger can send cheaply: well-formed PlayerSync datagrams under random session tokens,
//! which pass the length and id checks and fail only on the token; `--flood-kind random`
//! sends random bytes instead.

use std::io::IoSlice;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use dlmp_protocol::Packet;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{Seq, SessionToken};
use dlmp_protocol::player::sync::{Frame, PlayerSync};
use nix::sys::socket::{ControlMessage, MsgFlags, MultiHeaders, SockaddrStorage, sendmmsg};

/// Datagrams per `sendmmsg` call.
const BATCH: usize = 64;
/// Distinct junk datagrams, reused in turn.
const KINDS: usize = 1024;

/// What the flood sent.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Flooded {
    pub datagrams: u64,
    pub seconds: f64,
}

/// A cheap deterministic generator, enough for junk.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// `KINDS` junk datagrams of the kind asked for.
fn junk(random: bool) -> Vec<Vec<u8>> {
    let mut state = 0x9E37_79B9_7F4A_7C15;
    (0..KINDS)
        .map(|i| {
            if random {
                let len = 1 + (next(&mut state) % 120) as usize;
                (0..len).map(|_| next(&mut state) as u8).collect()
            } else {
                let sync = PlayerSync {
                    session_token: SessionToken(next(&mut state) | 1),
                    seq: Seq(i as u32),
                    frame: Frame::standing(Vec3::new(0.0, 0.0, 3.0)),
                };
                let mut buf = vec![0u8; sync.encoded_len()];
                let len = sync.encode(&mut buf).unwrap_or(0);
                buf.truncate(len);
                buf
            }
        })
        .collect()
}

/// Sends junk to `to` from `from` at `rate` datagrams a second for `seconds`.
pub fn flood(
    to: SocketAddr,
    from: SocketAddr,
    rate: f64,
    seconds: f64,
    random: bool,
) -> std::io::Result<Flooded> {
    let socket = UdpSocket::bind(from)?;
    let datagrams = junk(random);
    let mut headers = MultiHeaders::<SockaddrStorage>::preallocate(BATCH, None);
    let addrs = vec![Some(SockaddrStorage::from(to)); BATCH];
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(seconds);
    let mut sent: u64 = 0;
    let mut turn = 0usize;
    while Instant::now() < end {
        let due = (start.elapsed().as_secs_f64() * rate) as u64;
        if sent >= due {
            std::thread::sleep(Duration::from_micros(200));
            continue;
        }
        let n = BATCH.min((due - sent) as usize);
        let iovs: Vec<[IoSlice<'_>; 1]> = (0..n)
            .map(|k| [IoSlice::new(&datagrams[(turn + k) % KINDS])])
            .collect();
        turn = (turn + n) % KINDS;
        let no_cmsgs: [ControlMessage<'_>; 0] = [];
        match sendmmsg(
            socket.as_raw_fd(),
            &mut headers,
            &iovs,
            &addrs[..n],
            no_cmsgs,
            MsgFlags::empty(),
        ) {
            Ok(results) => sent += results.count() as u64,
            // A full socket buffer: the kernel drops, as it would on the wire.
            Err(_) => sent += n as u64,
        }
    }
    Ok(Flooded {
        datagrams: sent,
        seconds: start.elapsed().as_secs_f64(),
    })
}
