//! The bare `sendto` floor, measured in the same run: what one datagram of relay size
//! costs the kernel on this machine, so every server figure can be given as a ratio.

use std::io::IoSlice;
use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use nix::sys::socket::{ControlMessage, MsgFlags, MultiHeaders, SockaddrStorage, sendmmsg};
use nix::time::{ClockId, clock_gettime};

/// Bytes of a RemotePlayerSync, the relay the floor stands for.
pub const RELAY_BYTES: usize = 137;
const BATCH: usize = 64;

/// CPU nanoseconds per datagram.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Floor {
    pub sendto_ns: f64,
    pub sendmmsg_ns: f64,
    pub datagrams: usize,
}

fn thread_cpu_ns() -> f64 {
    clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(|t| t.tv_sec() as f64 * 1e9 + t.tv_nsec() as f64)
        .unwrap_or(0.0)
}

/// Sends `datagrams` relay-sized datagrams one `sendto` each, then the same in `sendmmsg`
/// batches of 64, to a socket a second thread drains, and takes this thread's CPU time.
pub fn measure(datagrams: usize) -> std::io::Result<Floor> {
    let sink = UdpSocket::bind("127.0.0.1:0")?;
    sink.set_read_timeout(Some(Duration::from_millis(20)))?;
    let to = sink.local_addr()?;
    let stop = Arc::new(AtomicBool::new(false));
    let drain = {
        let stop = Arc::clone(&stop);
        thread::spawn(move || {
            let mut buf = [0u8; 2048];
            while !stop.load(Ordering::Relaxed) {
                let _ = sink.recv(&mut buf);
            }
        })
    };
    let socket = UdpSocket::bind("127.0.0.1:0")?;
    let payload = [0x04u8; RELAY_BYTES];
    let start = thread_cpu_ns();
    for _ in 0..datagrams {
        socket.send_to(&payload, to)?;
    }
    let sendto_ns = (thread_cpu_ns() - start) / datagrams as f64;

    let mut headers = MultiHeaders::<SockaddrStorage>::preallocate(BATCH, None);
    let addrs = vec![Some(SockaddrStorage::from(to)); BATCH];
    let iovs: Vec<[IoSlice<'_>; 1]> = (0..BATCH).map(|_| [IoSlice::new(&payload)]).collect();
    let start = thread_cpu_ns();
    let mut sent = 0;
    while sent < datagrams {
        let no_cmsgs: [ControlMessage<'_>; 0] = [];
        match sendmmsg(
            socket.as_raw_fd(),
            &mut headers,
            &iovs,
            &addrs,
            no_cmsgs,
            MsgFlags::empty(),
        ) {
            Ok(results) => sent += results.count().max(1),
            Err(e) => return Err(e.into()),
        }
    }
    let sendmmsg_ns = (thread_cpu_ns() - start) / sent as f64;
    stop.store(true, Ordering::Relaxed);
    let _ = drain.join();
    Ok(Floor {
        sendto_ns,
        sendmmsg_ns,
        datagrams,
    })
}
