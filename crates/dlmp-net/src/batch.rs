//! Many datagrams per system call: `sendmmsg` and `recvmmsg` through nix's safe wrappers
//! (docs/decisions/0025-network-thread.md has the measurement that they pay).

use std::io::{self, IoSlice, IoSliceMut};
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;

use nix::errno::Errno;
use nix::sys::socket::{
    ControlMessage, MsgFlags, MultiHeaders, SockaddrStorage, recvmmsg, sendmmsg,
};

use super::shipment::Addressed;
use dlmp_protocol::MAX_DATAGRAM;

/// Datagrams one `sendmmsg` or `recvmmsg` call moves at most.
pub(super) const BATCH: usize = 64;

/// Datagrams one GSO message carries at most: the kernel's limit is 64 (`UDP_MAX_SEGMENTS`
/// before Linux 6.9), and [`TRAIN_BYTES`] bounds the whole.
const TRAIN_SEGMENTS: usize = 32;

/// Payload bytes of one GSO message at most: one IP packet of loopback or a GSO-capable
/// device, with room for the headers.
const TRAIN_BYTES: usize = 60_000;

/// One message of a `sendmmsg` call: `len` datagrams from `start` of the batch, to one
/// address. With more than one, every datagram but the last is `segment` bytes long and
/// the last at most that, so the kernel sends them as one UDP GSO buffer and cuts it into
/// these datagrams (`UDP_SEGMENT`, Linux 4.18): one pass of the send path for the whole
/// train instead of one a datagram (docs/decisions/0075-udp-gso-trains.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Train {
    start: usize,
    len: usize,
    /// The length of its first datagram: the segment size of a train of several.
    segment: usize,
    bytes: usize,
}

impl Train {
    fn single(start: usize, datagram: &Addressed) -> Train {
        Train {
            start,
            len: 1,
            segment: datagram.len(),
            bytes: datagram.len(),
        }
    }

    /// Whether `next`, the datagram after the train in the batch, may join it: same
    /// address, the train's every datagram so far a whole segment, and no longer than one.
    fn takes(&self, last: &Addressed, next: &Addressed) -> bool {
        next.to == last.to
            && last.len() == self.segment
            && next.len() <= self.segment
            && self.len < TRAIN_SEGMENTS
            && self.bytes + next.len() <= TRAIN_BYTES
    }
}

/// The messages of one `sendmmsg` call and the segment size they share: a call carries a
/// GSO option for all of its messages, so every train of several in it has the same
/// segment size, and a single datagram rides along if it is no longer (the kernel sends a
/// message no longer than the segment size as a plain datagram).
#[derive(Debug, Default)]
struct Call {
    trains: Vec<Train>,
    /// The segment size of its trains of several, once one is in.
    gso: Option<usize>,
    /// The longest single datagram in it.
    longest_single: usize,
}

impl Call {
    fn clear(&mut self) {
        self.trains.clear();
        self.gso = None;
        self.longest_single = 0;
    }

    /// Adds `train` if it can share the call's segment size.
    fn add(&mut self, train: Train) -> bool {
        if self.trains.len() >= BATCH {
            return false;
        }
        if train.len == 1 {
            if self.gso.is_some_and(|s| train.segment > s) {
                return false;
            }
            self.longest_single = self.longest_single.max(train.segment);
        } else {
            match self.gso {
                Some(s) if s != train.segment => return false,
                None if self.longest_single > train.segment => return false,
                _ => self.gso = Some(train.segment),
            }
        }
        self.trains.push(train);
        true
    }
}

/// The reused headers of `sendmmsg`: plain, and with room for a `UDP_SEGMENT` option each.
pub(super) struct Sender {
    headers: MultiHeaders<SockaddrStorage>,
    gso_headers: MultiHeaders<SockaddrStorage>,
    addrs: Vec<Option<SockaddrStorage>>,
    call: Call,
    /// Trains are formed only while the kernel takes them: off after the first refusal
    /// (a kernel or device without UDP GSO), and the refused message is sent plainly.
    gso: bool,
}

impl Sender {
    pub(super) fn new() -> Sender {
        Sender {
            headers: MultiHeaders::preallocate(BATCH, None),
            gso_headers: MultiHeaders::preallocate(BATCH, Some(nix::cmsg_space!(u16))),
            addrs: Vec::with_capacity(BATCH),
            call: Call::default(),
            gso: true,
        }
    }

    /// A sender that sends every datagram as a message of its own (the measure GSO is
    /// compared with).
    #[cfg(test)]
    fn without_gso() -> Sender {
        Sender {
            gso: false,
            ..Sender::new()
        }
    }

