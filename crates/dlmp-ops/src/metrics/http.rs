//! The `/metrics` listener: one thread, one connection at a time, a short read timeout, so
//! a slow or hostile scraper costs that thread and nothing else.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use prometheus_client::encoding::text::encode;
use prometheus_client::registry::Registry;

/// How long a scraper may take to send its request line.
const READ_TIMEOUT: Duration = Duration::from_secs(2);

/// The running listener.
#[derive(Debug)]
pub struct MetricsServer {
    pub local_addr: SocketAddr,
}

/// Binds `addr` and serves `registry` on `GET /metrics` from a thread of its own,
/// `dlmp-metrics`, for the life of the process.
pub fn serve(addr: SocketAddr, registry: Registry) -> io::Result<MetricsServer> {
    let listener = TcpListener::bind(addr)?;
    let local_addr = listener.local_addr()?;
    let registry = Arc::new(registry);
    thread::Builder::new()
        .name("dlmp-metrics".into())
        .spawn(move || {
            for stream in listener.incoming().flatten() {
                if let Err(e) = answer(stream, &registry) {
                    tracing::debug!(error = %e, "metrics request failed");
                }
            }
        })?;
    tracing::info!(%local_addr, "metrics on /metrics");
    Ok(MetricsServer { local_addr })
}

fn answer(stream: TcpStream, registry: &Registry) -> io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_write_timeout(Some(READ_TIMEOUT))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.by_ref().take(8192).read_line(&mut line)?;
    // The headers are not needed; read them so the client sees a clean close.
    let mut header = String::new();
    while reader.by_ref().take(8192).read_line(&mut header)? > 2 {
        header.clear();
    }
    let mut parts = line.split_whitespace();
    let (status, kind, body) = match (parts.next(), parts.next()) {
        (Some("GET"), Some("/metrics")) => {
            let mut body = String::new();
            encode(&mut body, registry).map_err(io::Error::other)?;
            (
                "200 OK",
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
                body,
            )
        }
        _ => (
            "404 Not Found",
            "text/plain",
            "only GET /metrics\n".to_owned(),
        ),
    };
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()
}
