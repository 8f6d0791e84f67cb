//! The panel's handlers: the pages (GET) and the actions (POST with the session's CSRF
//! token). An action goes to the tick through the bridge and the handler waits for its
//! answer, at most [`ANSWER_WITHIN`]; a page reads the latest snapshot.

use std::net::IpAddr;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Extension, Form, Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use tracing::{info, warn};

use super::auth::{self, Refused};
use super::events::{self, StreamSlot, View};
use super::{Admin, AppState, Peer, html, no_server, pages};
use crate::bridge::{ANSWER_WITHIN, Action, ResourceOp};
use crate::snapshot::Snapshot;
use dlmp_ops::accounts::Area;
use dlmp_ops::logs::{CHAT_LOG, Stream as LogStream};
use dlmp_ops::restart::DailyTime;

type Result<T = Response> = std::result::Result<T, Response>;

/// The longest reason kept.
const MAX_REASON: usize = 100;
/// The longest ban, in minutes (ten years, as `player:ban`).
const MAX_MINUTES: u32 = 10 * 366 * 24 * 60;

#[derive(Deserialize)]
pub(super) struct Notice {
    msg: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct SignIn {
    name: String,
    password: String,
}

#[derive(Deserialize)]
pub(super) struct CsrfOnly {
    #[serde(default)]
    csrf: String,
}

#[derive(Deserialize)]
pub(super) struct KickForm {
    #[serde(default)]
    csrf: String,
    id: u32,
    #[serde(default)]
    reason: String,
}

#[derive(Deserialize)]
pub(super) struct BanForm {
    #[serde(default)]
    csrf: String,
    id: u32,
    #[serde(default)]
    minutes: String,
    #[serde(default)]
    reason: String,
}

#[derive(Deserialize)]
pub(super) struct AddressForm {
    #[serde(default)]
    csrf: String,
    ip: String,
    #[serde(default)]
    minutes: String,
    #[serde(default)]
    reason: String,
}

#[derive(Deserialize)]
pub(super) struct ResourceForm {
    #[serde(default)]
    csrf: String,
    name: String,
}

#[derive(Deserialize)]
pub(super) struct CommandForm {
    #[serde(default)]
    csrf: String,
    line: String,
}

#[derive(Deserialize)]
pub(super) struct RestartForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    at: String,
}

fn bad(text: impl Into<String>) -> Response {
    (StatusCode::BAD_REQUEST, format!("{}\n", text.into())).into_response()
}

/// An address typed into a form.
fn address(text: &str) -> std::result::Result<IpAddr, Response> {
    text.trim()
        .parse()
        .map_err(|_| bad(format!("{text:?} is not an IPv4 or IPv6 address")))
}

/// A reason as the logs and the players read it: one line, at most [`MAX_REASON`] chars.
fn clean(reason: &str) -> String {
    reason
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_REASON)
        .collect::<String>()
        .trim()
        .to_owned()
}

/// An empty field is forever; otherwise 1..=[`MAX_MINUTES`].
fn minutes(text: &str) -> Result<Option<u32>> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<u32>() {
        Ok(m) if (1..=MAX_MINUTES).contains(&m) => Ok(Some(m)),
        _ => Err(bad(format!(
            "minutes must be a whole number in 1..={MAX_MINUTES}, or empty for a permanent ban"
        ))),
    }
}

/// `text` for a query string.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Back to `page` with the answer's lines as the notice.
fn back(page: &str, lines: &[String]) -> Response {
    Redirect::to(&format!("{page}?msg={}", encode(&lines.join("; ")))).into_response()
}

fn snapshot(st: &AppState) -> Result<Arc<Snapshot>> {
    st.link
        .as_ref()
        .map(crate::bridge::Link::snapshot)
        .ok_or_else(no_server)
}

async fn ask(st: &AppState, admin: &Admin, action: Action) -> Result<Vec<String>> {
    let link = st.link.as_ref().ok_or_else(no_server)?;
    let answer = link.ask(&admin.session.name, action).ok_or_else(|| {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is busy: try again\n",
        )
            .into_response()
    })?;
    match tokio::time::timeout(ANSWER_WITHIN, answer).await {
        Ok(Ok(lines)) => Ok(lines),
        _ => Err((
            StatusCode::GATEWAY_TIMEOUT,
            "the server did not answer in time\n",
        )
            .into_response()),
    }
}

/// A page of `area`: the frame around `body`.
fn page(
    st: &AppState,
    admin: &Admin,
    title: &str,
    notice: &Notice,
    body: impl FnOnce(&Snapshot) -> String,
) -> Result {
    admin.require(pages::area_of(title))?;
    let snapshot = snapshot(st)?;
    Ok(Html(html::page(
        title,
        &snapshot.server_name,
        &admin.session,
        notice.msg.as_deref(),
        &body(&snapshot),
    ))
    .into_response())
}

