//! A query client (query.md), for the `dlmp-query` tool and the tests: asks a server over
//! UDP and prints what a server browser would show.

use std::fmt::Write as _;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

use dlmp_protocol::Packet;
use dlmp_protocol::query::{
    FLAG_CLOSED, PAGE_REQUEST_SIZE, PlayerEntry, PlayerList, QUERY_MAGIC, QueryInfo, QueryPlayers,
    QueryRules, RuleEntry, Rules, ServerInfo,
};

/// How long one attempt waits for its answer; a lost datagram is asked again.
const WAIT: Duration = Duration::from_millis(700);
const ATTEMPTS: u32 = 3;

/// A socket to ask `server` from.
pub struct QueryClient {
    socket: UdpSocket,
    server: SocketAddr,
    nonce: u32,
}

impl QueryClient {
    pub fn new(server: SocketAddr) -> io::Result<Self> {
        let local: SocketAddr = if server.is_ipv4() {
            ([0, 0, 0, 0], 0).into()
        } else {
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
        };
        let socket = UdpSocket::bind(local)?;
        socket.set_read_timeout(Some(WAIT))?;
        let mut seed = [0u8; 4];
        getrandom::fill(&mut seed).map_err(io::Error::other)?;
        Ok(QueryClient {
            socket,
            server,
            nonce: u32::from_le_bytes(seed),
        })
    }

    /// ServerInfo.
    pub fn info(&mut self) -> io::Result<ServerInfo> {
        let nonce = self.next_nonce();
        let request = QueryInfo {
            magic: QUERY_MAGIC,
            nonce,
            pad: [0; 184],
        };
        self.ask(&encode(&request)?, |bytes| {
            ServerInfo::decode(bytes).ok().filter(|a| a.nonce == nonce)
        })
    }

    /// Every page of PlayerList, in player_id order.
    pub fn players(&mut self) -> io::Result<Vec<PlayerEntry>> {
        self.all_pages(|client, page| {
            let nonce = client.next_nonce();
            let request = QueryPlayers {
                magic: QUERY_MAGIC,
                nonce,
                page,
                pad: [0; PAGE_REQUEST_SIZE - 11],
            };
            let list = client.ask(&encode(&request)?, |bytes| {
                PlayerList::decode(bytes)
                    .ok()
                    .filter(|a| a.nonce == nonce && a.page == page)
            })?;
            Ok((list.players.0, list.pages))
        })
    }

    /// Every page of Rules, in key order.
    pub fn rules(&mut self) -> io::Result<Vec<RuleEntry>> {
        self.all_pages(|client, page| {
            let nonce = client.next_nonce();
            let request = QueryRules {
                magic: QUERY_MAGIC,
                nonce,
                page,
                pad: [0; PAGE_REQUEST_SIZE - 11],
            };
            let rules = client.ask(&encode(&request)?, |bytes| {
                Rules::decode(bytes)
                    .ok()
                    .filter(|a| a.nonce == nonce && a.page == page)
            })?;
            Ok((rules.rules.0, rules.pages))
        })
    }

    fn all_pages<T>(
        &mut self,
        mut page: impl FnMut(&mut Self, u16) -> io::Result<(Vec<T>, u16)>,
    ) -> io::Result<Vec<T>> {
        let (mut all, pages) = page(self, 0)?;
        for n in 1..pages {
            all.extend(page(self, n)?.0);
        }
        Ok(all)
    }

    fn next_nonce(&mut self) -> u32 {
        self.nonce = self.nonce.wrapping_add(1);
        self.nonce
    }

    /// Sends `request` until an answer `accept` takes arrives, [`ATTEMPTS`] times.
    fn ask<A>(&self, request: &[u8], accept: impl Fn(&[u8]) -> Option<A>) -> io::Result<A> {
        let mut buf = [0u8; PAGE_REQUEST_SIZE + 1];
        for _ in 0..ATTEMPTS {
            self.socket.send_to(request, self.server)?;
            loop {
                match self.socket.recv_from(&mut buf) {
                    Ok((n, from)) if from == self.server => {
                        if let Some(answer) = accept(&buf[..n]) {
                            return Ok(answer);
                        }
                    }
                    Ok(_) => {}
                    Err(e)
                        if matches!(
                            e.kind(),
                            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                        ) =>
                    {
                        break;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("no answer from {}", self.server),
        ))
    }
}

fn encode(packet: &impl Packet) -> io::Result<Vec<u8>> {
    packet.to_bytes().map_err(io::Error::other)
}

/// ServerInfo as a browser's details pane shows it.
pub fn format_info(info: &ServerInfo) -> String {
    let open = if info.flags & FLAG_CLOSED == 0 {
        "yes"
    } else {
        "no"
    };
    format!(
        "name: {}\ngamemode: {}\nplayers: {}/{}\nopen: {open}\nlanguage: {}\nwebsite: {}\n\
         time: {:02}:{:02}\nweather: {}\ntick rate: {} Hz\nprotocol: {}\n",
        info.name.as_str(),
        info.gamemode.as_str(),
        info.players,
        info.max_players,
        info.language.as_str(),
        info.website.as_str(),
        info.hours,
        info.minutes,
        info.weather,
        info.tick_hz,
        info.protocol,
    )
}

/// The player list, one line a player: id, score, ping, name.
pub fn format_players(players: &[PlayerEntry]) -> String {
    let mut out = format!("{:>5} {:>11} {:>5}  name\n", "id", "score", "ping");
    for p in players {
        let _ = writeln!(
            out,
            "{:>5} {:>11} {:>5}  {}",
            p.player_id,
            p.score,
            p.ping_ms,
            p.name.as_str()
        );
    }
    out
}

/// The rules, one `key = value` line each.
pub fn format_rules(rules: &[RuleEntry]) -> String {
    rules.iter().fold(String::new(), |mut out, r| {
        let _ = writeln!(out, "{} = {}", r.key.as_str(), r.value.as_str());
        out
    })
}
