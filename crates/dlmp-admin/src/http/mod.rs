//! The HTTP server (ADR 0100): axum on a tokio runtime of its own (two threads), the panel
//! and `/metrics` on the `admin` address, `/metrics` alone on a `metrics` address that
//! differs. Every connection is served by hyper; with a certificate and key, over rustls.

mod actions;
pub mod auth;
mod events;
pub mod html;
pub mod pages;
mod tls;

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use axum::Router;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use prometheus_client::registry::Registry;
use tokio::net::TcpListener;
use tower::Service;
use tracing::{info, warn};

use crate::bridge::Link;
use auth::{Auth, Session};
use dlmp_ops::accounts::{AdminUser, Area};

pub use events::{MAX_STREAMS, PER_SECOND, SLOW_AFTER};

/// Where and how to serve.
#[derive(Debug, Clone, Default)]
pub struct HttpSettings {
    /// The panel and `/metrics` (the config's `admin`).
    pub admin: Option<SocketAddr>,
    /// `/metrics` alone (the config's `metrics`), when it is not `admin`.
    pub metrics: Option<SocketAddr>,
    pub users: Vec<AdminUser>,
    /// A PEM certificate chain and its key: HTTPS.
    pub tls: Option<(PathBuf, PathBuf)>,
}

impl HttpSettings {
    /// The config's `admin`, `metrics`, `[[admin_users]]` and TLS files.
    #[must_use]
    pub fn from_config(config: &dlmp_ops::config::Config) -> Self {
        HttpSettings {
            admin: config.admin,
            metrics: config.metrics,
            users: config.admin_users.clone(),
            tls: config
                .admin_tls_cert
                .clone()
                .zip(config.admin_tls_key.clone()),
        }
    }

    /// Whether there is anything to serve.
    #[must_use]
    pub fn serves(&self) -> bool {
        self.admin.is_some() || self.metrics.is_some()
    }
}

/// The running server; dropped, it stops.
#[derive(Debug)]
pub struct HttpServer {
    /// The panel's bound address.
    pub admin_addr: Option<SocketAddr>,
    /// The metrics-only address.
    pub metrics_addr: Option<SocketAddr>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

/// What the handlers share.
pub(crate) struct AppState {
    pub(crate) auth: Auth,
    pub(crate) link: Option<Link>,
    pub(crate) registry: Option<Registry>,
    /// Cookies get `Secure` under TLS.
    pub(crate) secure: bool,
    pub(crate) streams: Arc<AtomicUsize>,
}

/// The address a request came from, set per connection.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Peer(pub(crate) SocketAddr);

/// The signed-in admin of a request: without a session, a page redirects to the sign-in
/// page and an action is forbidden.
pub(crate) struct Admin {
    pub(crate) session: Session,
    pub(crate) token: String,
}

impl FromRequestParts<Arc<AppState>> for Admin {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, Response> {
        let token = parts
            .headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(auth::cookie_value)
            .map(str::to_owned);
        let found = token
            .as_deref()
            .and_then(|t| state.auth.session(t))
            .zip(token);
        match found {
            Some((session, token)) => Ok(Admin { session, token }),
            None if parts.method == Method::GET => Err(Redirect::to("/login").into_response()),
            None => Err((StatusCode::FORBIDDEN, "sign in first\n").into_response()),
        }
    }
}

impl Admin {
    /// Forbidden unless the role may use `area`.
    pub(crate) fn require(&self, area: Area) -> Result<(), Response> {
        if self.session.role.may(area) {
            Ok(())
        } else {
            Err((
                StatusCode::FORBIDDEN,
                Html(format!(
                    "<!doctype html><p>A {} may not use this page.</p><p><a href=\"/\">Back</a></p>",
                    self.session.role.as_str()
                )),
            )
                .into_response())
        }
    }

    /// Forbidden unless `token` is the session's CSRF token.
    /// A state change: the role may use `area` and the form carries the session's CSRF
    /// token (ADR 0102).
    pub(crate) fn may_post(&self, area: Area, token: &str) -> Result<(), Response> {
        self.require(area)?;
        self.check_csrf(token)
    }

    pub(crate) fn check_csrf(&self, token: &str) -> Result<(), Response> {
        if auth::same(token, &self.session.csrf) {
            Ok(())
        } else {
            Err((
                StatusCode::FORBIDDEN,
                "the form is stale: reload the page\n",
            )
                .into_response())
        }
    }
}

/// Starts the server: binds every address first (an error names it), then serves on the
/// runtime's threads. Without `link` the panel's pages answer 503.
pub fn start(
    settings: HttpSettings,
    link: Option<Link>,
    registry: Option<Registry>,
) -> io::Result<HttpServer> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(4)
        .thread_name("dlmp-http")
        .enable_all()
        .build()?;
    let acceptor = match &settings.tls {
        Some((cert, key)) => Some(tls::acceptor(cert, key)?),
        None => None,
    };
    let state = Arc::new(AppState {
        auth: Auth::new(settings.users.clone()),
        link,
        registry,
        secure: acceptor.is_some(),
        streams: Arc::new(AtomicUsize::new(0)),
    });
    let mut admin_addr = None;
    let mut metrics_addr = None;
    if let Some(addr) = settings.admin {
        let listener = runtime.block_on(TcpListener::bind(addr)).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("the admin panel cannot listen on {addr}: {e}"),
            )
        })?;
        let local = listener.local_addr()?;
        admin_addr = Some(local);
        warn_if_exposed(local, acceptor.is_some());
        runtime.spawn(serve(listener, panel(Arc::clone(&state)), acceptor.clone()));
        let scheme = if acceptor.is_some() { "https" } else { "http" };
        info!("admin panel on {scheme}://{local}/ (and /metrics)");
    }
    if let Some(addr) = settings.metrics.filter(|m| Some(*m) != settings.admin) {
        let listener = runtime.block_on(TcpListener::bind(addr)).map_err(|e| {
            io::Error::new(e.kind(), format!("/metrics cannot listen on {addr}: {e}"))
        })?;
        let local = listener.local_addr()?;
        metrics_addr = Some(local);
        runtime.spawn(serve(listener, metrics_only(Arc::clone(&state)), None));
        info!("metrics on http://{local}/metrics");
    }
    Ok(HttpServer {
        admin_addr,
        metrics_addr,
        runtime: Some(runtime),
    })
}

