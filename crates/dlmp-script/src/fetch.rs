//! `dlmp.fetch` (ADR 0035, ADR 0101): HTTP requests of scripts on a worker thread, so the
//! tick never blocks on the network. Requests go through a bounded queue ([`QUEUE`]); a
//! resource may have [`PER_RESOURCE`] pending; answers are delivered to their callbacks in
//! the next script pass. The requests are made by `ureq` with rustls: `https://` and
//! `http://`, chunked and gzip answers, at most [`MAX_REDIRECTS`] redirects; TLS trusts the
//! bundled Mozilla roots, or the certificates of [`FetchSettings::ca_file`] instead.

use std::path::PathBuf;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender, TrySendError};
use ureq::Agent;
use ureq::http::{HeaderName, HeaderValue, Method, Request as HttpRequest};
use ureq::tls::{Certificate, RootCerts, TlsConfig};

/// Requests waiting for the worker, all resources together.
pub const QUEUE: usize = 64;
/// Pending requests one resource may have.
pub const PER_RESOURCE: usize = 8;
/// The longest answer body kept; a longer one fails the request.
pub const MAX_BODY: usize = 1 << 20;
/// Redirects followed at most; one more fails the request.
pub const MAX_REDIRECTS: u32 = 5;

/// How the worker makes its connections.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FetchSettings {
    /// A PEM file of CA certificates trusted instead of the bundled roots (a private CA);
    /// `None`: the bundled Mozilla roots.
    pub ca_file: Option<PathBuf>,
}

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
    /// Starts the worker thread; a CA file that cannot be read is an error here.
    pub fn start(settings: &FetchSettings) -> std::io::Result<Client> {
        let agent = agent(settings)?;
        let (requests, work) = crossbeam_channel::bounded::<Request>(QUEUE);
        let (done, answers) = crossbeam_channel::unbounded();
        std::thread::Builder::new()
            .name("script-fetch".to_owned())
            .spawn(move || {
                for request in work {
                    let result = perform(&agent, &request);
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

/// The agent of the worker: statuses are answers (a 404 is the script's to read), not
/// errors.
fn agent(settings: &FetchSettings) -> std::io::Result<Agent> {
    let mut tls = TlsConfig::builder();
    if let Some(path) = &settings.ca_file {
        let pem = std::fs::read(path)
            .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
        let certs = ureq::tls::parse_pem(&pem)
            .filter_map(|item| match item {
                Ok(ureq::tls::PemItem::Certificate(c)) => Some(Ok(c)),
                Ok(_) => None,
                Err(e) => Some(Err(e)),
            })
            .collect::<Result<Vec<Certificate<'static>>, _>>()
            .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
        if certs.is_empty() {
            return Err(std::io::Error::other(format!(
                "{}: no certificate in the file",
                path.display()
            )));
        }
        tls = tls.root_certs(RootCerts::new_with_certs(&certs));
    }
    Ok(Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(MAX_REDIRECTS)
        .tls_config(tls.build())
        .build()
        .into())
}

/// Whether `name: value` can go into a request as it is: a token name, a value without
/// CR, LF or NUL.
pub fn valid_header(name: &str, value: &str) -> bool {
    HeaderName::from_bytes(name.as_bytes()).is_ok() && HeaderValue::from_str(value).is_ok()
}

/// The request as the `http` crate has it; a bad method, URL or header is an error.
fn build(r: &Request) -> Result<HttpRequest<Vec<u8>>, String> {
    let method = Method::from_bytes(r.method.as_bytes())
        .map_err(|_| format!("{:?} is not a method", r.method))?;
    let mut builder = HttpRequest::builder().method(method).uri(r.url.as_str());
    for (name, value) in &r.headers {
        if !valid_header(name, value) {
            return Err(format!("header {name:?} is not a valid header"));
        }
        builder = builder.header(name.as_str(), value.as_str());
    }
    builder
        .body(r.body.clone().into_bytes())
        .map_err(|e| e.to_string())
}

fn perform(agent: &Agent, r: &Request) -> Result<(u16, String), String> {
    let request = build(r)?;
    let response = if request.body().is_empty() {
        let (parts, _) = request.into_parts();
        let request = agent
            .configure_request(HttpRequest::from_parts(parts, ()))
            .timeout_global(Some(r.timeout))
            .build();
        agent.run(request)
    } else {
        let request = agent
            .configure_request(request)
            .timeout_global(Some(r.timeout))
            .build();
        agent.run(request)
    };
    let mut response = response.map_err(|e| describe(&e))?;
    let status = response.status().as_u16();
    let body = response
        .body_mut()
        .with_config()
        .limit(MAX_BODY as u64)
        .lossy_utf8(true)
        .read_to_string()
        .map_err(|e| match e {
            ureq::Error::BodyExceedsLimit(_) => {
                format!("the answer is longer than {MAX_BODY} bytes")
            }
            e => describe(&e),
        })?;
    Ok((status, body))
}

/// The error as a script reads it: a timeout is `timed out`, a TLS failure says so.
fn describe(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => "timed out".to_owned(),
        ureq::Error::TooManyRedirects => format!("more than {MAX_REDIRECTS} redirects"),
        ureq::Error::Tls(what) => format!("TLS: {what}"),
        ureq::Error::Rustls(what) => format!("TLS: {what}"),
        ureq::Error::Io(io) if is_tls(io) => format!("TLS: {io}"),
        ureq::Error::Io(io) => io.to_string(),
        e => e.to_string(),
    }
}

/// rustls reports a failed handshake (an unknown issuer, a wrong name, an expired
/// certificate) as an I/O error wrapping its own.
fn is_tls(io: &std::io::Error) -> bool {
    io.get_ref().is_some_and(|inner| {
        let text = inner.to_string();
        text.contains("certificate") || text.contains("handshake") || text.contains("TLS")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_names_and_values_are_checked() {
        assert!(valid_header("X-Test", "yes"));
        assert!(!valid_header("X-Test", "a\r\nInjected: 1"));
        assert!(!valid_header("X Test", "a"));
        assert!(!valid_header("X-Test:", "a"));
        assert!(!valid_header("", "a"));
    }

    #[test]
    fn a_bad_method_or_url_fails_before_any_connection() {
        let request = Request {
            id: 1,
            url: "http://127.0.0.1:9/".into(),
            method: "GE T".into(),
            headers: Vec::new(),
            body: String::new(),
            timeout: Duration::from_secs(1),
        };
        assert!(build(&request).is_err());
        let request = Request {
            url: "not a url".into(),
            method: "GET".into(),
            ..request
        };
        let agent = agent(&FetchSettings::default()).expect("an agent");
        assert!(perform(&agent, &request).is_err());
    }

    #[test]
    fn a_ca_file_without_certificates_is_an_error() {
        let path = std::env::temp_dir().join(format!("dlmp-empty-ca-{}.pem", std::process::id()));
        std::fs::write(&path, "nothing here\n").expect("write");
        let settings = FetchSettings {
            ca_file: Some(path.clone()),
        };
        assert!(Client::start(&settings).is_err());
        let _ = std::fs::remove_file(path);
    }
}
