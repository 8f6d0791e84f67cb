//! Reading a bot's socket: `recvmmsg` with the kernel's receive timestamp of each datagram
//! (`SO_TIMESTAMPNS`, nix's safe wrappers).

use std::io::{self, IoSliceMut};
use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::time::{SystemTime, UNIX_EPOCH};

use nix::errno::Errno;
use nix::sys::socket::{
    ControlMessageOwned, MsgFlags, MultiHeaders, SockaddrStorage, recvmmsg, setsockopt, sockopt,
};
use nix::sys::time::TimeSpec;

use dlmp_protocol::MAX_DATAGRAM;

pub const BATCH: usize = 32;

/// Asks the kernel to stamp every datagram `socket` receives.
pub fn enable_timestamps(socket: &UdpSocket) -> io::Result<()> {
    setsockopt(socket, sockopt::ReceiveTimestampns, &true).map_err(io::Error::from)
}

pub fn wall_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// Reused headers, control buffers and datagram buffers.
pub struct Reader {
    headers: MultiHeaders<SockaddrStorage>,
    buffers: Vec<[u8; MAX_DATAGRAM + 1]>,
    /// Datagrams without a kernel timestamp (stamped at read instead).
    pub unstamped: u64,
}

impl Reader {
    pub fn new() -> Reader {
        Reader {
            headers: MultiHeaders::preallocate(BATCH, Some(nix::cmsg_space!(TimeSpec))),
            buffers: vec![[0; MAX_DATAGRAM + 1]; BATCH],
            unstamped: 0,
        }
    }

    /// Reads up to [`BATCH`] datagrams without waiting and calls `each(bytes, rx_ns)`.
    /// Returns how many; 0 when the socket is empty.
    pub fn read(
        &mut self,
        socket: &UdpSocket,
        mut each: impl FnMut(&[u8], u64),
    ) -> io::Result<usize> {
        let mut meta = [(0usize, 0u64); BATCH];
        let n = {
            let mut iovs: Vec<[IoSliceMut<'_>; 1]> = self
                .buffers
                .iter_mut()
                .map(|b| [IoSliceMut::new(&mut b[..])])
                .collect();
            match recvmmsg(
                socket.as_raw_fd(),
                &mut self.headers,
                &mut iovs,
                MsgFlags::MSG_DONTWAIT,
                None,
            ) {
                Ok(results) => {
                    let mut n = 0;
                    for msg in results {
                        let stamp = msg.cmsgs().ok().and_then(|mut c| {
                            c.find_map(|m| match m {
                                ControlMessageOwned::ScmTimestampns(ts) => {
                                    Some(ts.tv_sec() as u64 * 1_000_000_000 + ts.tv_nsec() as u64)
                                }
                                _ => None,
                            })
                        });
                        let stamp = stamp.unwrap_or_else(|| {
                            self.unstamped += 1;
                            wall_ns()
                        });
                        meta[n] = (msg.bytes, stamp);
                        n += 1;
                    }
                    n
                }
                Err(Errno::EAGAIN | Errno::EINTR) => return Ok(0),
                Err(e) => return Err(io::Error::from(e)),
            }
        };
        for (i, &(len, stamp)) in meta[..n].iter().enumerate() {
            each(&self.buffers[i][..len.min(MAX_DATAGRAM + 1)], stamp);
        }
        Ok(n)
    }
}