pub(super) async fn sign_in_page(State(st): State<Arc<AppState>>) -> Response {
    let name = st
        .link
        .as_ref()
        .map(|l| l.snapshot().server_name.clone())
        .unwrap_or_default();
    Html(html::sign_in(&name, None)).into_response()
}

pub(super) async fn sign_in(
    State(st): State<Arc<AppState>>,
    peer: Option<Extension<Peer>>,
    Form(form): Form<SignIn>,
) -> Response {
    let ip = super::peer_ip(peer.map(|p| p.0));
    let server = st
        .link
        .as_ref()
        .map(|l| l.snapshot().server_name.clone())
        .unwrap_or_default();
    let too_soon = |wait: std::time::Duration| {
        let secs = wait.as_secs_f64().ceil();
        (
            StatusCode::TOO_MANY_REQUESTS,
            [(header::RETRY_AFTER, format!("{secs:.0}"))],
            Html(html::sign_in(
                &server,
                Some(&format!(
                    "Too many failed sign-ins from your address: try again in {secs:.0} s."
                )),
            )),
        )
            .into_response()
    };
    if let Some(wait) = st.auth.wait_for(ip) {
        return too_soon(wait);
    }
    let checking = Arc::clone(&st);
    let name = form.name.clone();
    let outcome =
        tokio::task::spawn_blocking(move || checking.auth.sign_in(ip, &form.name, &form.password))
            .await
            .unwrap_or(Err(Refused::WrongNameOrPassword));
    match outcome {
        Ok(token) => {
            info!(target: CHAT_LOG, who = name.as_str(), %ip, "admin: signed in");
            (
                StatusCode::SEE_OTHER,
                [
                    (header::LOCATION, "/".to_owned()),
                    (header::SET_COOKIE, auth::set_cookie(&token, st.secure)),
                ],
            )
                .into_response()
        }
        Err(Refused::Wait(wait)) => too_soon(wait),
        Err(Refused::WrongNameOrPassword) => {
            warn!(%ip, "admin panel: a failed sign-in as {name:?}");
            (
                StatusCode::UNAUTHORIZED,
                Html(html::sign_in(&server, Some("Wrong name or password."))),
            )
                .into_response()
        }
    }
}

pub(super) async fn sign_out(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Form(form): Form<CsrfOnly>,
) -> Result {
    admin.check_csrf(&form.csrf)?;
    st.auth.sign_out(&admin.token);
    info!(target: CHAT_LOG, who = admin.session.name.as_str(), "admin: signed out");
    Ok((
        StatusCode::SEE_OTHER,
        [
            (header::LOCATION, "/login".to_owned()),
            (header::SET_COOKIE, auth::clear_cookie(st.secure)),
        ],
    )
        .into_response())
}

pub(super) async fn dashboard(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Query(n): Query<Notice>,
) -> Result {
    page(&st, &admin, "Dashboard", &n, pages::dashboard)
}

pub(super) async fn players(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Query(n): Query<Notice>,
) -> Result {
    let session = admin.session.clone();
    page(&st, &admin, "Players", &n, |s| pages::players(s, &session))
}

pub(super) async fn bans(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Query(n): Query<Notice>,
) -> Result {
    let session = admin.session.clone();
    page(&st, &admin, "Bans", &n, |s| pages::bans(s, &session))
}

pub(super) async fn resources(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Query(n): Query<Notice>,
) -> Result {
    let session = admin.session.clone();
    page(&st, &admin, "Resources", &n, |s| {
        pages::resources(s, &session)
    })
}

pub(super) async fn console(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Query(n): Query<Notice>,
) -> Result {
    let session = admin.session.clone();
    page(&st, &admin, "Console", &n, |_| pages::console(&session))
}

pub(super) async fn chat(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Query(n): Query<Notice>,
) -> Result {
    page(&st, &admin, "Chat log", &n, |_| {
        pages::log_view("/events/chat", false)
    })
}

pub(super) async fn map(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Query(n): Query<Notice>,
) -> Result {
    page(&st, &admin, "Map", &n, pages::map)
}

pub(super) async fn settings(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Query(n): Query<Notice>,
) -> Result {
    let session = admin.session.clone();
    page(&st, &admin, "Settings", &n, |s| {
        pages::settings(s, &session)
    })
}

pub(super) async fn kick(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Form(f): Form<KickForm>,
) -> Result {
    admin.may_post(Area::Players, &f.csrf)?;
    let lines = ask(
        &st,
        &admin,
        Action::Kick {
            id: f.id,
            reason: clean(&f.reason),
        },
    )
    .await?;
    Ok(back("/players", &lines))
}

