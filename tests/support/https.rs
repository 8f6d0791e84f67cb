//! A local HTTPS server for the tests of `dlmp.fetch` (ADR 0101): a test CA made at run
//! time, a certificate it signs for `localhost` and `127.0.0.1`, and a thread that answers
//! each connection by its path. Shared by tests/script_extend.rs.
#![allow(dead_code, unreachable_pub)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};

/// The text `/gzip` answers, gzip-compressed and chunked.
pub const GZIP_TEXT: &str = "hello over tls; ";
/// Times [`GZIP_TEXT`] is repeated.
pub const GZIP_REPEAT: usize = 200;

/// A certificate authority the tests trust through `fetch_ca_file`.
pub struct TestCa {
    pub pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl TestCa {
    pub fn new(name: &str) -> TestCa {
        let key = KeyPair::generate().expect("a key");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let cert = params.self_signed(&key).expect("a CA certificate");
        TestCa {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// A certificate for `localhost` and `127.0.0.1` this CA signed, and its key: PEM.
    pub fn certificate(&self) -> (String, String) {
        let key = KeyPair::generate().expect("a key");
        let params = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .expect("params");
        let cert = params.signed_by(&key, &self.issuer).expect("signed");
        (cert.pem(), key.serialize_pem())
    }

    /// Starts a server whose certificate this CA signed; its port.
    pub fn serve(&self) -> u16 {
        let key = KeyPair::generate().expect("a key");
        let params = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .expect("params");
        let cert = params.signed_by(&key, &self.issuer).expect("signed");
        // ring, as the panel and `dlmp.fetch` use (ADR 0101).
        #[allow(deprecated, reason = "ring lacks only the post-quantum key exchange")]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(cert.der().to_vec())],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
            )
            .expect("a server config");
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").expect("a local port");
        let port = listener.local_addr().expect("addr").port();
        std::thread::spawn(move || {
            for tcp in listener.incoming().flatten() {
                let config = Arc::clone(&config);
                std::thread::spawn(move || answer(config, tcp));
            }
        });
        port
    }
}

/// Reads one request and answers it by path: `/gzip` a chunked gzip body, `/redirect` a
/// redirect to `/gzip`, `/loop/N` a redirect to `/loop/N+1`, anything else 404. A client
/// that refuses the certificate ends it early.
fn answer(config: Arc<ServerConfig>, tcp: TcpStream) {
    let Ok(conn) = ServerConnection::new(config) else {
        return;
    };
    let mut tls = StreamOwned::new(conn, tcp);
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match tls.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let path = text.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let reply = if path == "/gzip" {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(GZIP_TEXT.repeat(GZIP_REPEAT).as_bytes())
            .expect("compressed");
        let body = gz.finish().expect("compressed");
        let mut out = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".to_vec();
        for chunk in body.chunks(37) {
            out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
            out.extend_from_slice(chunk);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"0\r\n\r\n");
        out
    } else if path == "/redirect" {
        b"HTTP/1.1 302 Found\r\nLocation: /gzip\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            .to_vec()
    } else if let Some(n) = path
        .strip_prefix("/loop/")
        .and_then(|n| n.parse::<u32>().ok())
    {
        format!(
            "HTTP/1.1 302 Found\r\nLocation: /loop/{}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            n + 1
        )
        .into_bytes()
    } else {
        b"HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\nConnection: close\r\n\r\nnone".to_vec()
    };
    let _ = tls.write_all(&reply);
    let _ = tls.flush();
    tls.conn.send_close_notify();
    let _ = tls.flush();
}
