//! `dlmp.fetch` (ADR 0035): HTTP requests of scripts on a worker thread, so the tick never
//! blocks on the network. Requests go through a bounded queue ([`QUEUE`]); a resource may
//! have [`PER_RESOURCE`] pending; answers are delivered to their callbacks in the next
//! script pass. Plain `http://` over `std::net` (no TLS: it would pull a TLS stack in).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError};

/// Requests waiting for the worker, all resources together.
pub const QUEUE: usize = 64;
/// Pending requests one resource may have.
pub const PER_RESOURCE: usize = 8;
/// The longest answer body kept; a longer one fails the request.
pub const MAX_BODY: usize = 1 << 20;

/// One request for the worker.
#[derive(Debug, Clone)]
pub struct Request {
    pub id: u64,
    pub url: String,
    pub method: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub timeout: Duration,
}

/// The worker's answer: status and body, or why it failed.
#[derive(Debug, Clone)]
pub struct Answer {
    pub id: u64,
    pub result: Result<(u16, String), String>,
}

/// The script side of the worker.
#[derive(Debug)]
pub struct Client {
    requests: Sender<Request>,
    pub(crate) answers: Receiver<Answer>,
}

impl Client {
    /// Starts the worker thread.
    pub fn start() -> std::io::Result<Client> {
        let (requests, work) = crossbeam_channel::bounded::<Request>(QUEUE);
        let (done, answers) = crossbeam_channel::unbounded();
        std::thread::Builder::new()
            .name("script-fetch".to_owned())
            .spawn(move || {
                for request in work {
                    let result = perform(&request);
                    if done
                        .send(Answer {
                            id: request.id,
                            result,
                        })
                        .is_err()
                    {
                        break;
                    }
                }
            })?;
        Ok(Client { requests, answers })
    }

    /// Queues `request`; false when the queue is full.
    pub fn send(&self, request: Request) -> bool {
        !matches!(
            self.requests.try_send(request),
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_))
        )
    }
}

/// `http://host[:port]/path` split.
fn parse(url: &str) -> Result<(String, u16, String), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("only http:// URLs are supported, got {url}"))?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => (
            h,
            p.parse::<u16>().map_err(|_| format!("bad port in {url}"))?,
        ),
        None => (authority, 80),
    };
    if host.is_empty() {
        return Err(format!("no host in {url}"));
    }
    Ok((host.to_owned(), port, path.to_owned()))
}

fn perform(r: &Request) -> Result<(u16, String), String> {
    let deadline = Instant::now() + r.timeout;
    let left = || {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| "timed out".to_owned())
    };
    let (host, port, path) = parse(&r.url)?;
    let addr = (host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}: {e}"))?
        .next()
        .ok_or_else(|| format!("cannot resolve {host}"))?;
    let mut stream = TcpStream::connect_timeout(&addr, left()?).map_err(|e| e.to_string())?;
    stream
        .set_write_timeout(Some(left()?))
        .map_err(|e| e.to_string())?;
    let mut head = format!(
        "{} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Length: {}\r\n",
        r.method,
        r.body.len()
    );
    for (k, v) in &r.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(r.body.as_bytes()))
        .map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        stream
            .set_read_timeout(Some(left()?))
            .map_err(|e| e.to_string())?;
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                raw.extend_from_slice(&buf[..n]);
                if raw.len() > MAX_BODY + 64 * 1024 {
                    return Err(format!("the answer is longer than {MAX_BODY} bytes"));
                }
                if complete(&raw) {
                    break;
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err("timed out".to_owned());
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    answer(&raw)
}

/// The head's end and the Content-Length, when the head is in.
fn head_of(raw: &[u8]) -> Option<(usize, Option<usize>)> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&raw[..end]);
    let length = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| v.trim().parse().ok())?
    });
    Some((end, length))
}

fn complete(raw: &[u8]) -> bool {
    matches!(head_of(raw), Some((end, Some(len))) if raw.len() >= end + len)
}

fn answer(raw: &[u8]) -> Result<(u16, String), String> {
    let (end, length) = head_of(raw).ok_or("the server closed before a full answer")?;
    let status_line = String::from_utf8_lossy(&raw[..end]);
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or("the answer has no status")?;
    let body = &raw[end..];
    let body = length.map_or(body, |len| &body[..len.min(body.len())]);
    Ok((status, String::from_utf8_lossy(body).into_owned()))
}