pub(super) async fn ban(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Form(f): Form<BanForm>,
) -> Result {
    admin.may_post(Area::Bans, &f.csrf)?;
    let action = Action::Ban {
        id: f.id,
        minutes: minutes(&f.minutes)?,
        reason: clean(&f.reason),
    };
    let lines = ask(&st, &admin, action).await?;
    Ok(back("/players", &lines))
}

pub(super) async fn ban_address(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Form(f): Form<AddressForm>,
) -> Result {
    admin.may_post(Area::Bans, &f.csrf)?;
    let ip = address(&f.ip)?;
    let action = Action::BanAddress {
        ip,
        minutes: minutes(&f.minutes)?,
        reason: clean(&f.reason),
    };
    let lines = ask(&st, &admin, action).await?;
    Ok(back("/bans", &lines))
}

pub(super) async fn lift(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Form(f): Form<AddressForm>,
) -> Result {
    admin.may_post(Area::Bans, &f.csrf)?;
    let ip = address(&f.ip)?;
    let lines = ask(&st, &admin, Action::Unban { ip }).await?;
    Ok(back("/bans", &lines))
}

pub(super) async fn resource(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Path(op): Path<String>,
    Form(f): Form<ResourceForm>,
) -> Result {
    admin.may_post(Area::Resources, &f.csrf)?;
    let op = match op.as_str() {
        "start" => ResourceOp::Start,
        "stop" => ResourceOp::Stop,
        "restart" => ResourceOp::Restart,
        _ => return Err(bad("the operation is start, stop or restart")),
    };
    let name = f.name.trim();
    if name.is_empty() || name.len() > 64 || name.contains(char::is_whitespace) {
        return Err(bad("a resource name is one word"));
    }
    let lines = ask(
        &st,
        &admin,
        Action::Resource {
            op,
            name: name.to_owned(),
        },
    )
    .await?;
    Ok(back("/resources", &lines))
}

pub(super) async fn command(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Form(f): Form<CommandForm>,
) -> Result {
    admin.may_post(Area::Console, &f.csrf)?;
    let line: String = f
        .line
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(1000)
        .collect();
    let lines = ask(&st, &admin, Action::Console(line)).await?;
    Ok(Json(serde_json::json!({ "lines": lines })).into_response())
}

pub(super) async fn set_restart(
    State(st): State<Arc<AppState>>,
    admin: Admin,
    Form(f): Form<RestartForm>,
) -> Result {
    admin.may_post(Area::Settings, &f.csrf)?;
    let at = f.at.trim();
    let daily = if at.is_empty() {
        None
    } else {
        Some(DailyTime::parse(at).map_err(|e| bad(format!("{at:?}: {e}")))?)
    };
    let lines = ask(&st, &admin, Action::SetRestart(daily)).await?;
    Ok(back("/settings", &lines))
}

fn slot(st: &AppState) -> Result<StreamSlot> {
    StreamSlot::take(&st.streams).ok_or_else(|| {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            "too many live views open\n",
        )
            .into_response()
    })
}

pub(super) async fn dashboard_events(State(st): State<Arc<AppState>>, admin: Admin) -> Result {
    admin.require(Area::Dashboard)?;
    let link = st.link.as_ref().ok_or_else(no_server)?;
    Ok(events::snapshots(link.snapshots.clone(), View::Dashboard, slot(&st)?).into_response())
}

pub(super) async fn map_events(State(st): State<Arc<AppState>>, admin: Admin) -> Result {
    admin.require(Area::Map)?;
    let link = st.link.as_ref().ok_or_else(no_server)?;
    Ok(events::snapshots(link.snapshots.clone(), View::Map, slot(&st)?).into_response())
}

pub(super) async fn log_events(State(st): State<Arc<AppState>>, admin: Admin) -> Result {
    admin.require(Area::Console)?;
    Ok(events::log(LogStream::Server, slot(&st)?).into_response())
}

pub(super) async fn chat_events(State(st): State<Arc<AppState>>, admin: Admin) -> Result {
    admin.require(Area::ChatLog)?;
    Ok(events::log(LogStream::Chat, slot(&st)?).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_one_short_line_and_minutes_a_range() {
        assert_eq!(clean(" spam\r\nkick 1 "), "spam  kick 1");
        assert_eq!(clean(&"x".repeat(500)).len(), MAX_REASON);
        assert_eq!(minutes("").ok(), Some(None));
        assert_eq!(minutes(" 30 ").ok(), Some(Some(30)));
        assert!(minutes("0").is_err() && minutes("-5").is_err() && minutes("soon").is_err());
        assert_eq!(encode("a b&c"), "a%20b%26c");
    }
}