/// A clear warning when the panel is reachable from other machines in plain HTTP.
fn warn_if_exposed(addr: SocketAddr, tls: bool) {
    if !tls && !addr.ip().is_loopback() {
        warn!(
            "the admin panel listens on {addr} without TLS: passwords and sessions cross the \
             network in the clear; set admin_tls_cert and admin_tls_key, or listen on \
             127.0.0.1 behind an HTTPS proxy or an SSH tunnel"
        );
    }
}

/// Accepts connections until the runtime stops, each served on a task of its own.
async fn serve(listener: TcpListener, router: Router, tls: Option<tls::Acceptor>) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                warn!("admin panel: accept failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                continue;
            }
        };
        let router = router.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
                req.extensions_mut().insert(Peer(peer));
                let mut router = router.clone();
                async move { router.call(req).await }
            });
            let http = hyper::server::conn::http1::Builder::new();
            let served = match tls {
                Some(tls) => match tls.accept(stream).await {
                    Ok(stream) => http
                        .serve_connection(TokioIo::new(stream), service)
                        .await
                        .map_err(|e| e.to_string()),
                    Err(e) => Err(format!("TLS handshake: {e}")),
                },
                None => http
                    .serve_connection(TokioIo::new(stream), service)
                    .await
                    .map_err(|e| e.to_string()),
            };
            if let Err(e) = served {
                tracing::debug!(%peer, "admin panel connection: {e}");
            }
        });
    }
}

/// Headers every answer carries: no framing, no sniffing, scripts and styles from the
/// panel itself only.
async fn harden(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    for (name, value) in [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
             frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
        ),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
    ] {
        h.insert(name, HeaderValue::from_static(value));
    }
    if !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    res
}

fn panel(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .route("/login", get(actions::sign_in_page).post(actions::sign_in))
        .route("/logout", post(actions::sign_out))
        .route("/assets/style.css", get(style))
        .route("/assets/app.js", get(script))
        .route("/", get(actions::dashboard))
        .route("/players", get(actions::players))
        .route("/players/kick", post(actions::kick))
        .route("/players/ban", post(actions::ban))
        .route("/bans", get(actions::bans))
        .route("/bans/lift", post(actions::lift))
        .route("/bans/add", post(actions::ban_address))
        .route("/resources", get(actions::resources))
        .route("/resources/{op}", post(actions::resource))
        .route("/console", get(actions::console).post(actions::command))
        .route("/chat", get(actions::chat))
        .route("/map", get(actions::map))
        .route("/settings", get(actions::settings))
        .route("/settings/restart", post(actions::set_restart))
        .route("/events/dashboard", get(actions::dashboard_events))
        .route("/events/map", get(actions::map_events))
        .route("/events/log", get(actions::log_events))
        .route("/events/chat", get(actions::chat_events))
        .layer(axum::extract::DefaultBodyLimit::max(64 * 1024))
        .layer(axum::middleware::from_fn(harden))
        .with_state(state)
}

fn metrics_only(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .with_state(state)
}

/// `GET /metrics`: the Prometheus text, readable without signing in (ADR 0034).
async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    let Some(registry) = &state.registry else {
        return (StatusCode::NOT_FOUND, "no metrics\n").into_response();
    };
    let mut body = String::new();
    if let Err(e) = prometheus_client::encoding::text::encode(&mut body, registry) {
        return (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")).into_response();
    }
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        body,
    )
        .into_response()
}

/// The stylesheet and the script, compiled into the binary.
const STYLE: &str = include_str!("../../assets/style.css");
const SCRIPT: &str = include_str!("../../assets/app.js");

async fn style() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=3600"),
        ],
        STYLE,
    )
}

async fn script() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=3600"),
        ],
        SCRIPT,
    )
}

/// The peer's address of a request (set per connection by [`serve`]).
pub(crate) fn peer_ip(peer: Option<Peer>) -> IpAddr {
    peer.map_or(IpAddr::from([0, 0, 0, 0]), |p| p.0.ip())
}

/// 503 for a panel without a server behind it.
pub(crate) fn no_server() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "the server is not running\n",
    )
        .into_response()
}