    /// Sends `datagrams` (at most [`BATCH`], their bytes in `bytes`: a window of a
    /// shipment), calling `done` with each one's outcome in order. A datagram the kernel
    /// refuses is reported and skipped; the rest still go. Consecutive datagrams to one
    /// address leave as one GSO train where they can.
    pub(super) fn send(
        &mut self,
        socket: &UdpSocket,
        datagrams: &[Addressed],
        bytes: &[u8],
        mut done: impl FnMut(&Addressed, io::Result<()>),
    ) {
        let mut start = 0;
        while start < datagrams.len() {
            if datagrams[start].len() > MAX_DATAGRAM {
                done(
                    &datagrams[start],
                    Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "datagram larger than MAX_DATAGRAM",
                    )),
                );
                start += 1;
                continue;
            }
            self.plan(datagrams, start);
            let sent = self.send_call(socket, datagrams, bytes);
            let trains = std::mem::take(&mut self.call.trains);
            match sent {
                Ok(n) if n > 0 => {
                    for train in &trains[..n] {
                        for d in &datagrams[train.start..train.start + train.len] {
                            done(d, Ok(()));
                        }
                    }
                    let last = trains[n - 1];
                    start = last.start + last.len;
                }
                Err(Errno::EINTR) => {}
                Err(Errno::EIO | Errno::EINVAL | Errno::ENOPROTOOPT) if self.call.gso.is_some() => {
                    // The kernel or the device does not take UDP GSO: plain from now on.
                    tracing::warn!("UDP GSO refused by the kernel; sending datagrams singly");
                    self.gso = false;
                }
                // The first message failed (its error), or none went for no reason given.
                failed => {
                    let first = trains[0];
                    for d in &datagrams[first.start..first.start + first.len] {
                        let e = match failed {
                            Err(e) => io::Error::from(e),
                            Ok(_) => io::Error::other("sendmmsg sent nothing"),
                        };
                        done(d, Err(e));
                    }
                    start = first.start + first.len;
                }
            }
            self.call.trains = trains;
        }
    }

    /// Fills [`Sender::call`] with the trains from `start`: up to an oversized datagram,
    /// and while the segment sizes agree.
    fn plan(&mut self, datagrams: &[Addressed], start: usize) {
        self.call.clear();
        let mut i = start;
        while i < datagrams.len() && datagrams[i].len() <= MAX_DATAGRAM {
            let mut train = Train::single(i, &datagrams[i]);
            while self.gso
                && let Some(next) = datagrams.get(train.start + train.len)
                && next.len() <= MAX_DATAGRAM
                && train.takes(&datagrams[train.start + train.len - 1], next)
            {
                train.len += 1;
                train.bytes += next.len();
            }
            if !self.call.add(train) {
                break;
            }
            i += train.len;
        }
    }

    /// One `sendmmsg` of [`Sender::call`]; how many of its messages went.
    fn send_call(
        &mut self,
        socket: &UdpSocket,
        datagrams: &[Addressed],
        bytes: &[u8],
    ) -> nix::Result<usize> {
        let trains = &self.call.trains;
        self.addrs.clear();
        self.addrs.extend(
            trains
                .iter()
                .map(|t| Some(SockaddrStorage::from(datagrams[t.start].to))),
        );
        let slices: Vec<IoSlice<'_>> = trains
            .iter()
            .flat_map(|t| &datagrams[t.start..t.start + t.len])
            .map(|d| IoSlice::new(&bytes[d.range.clone()]))
            .collect();
        let mut at = 0;
        let iovs: Vec<&[IoSlice<'_>]> = trains
            .iter()
            .map(|t| {
                let iov = &slices[at..at + t.len];
                at += t.len;
                iov
            })
            .collect();
        match self.call.gso {
            // Within u16: a segment is at most MAX_DATAGRAM bytes.
            Some(segment) => {
                let segment = segment as u16;
                let gso = [ControlMessage::UdpGsoSegments(&segment)];
                sendmmsg(
                    socket.as_raw_fd(),
                    &mut self.gso_headers,
                    &iovs,
                    &self.addrs,
                    gso,
                    MsgFlags::MSG_DONTWAIT,
                )
                .map(Iterator::count)
            }
            None => {
                let no_cmsgs: [ControlMessage<'_>; 0] = [];
                sendmmsg(
                    socket.as_raw_fd(),
                    &mut self.headers,
                    &iovs,
                    &self.addrs,
                    no_cmsgs,
                    MsgFlags::MSG_DONTWAIT,
                )
                .map(Iterator::count)
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
    use crate::Shipment;

    #[test]
    fn a_batch_goes_out_in_order_and_comes_back_in_one_call() {
        let a = UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").unwrap();
        let to = b.local_addr().unwrap();
        let mut datagrams = Shipment::default();
        for i in 0..10u8 {
            datagrams.push(to, &vec![i; usize::from(i) + 1]);
        }
        let mut ok = 0;
        Sender::new().send(&a, &datagrams.datagrams, &datagrams.bytes, |_, r| {
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
        let sent: Vec<Vec<u8>> = datagrams.iter().map(|(_, d)| d.to_vec()).collect();
        assert_eq!(got, sent);
    }

    /// Datagrams of `sizes` to `to`, each filled with its index in the whole list.
    fn datagrams(list: &[(SocketAddr, &[usize])]) -> Shipment {
        let mut out = Shipment::default();
        for &(to, sizes) in list {
            for &len in sizes {
                let mark = out.len() as u8;
                out.push(to, &vec![mark; len]);
            }
        }
        out
    }

    #[test]
    fn consecutive_datagrams_to_one_address_are_planned_as_trains_of_one_segment_size() {
        let a: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let b: SocketAddr = "127.0.0.1:2".parse().unwrap();
        let batch = datagrams(&[
            (a, &[1114, 1114, 600]),
            (b, &[1114, 1114]),
            (a, &[50]),
            // A longer datagram after a shorter one ends the train.
            (b, &[700, 900]),
            // Longer than the call's segment size: the next call ...
            (b, &[1150]),
            // ... which a train of another segment size may join if no single is longer.
            (a, &[1200, 1200, 1199]),
        ]);
        let mut sender = Sender::new();
        let mut calls = Vec::new();
        let mut start = 0;
        while start < batch.len() {
            sender.plan(&batch.datagrams, start);
            let trains: Vec<(usize, usize)> = sender
                .call
                .trains
                .iter()
                .map(|t| (t.start, t.len))
                .collect();
            calls.push((sender.call.gso, trains));
            let last = sender.call.trains.last().unwrap();
            start = last.start + last.len;
        }
        assert_eq!(
            calls,
            [
                (Some(1114), vec![(0, 3), (3, 2), (5, 1), (6, 1), (7, 1)]),
                (Some(1200), vec![(8, 1), (9, 3)]),
            ]
        );
        let mut plain = Sender::without_gso();
        plain.plan(&batch.datagrams, 0);
        assert!(plain.call.trains.iter().all(|t| t.len == 1));
        assert_eq!(plain.call.trains.len(), batch.len());
    }

    #[test]
    fn trains_arrive_as_the_datagrams_they_carry_in_order() {
        let a = UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").unwrap();
        let c = UdpSocket::bind("127.0.0.1:0").unwrap();
        let (to_b, to_c) = (b.local_addr().unwrap(), c.local_addr().unwrap());
        let batch = datagrams(&[
            (to_b, &[1114, 1114, 1114, 600]),
            (to_c, &[1200, 1200]),
            (to_b, &[37]),
            (to_c, &[1200, 5]),
        ]);
        for mut sender in [Sender::new(), Sender::without_gso()] {
            let mut ok = 0;
            sender.send(&a, &batch.datagrams, &batch.bytes, |_, r| {
                r.unwrap();
                ok += 1;
            });
            assert_eq!(ok, batch.len());
            for (socket, to) in [(&b, to_b), (&c, to_c)] {
                let mut got = Vec::new();
                Receiver::new()
                    .receive(socket, BATCH, |bytes, from| {
                        assert_eq!(from, a.local_addr().unwrap());
                        got.push(bytes.to_vec());
                    })
                    .unwrap();
                let sent: Vec<Vec<u8>> = batch
                    .iter()
                    .filter(|&(t, _)| t == to)
                    .map(|(_, d)| d.to_vec())
                    .collect();
                assert_eq!(got, sent, "what {to} received, one datagram each");
            }
        }
    }

    #[test]
    fn a_refused_datagram_is_reported_and_the_rest_still_go() {
        let a = UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").unwrap();
        let to = b.local_addr().unwrap();
        let mut datagrams = Shipment::default();
        datagrams.push(to, &[1]);
        datagrams.push("[::1]:9".parse().unwrap(), &[2]);
        datagrams.push(to, &[0; MAX_DATAGRAM + 1]);
        datagrams.push(to, &[3]);
        let mut outcomes = Vec::new();
        let Shipment { datagrams, bytes } = &datagrams;
        Sender::new().send(&a, datagrams, bytes, |d, r| {
            outcomes.push((bytes[d.range.start], r.is_ok()))
        });
        assert_eq!(outcomes, [(1, true), (2, false), (0, false), (3, true)]);
    }
}
