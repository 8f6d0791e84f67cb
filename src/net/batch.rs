//! Many datagrams per system call: `sendmmsg` and `recvmmsg` through nix's safe wrappers
//! (docs/decisions/0025-network-thread.md has the measurement that they pay).

use std::io::{self, IoSlice, IoSliceMut};
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;

use nix::errno::Errno;
use nix::sys::socket::{
    ControlMessage, MsgFlags, MultiHeaders, SockaddrStorage, recvmmsg, sendmmsg,
};

use super::Datagram;
use crate::protocol::MAX_DATAGRAM;

/// Datagrams one `sendmmsg` or `recvmmsg` call moves at most.
pub(super) const BATCH: usize = 64;

/// The reused headers of `sendmmsg`.
pub(super) struct Sender {
    headers: MultiHeaders<SockaddrStorage>,
    addrs: Vec<Option<SockaddrStorage>>,
}

impl Sender {
    pub(super) fn new() -> Sender {
        Sender {
            headers: MultiHeaders::preallocate(BATCH, None),
            addrs: Vec::with_capacity(BATCH),
        }
    }

    /// Sends `datagrams` (at most [`BATCH`]), calling `done` with each one's outcome in
    /// order. A datagram the kernel refuses is reported and skipped; the rest still go.
    pub(super) fn send(
        &mut self,
        socket: &UdpSocket,
        datagrams: &[Datagram],
        mut done: impl FnMut(&Datagram, io::Result<()>),
    ) {
        let mut start = 0;
        while start < datagrams.len() {
            let rest = &datagrams[start..datagrams.len().min(start + BATCH)];
            if rest[0].bytes.len() > MAX_DATAGRAM {
                done(
                    &rest[0],
                    Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "datagram larger than MAX_DATAGRAM",
                    )),
                );
                start += 1;
                continue;
            }
            // Up to the next oversized one, which the kernel would send.
            let n = rest
                .iter()
                .position(|d| d.bytes.len() > MAX_DATAGRAM)
                .unwrap_or(rest.len());
            let rest = &rest[..n];
            self.addrs.clear();
            self.addrs
                .extend(rest.iter().map(|d| Some(SockaddrStorage::from(d.to))));
            let iovs: Vec<[IoSlice<'_>; 1]> =
                rest.iter().map(|d| [IoSlice::new(&d.bytes)]).collect();
            let no_cmsgs: [ControlMessage<'_>; 0] = [];
            let result = sendmmsg(
                socket.as_raw_fd(),
                &mut self.headers,
                &iovs,
                &self.addrs,
                no_cmsgs,
                MsgFlags::MSG_DONTWAIT,
            )
            .map(Iterator::count);
            match result {
                Ok(sent) if sent > 0 => {
                    for d in &rest[..sent] {
                        done(d, Ok(()));
                    }
                    start += sent;
                }
                Err(Errno::EINTR) => {}
                // The first datagram failed (its error), or none went for no reason given.
                Ok(_) => {
                    done(&rest[0], Err(io::Error::other("sendmmsg sent nothing")));
                    start += 1;
                }
                Err(e) => {
                    done(&rest[0], Err(io::Error::from(e)));
                    start += 1;
                }
            }
        }
    }
}

/// The reused headers and buffers of `recvmmsg`.
pub(super) struct Receiver {
    headers: MultiHeaders<SockaddrStorage>,
    /// One byte more than the largest datagram each, so an oversized one is seen (the
    /// kernel truncates it to the buffer).
    buffers: Vec<[u8; MAX_DATAGRAM + 1]>,
}

impl Receiver {
    pub(super) fn new() -> Receiver {
        Receiver {
            headers: MultiHeaders::preallocate(BATCH, None),
            buffers: vec![[0; MAX_DATAGRAM + 1]; BATCH],
        }
    }

    /// Reads what the socket holds, at most `max` (up to [`BATCH`]) datagrams, without
    /// waiting; calls `each` with every datagram (bytes as received, truncated past the
    /// buffer) and its sender. Returns how many arrived; `WouldBlock` is `Ok(0)`.
    pub(super) fn receive(
        &mut self,
        socket: &UdpSocket,
        max: usize,
        mut each: impl FnMut(&[u8], SocketAddr),
    ) -> io::Result<usize> {
        let max = max.clamp(1, BATCH);
        let mut lengths = [(0usize, None::<SocketAddr>); BATCH];
        let n = {
            let mut iovs: Vec<[IoSliceMut<'_>; 1]> = self.buffers[..max]
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
                        lengths[n] = (msg.bytes, msg.address.as_ref().and_then(socket_addr));
                        n += 1;
                    }
                    n
                }
                // Interrupted: the next turn reads again.
                Err(Errno::EAGAIN | Errno::EINTR) => return Ok(0),
                Err(e) => return Err(io::Error::from(e)),
            }
        };
        for (i, &(len, from)) in lengths[..n].iter().enumerate() {
            if let Some(from) = from {
                each(&self.buffers[i][..len.min(MAX_DATAGRAM + 1)], from);
            }
        }
        Ok(n)
    }
}

/// The sender of a received datagram; `None` for a family UDP does not use.
pub(crate) fn socket_addr(addr: &SockaddrStorage) -> Option<SocketAddr> {
    if let Some(v4) = addr.as_sockaddr_in() {
        return Some(SocketAddr::from(*v4));
    }
    addr.as_sockaddr_in6().map(|v6| SocketAddr::from(*v6))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_goes_out_in_order_and_comes_back_in_one_call() {
        let a = UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").unwrap();
        let to = b.local_addr().unwrap();
        let datagrams: Vec<Datagram> = (0..10u8)
            .map(|i| Datagram {
                to,
                bytes: vec![i; usize::from(i) + 1],
            })
            .collect();
        let mut ok = 0;
        Sender::new().send(&a, &datagrams, |_, r| {
            r.unwrap();
            ok += 1;
        });
        assert_eq!(ok, 10);
        let mut got = Vec::new();
        let n = Receiver::new()
            .receive(&b, BATCH, |bytes, from| {
                assert_eq!(from, a.local_addr().unwrap());
                got.push(bytes.to_vec());
            })
            .unwrap();
        assert_eq!(n, 10);
        let sent: Vec<Vec<u8>> = datagrams.into_iter().map(|d| d.bytes).collect();
        assert_eq!(got, sent);
    }

    #[test]
    fn a_refused_datagram_is_reported_and_the_rest_still_go() {
        let a = UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").unwrap();
        let to = b.local_addr().unwrap();
        let datagrams = vec![
            Datagram { to, bytes: vec![1] },
            Datagram {
                to: "[::1]:9".parse().unwrap(),
                bytes: vec![2],
            },
            Datagram {
                to,
                bytes: vec![0; MAX_DATAGRAM + 1],
            },
            Datagram { to, bytes: vec![3] },
        ];
        let mut outcomes = Vec::new();
        Sender::new().send(&a, &datagrams, |d, r| {
            outcomes.push((d.bytes[0], r.is_ok()))
        });
        assert_eq!(outcomes, [(1, true), (2, false), (0, false), (3, true)]);
    }
}
