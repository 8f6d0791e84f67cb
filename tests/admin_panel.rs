//! The web admin panel over real HTTP (ADR 0100, ADR 0102): a harness server with the panel
//! on 127.0.0.1, every page and action driven as a browser would (form posts, the session
//! cookie, the CSRF token), signed in and not, as an owner and as a moderator, and the
//! sign-in limit. An action waits for the tick, so a request runs on a thread of its own
//! while the harness ticks. Then a real browser: headless Chromium over WebDriver signs in,
//! kicks, bans, restarts a resource, runs a console command and follows a walking player
//! on the map, saving screenshots under `target/tmp/admin-panel/` (skipped, saying why,
//! without `chromium` and `chromium-driver`; `.ci/run` installs them).

use std::io::{BufRead, BufReader};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use dlmp::admin::{AdminLink, HttpServer, HttpSettings};
use dlmp::config::Config;
use dlmp::harness::{ClientId, Harness, TempScripts};
use dlmp::metrics::ServerMetrics;
use dlmp::protocol::connection::handshake::{
    ConnectRefused, LeaveReason, RefuseReason, ServerDisconnect, ServerHello,
};
use dlmp::protocol::geometry::Vec3;
use dlmp_ops::accounts::{AdminRole, AdminUser};
use dlmp_ops::password::hash_password;
use ureq::Agent;

const OWNER: (&str, &str) = ("ann", "correct horse");
const MODERATOR: (&str, &str) = ("mo", "battery staple");

/// The two accounts, hashed once (argon2 is slow on purpose).
fn users() -> Vec<AdminUser> {
    static USERS: OnceLock<Vec<AdminUser>> = OnceLock::new();
    USERS
        .get_or_init(|| {
            let user = |(name, password): (&str, &str), role| AdminUser {
                name: name.to_owned(),
                password_hash: hash_password(password).expect("a hash"),
                role,
            };
            vec![
                user(OWNER, AdminRole::Owner),
                user(MODERATOR, AdminRole::Moderator),
            ]
        })
        .clone()
}

/// The config of a server with the panel on and the two accounts.
fn panel_config(base: Config) -> Config {
    Config {
        admin: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
        admin_users: users(),
        ..base
    }
}

/// The panel's HTTP server of harness `h`, on a free port of 127.0.0.1.
struct Panel {
    base: String,
    agent: Agent,
    _server: HttpServer,
}

/// An answer: status, the headers a test reads, the body.
#[derive(Debug)]
struct Reply {
    status: u16,
    location: Option<String>,
    set_cookie: Option<String>,
    content_type: String,
    retry_after: Option<u64>,
    body: String,
}

/// A signed-in browser: its cookie and the CSRF token its pages carry.
#[derive(Debug, Clone)]
struct Session {
    cookie: String,
    csrf: String,
}

impl Panel {
    fn start(h: &mut Harness) -> Panel {
        Panel::start_with(h, None)
    }

    /// The panel with `tls` (a certificate and key file) over HTTPS, its agent trusting
    /// `ca` (PEM).
    fn start_with(
        h: &mut Harness,
        tls: Option<(std::path::PathBuf, std::path::PathBuf, String)>,
    ) -> Panel {
        let published = h.world().resource::<AdminLink>().0.snapshot();
        assert!(published.version > 0, "the tick published a snapshot");
        let link = h
            .world_mut()
            .remove_resource::<AdminLink>()
            .expect("the assembly adds the panel with `admin`")
            .0;
        let settings = HttpSettings {
            admin: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
            users: users(),
            tls: tls
                .as_ref()
                .map(|(cert, key, _)| (cert.clone(), key.clone())),
            ..HttpSettings::default()
        };
        let registry = Arc::new(ServerMetrics::default()).registry(h.shared_stats());
        let server = dlmp::admin::start(settings, Some(link), Some(registry)).expect("binds");
        let addr = server.admin_addr.expect("the panel's address");
        let mut config = Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(Duration::from_secs(20)));
        if let Some((_, _, ca)) = &tls {
            let certs: Vec<_> = ureq::tls::parse_pem(ca.as_bytes())
                .filter_map(|item| match item {
                    Ok(ureq::tls::PemItem::Certificate(c)) => Some(c),
                    _ => None,
                })
                .collect();
            config = config.tls_config(
                ureq::tls::TlsConfig::builder()
                    .root_certs(ureq::tls::RootCerts::new_with_certs(&certs))
                    .build(),
            );
        }
        Panel {
            base: format!(
                "{}://localhost:{}",
                if tls.is_some() { "https" } else { "http" },
                addr.port()
            ),
            agent: config.build().into(),
            _server: server,
        }
    }

    fn reply(res: ureq::http::Response<ureq::Body>) -> Reply {
        let header = |name: &str| {
            res.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let status = res.status().as_u16();
        let location = header("location");
        let set_cookie = header("set-cookie");
        let content_type = header("content-type").unwrap_or_default();
        let retry_after = header("retry-after").and_then(|v| v.parse().ok());
        let body = res.into_body().read_to_string().expect("a text body");
        Reply {
            status,
            location,
            set_cookie,
            content_type,
            retry_after,
            body,
        }
    }

    fn get(&self, path: &str, session: Option<&Session>) -> Reply {
        let mut req = self.agent.get(format!("{}{path}", self.base));
        if let Some(s) = session {
            req = req.header("Cookie", &s.cookie);
        }
        Self::reply(req.call().expect("an answer"))
    }

    fn post(&self, path: &str, session: Option<&Session>, form: &[(&str, &str)]) -> Reply {
        let mut req = self.agent.post(format!("{}{path}", self.base));
        if let Some(s) = session {
            req = req.header("Cookie", &s.cookie);
        }
        Self::reply(req.send_form(form.iter().copied()).expect("an answer"))
    }

    fn sign_in_as(&self, (name, password): (&str, &str)) -> Reply {
        self.post("/login", None, &[("name", name), ("password", password)])
    }

    /// Signs in and reads the CSRF token off the dashboard.
    fn session(&self, account: (&str, &str)) -> Session {
        let reply = self.sign_in_as(account);
        assert_eq!(reply.status, 303, "{reply:?}");
        let set = reply.set_cookie.expect("a session cookie");
        let cookie = set.split(';').next().expect("name=value").to_owned();
        let mut session = Session {
            cookie,
            csrf: String::new(),
        };
        let page = self.get("/", Some(&session));
        assert_eq!(page.status, 200, "{page:?}");
        session.csrf = between(&page.body, "<meta name=\"csrf\" content=\"", "\"").to_owned();
        assert_eq!(session.csrf.len(), 64);
        session
    }
}

/// The text between `start` and the next `end`.
fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("no {start} in {text}"))
        + start.len();
    let len = text[from..].find(end).expect("the end");
    &text[from..from + len]
}

/// Runs `request` on a thread of its own while the harness ticks, as the server ticks while
/// an admin waits for an action's answer.
fn during<R: Send + 'static>(h: &mut Harness, request: impl FnOnce() -> R + Send + 'static) -> R {
    let job = std::thread::spawn(request);
    while !job.is_finished() {
        h.step();
        std::thread::sleep(Duration::from_millis(1));
    }
    job.join().expect("the request thread")
}

fn local() -> IpAddr {
    IpAddr::from([127, 0, 0, 1])
}

/// A client that completes the handshake as `name` from 127.0.0.1, spawned at `at`.
fn player_at(h: &mut Harness, name: &str, at: Vec3) -> ClientId {
    let c = h.add_client_at(local());
    h.join_as(c, name);
    h.spawn_at(c, at);
    c
}

/// A harness with the panel, a second of ticks run so the tick published.
fn harness() -> Harness {
    let mut h = Harness::with_config(panel_config(Harness::config()));
    h.advance(Duration::from_secs(1));
    h
}

/// Posting from a thread needs an owned panel; the test keeps the server alive.
fn post_during(
    h: &mut Harness,
    panel: &Panel,
    path: &'static str,
    session: &Session,
    form: Vec<(&'static str, String)>,
) -> Reply {
    let agent = panel.agent.clone();
    let url = format!("{}{path}", panel.base);
    let cookie = session.cookie.clone();
    during(h, move || {
        let res = agent
            .post(url)
            .header("Cookie", &cookie)
            .send_form(form.iter().map(|(k, v)| (*k, v.as_str())))
            .expect("an answer");
        Panel::reply(res)
    })
}

const PAGES: [&str; 8] = [
    "/",
    "/players",
    "/bans",
    "/map",
    "/chat",
    "/resources",
    "/console",
    "/settings",
];

const ACTIONS: [&str; 9] = [
    "/logout",
    "/players/kick",
    "/players/ban",
    "/bans/lift",
    "/bans/add",
    "/resources/restart",
    "/console",
    "/settings/restart",
    "/resources/stop",
];

#[test]
fn the_panel_is_off_by_default_and_refuses_to_start_without_an_account() {
    let h = Harness::new();
    assert!(
        h.world().get_resource::<AdminLink>().is_none(),
        "no `admin`, no panel"
    );
    let no_account = Config {
        admin: Some(SocketAddr::from(([127, 0, 0, 1], 8080))),
        ..Config::default()
    };
    let e = no_account
        .validate()
        .expect_err("the panel needs an account");
    assert!(e.0.contains("[[admin_users]]"), "{e}");
    assert!(e.0.contains("admin = \"127.0.0.1:8080\""), "{e}");
}

#[test]
fn without_a_session_pages_lead_to_sign_in_actions_are_refused_and_metrics_are_open() {
    let mut h = harness();
    let panel = Panel::start(&mut h);
    for page in PAGES {
        let r = panel.get(page, None);
        assert_eq!(r.status, 303, "{page}: {r:?}");
        assert_eq!(r.location.as_deref(), Some("/login"), "{page}");
    }
    for action in ACTIONS {
        let r = panel.post(action, None, &[("csrf", "x"), ("id", "0"), ("name", "gm")]);
        assert_eq!(r.status, 403, "{action}: {r:?}");
    }
    let forged = Session {
        cookie: format!("dlmp_admin={}", "0".repeat(64)),
        csrf: String::new(),
    };
    assert_eq!(panel.get("/players", Some(&forged)).status, 303);

    let login = panel.get("/login", None);
    assert_eq!(login.status, 200);
    assert!(login.content_type.starts_with("text/html"), "{login:?}");
    for field in [
        "<form method=\"post\" action=\"/login\"",
        "name=\"name\"",
        "name=\"password\" type=\"password\"",
    ] {
        assert!(login.body.contains(field), "{field}: {}", login.body);
    }
    let metrics = panel.get("/metrics", None);
    assert_eq!(metrics.status, 200, "Prometheus scrapes without signing in");
    assert!(
        metrics.body.contains("dlmp_datagrams_received_total"),
        "{metrics:?}"
    );
    let style = panel.get("/assets/style.css", None);
    assert_eq!(style.status, 200);
    assert!(style.content_type.starts_with("text/css"));
    let script = panel.get("/assets/app.js", None);
    assert!(
        script.body.contains("EventSource"),
        "the live parts are compiled in"
    );
}

#[test]
fn signing_in_sets_a_strict_cookie_and_signing_out_ends_the_session() {
    let mut h = harness();
    let panel = Panel::start(&mut h);
    let reply = panel.sign_in_as(OWNER);
    assert_eq!(reply.status, 303);
    assert_eq!(reply.location.as_deref(), Some("/"));
    let cookie = reply.set_cookie.expect("a cookie");
    for part in [
        "dlmp_admin=",
        "HttpOnly",
        "SameSite=Strict",
        "Path=/",
        "Max-Age=",
    ] {
        assert!(cookie.contains(part), "{part}: {cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain HTTP on loopback");

    let s = panel.session(OWNER);
    let wrong = panel.post("/logout", Some(&s), &[("csrf", "nope")]);
    assert_eq!(wrong.status, 403, "signing out too needs the token");
    let out = panel.post("/logout", Some(&s), &[("csrf", &s.csrf)]);
    assert_eq!(out.status, 303);
    assert_eq!(out.location.as_deref(), Some("/login"));
    assert!(out.set_cookie.expect("cleared").contains("Max-Age=0"));
    assert_eq!(
        panel.get("/", Some(&s)).status,
        303,
        "the old cookie is no session any more"
    );
}

#[test]
fn failed_sign_ins_make_the_address_wait_longer_each_time() {
    let mut h = harness();
    let panel = Panel::start(&mut h);
    let wrong = panel.sign_in_as((OWNER.0, "guess"));
    assert_eq!(wrong.status, 401);
    assert!(wrong.body.contains("Wrong name or password."), "{wrong:?}");
    assert!(wrong.set_cookie.is_none());
    let unknown = panel.sign_in_as(("nobody", "guess"));
    assert_eq!(
        unknown.status, 429,
        "right after a failure even a try of another name waits"
    );
    let too_soon = panel.sign_in_as(OWNER);
    assert_eq!(too_soon.status, 429, "the right password too must wait");
    assert_eq!(too_soon.retry_after, Some(1));
    assert!(too_soon.set_cookie.is_none());

    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(panel.sign_in_as((OWNER.0, "guess again")).status, 401);
    let second = panel.sign_in_as(OWNER);
    assert_eq!(second.status, 429);
    assert_eq!(second.retry_after, Some(2), "the delay doubles");

    std::thread::sleep(Duration::from_millis(2100));
    let s = panel.session(OWNER);
    assert!(
        !s.cookie.is_empty(),
        "after the delay the right password signs in"
    );
}

#[test]
fn every_page_shows_the_server_as_the_tick_published_it() {
    let s = TempScripts::new("admin_pages");
    s.resource_with("gm", "", "");
    let mut h = Harness::with_config(panel_config(s.config()));
    let carl = player_at(&mut h, "Carl_Johnson", Vec3::new(1200.0, -800.0, 15.0));
    h.advance(Duration::from_secs(1));
    let id = h.player_id(carl).0;
    let panel = Panel::start(&mut h);
    let owner = panel.session(OWNER);

    for page in PAGES {
        let r = panel.get(page, Some(&owner));
        assert_eq!(r.status, 200, "{page}: {r:?}");
        assert!(r.body.contains("ann (owner)"), "{page}");
        assert!(r.body.contains("action=\"/logout\""), "{page}");
    }
    let dashboard = panel.get("/", Some(&owner)).body;
    assert!(dashboard.contains("<b id=\"players\">1</b>"), "{dashboard}");
    assert!(dashboard.contains("<svg id=\"plot\""), "{dashboard}");

    let players = panel.get("/players", Some(&owner)).body;
    let row = between(&players, &format!("<tr id=\"player-{id}\""), "</tr>");
    for cell in [
        "Carl_Johnson",
        "127.0.0.1:",
        "alive",
        "1200.0 -800.0 15.0",
        "action=\"/players/kick\"",
        "action=\"/players/ban\"",
        &format!("name=\"csrf\" value=\"{}\"", owner.csrf),
    ] {
        assert!(row.contains(cell), "{cell}: {row}");
    }
    let resources = panel.get("/resources", Some(&owner)).body;
    assert!(
        between(&resources, "<tr id=\"resource-gm\">", "</tr>").contains("running"),
        "{resources}"
    );
    let map = panel.get("/map", Some(&owner)).body;
    assert!(
        map.contains("viewBox=\"-6000 -6000 12000 12000\""),
        "the 12 km world to scale: {map}"
    );
    assert!(
        panel
            .get("/console", Some(&owner))
            .body
            .contains("id=\"command\"")
    );
}

#[test]
fn a_kick_from_the_panel_ends_the_session_with_the_reason() {
    let mut h = harness();
    let carl = player_at(&mut h, "Carl_Johnson", Vec3::new(0.0, 0.0, 3.0));
    let id = h.player_id(carl).0;
    let panel = Panel::start(&mut h);
    let s = panel.session(OWNER);
    let reply = post_during(
        &mut h,
        &panel,
        "/players/kick",
        &s,
        vec![
            ("csrf", s.csrf.clone()),
            ("id", id.to_string()),
            ("reason", "spamming\r\nthe chat".to_owned()),
        ],
    );
    assert_eq!(reply.status, 303, "{reply:?}");
    let back = reply.location.expect("back to the players");
    assert!(
        back.starts_with("/players?msg=kicked%20Carl_Johnson"),
        "{back}"
    );
    h.advance(Duration::from_millis(200));
    assert!(
        h.chat_lines(carl)
            .contains(&"You were kicked: spamming  the chat".to_owned()),
        "{:?}",
        h.chat_lines(carl)
    );
    let bye = h.packets::<ServerDisconnect>(carl);
    assert!(!bye.is_empty() && bye.iter().all(|d| d.reason == LeaveReason::Kicked));
}

#[test]
fn a_wrong_or_missing_csrf_token_changes_nothing() {
    let mut h = harness();
    let carl = player_at(&mut h, "Carl_Johnson", Vec3::new(0.0, 0.0, 3.0));
    let id = h.player_id(carl).0.to_string();
    let panel = Panel::start(&mut h);
    let s = panel.session(OWNER);
    let other = panel.session(OWNER);
    for csrf in [String::new(), "0".repeat(64), other.csrf.clone()] {
        let reply = post_during(
            &mut h,
            &panel,
            "/players/kick",
            &s,
            vec![("csrf", csrf), ("id", id.clone())],
        );
        assert_eq!(reply.status, 403, "{reply:?}");
        let reply = post_during(
            &mut h,
            &panel,
            "/players/ban",
            &s,
            vec![("csrf", String::new()), ("id", id.clone())],
        );
        assert_eq!(reply.status, 403, "{reply:?}");
    }
    h.advance(Duration::from_millis(200));
    assert!(h.packets::<ServerDisconnect>(carl).is_empty());
    assert!(panel.get("/bans", Some(&s)).body.contains("No bans."));
}

#[test]
fn a_ban_from_the_panel_refuses_the_address_until_it_is_lifted() {
    let mut h = harness();
    let carl = player_at(&mut h, "Carl_Johnson", Vec3::new(0.0, 0.0, 3.0));
    let id = h.player_id(carl).0;
    let panel = Panel::start(&mut h);
    let s = panel.session(MODERATOR);
    let reply = post_during(
        &mut h,
        &panel,
        "/players/ban",
        &s,
        vec![
            ("csrf", s.csrf.clone()),
            ("id", id.to_string()),
            ("minutes", "30".to_owned()),
            ("reason", "<script>alert(1)</script>".to_owned()),
        ],
    );
    assert_eq!(reply.status, 303, "{reply:?}");
    h.advance(Duration::from_millis(200));
    assert_eq!(
        h.packets::<ServerDisconnect>(carl)[0].reason,
        LeaveReason::Kicked
    );
    let c = h.add_client_at(local());
    let hello = h.client_hello(c, "Carl_Again");
    h.send(c, hello);
    h.step();
    assert_eq!(
        h.packets::<ConnectRefused>(c).first().map(|r| r.reason),
        Some(RefuseReason::Banned)
    );

    h.advance(Duration::from_secs(1));
    let bans = panel.get("/bans", Some(&s)).body;
    let row = between(&bans, "<tr data-ip=\"127.0.0.1\">", "</tr>");
    for cell in [
        "Carl_Johnson",
        "<td>mo</td>",
        "&lt;script&gt;alert(1)&lt;/script&gt;",
    ] {
        assert!(row.contains(cell), "{cell}: {row}");
    }
    assert!(!bans.contains("<script>alert"), "the reason is escaped");

    let lifted = post_during(
        &mut h,
        &panel,
        "/bans/lift",
        &s,
        vec![("csrf", s.csrf.clone()), ("ip", "127.0.0.1".to_owned())],
    );
    assert_eq!(lifted.status, 303, "{lifted:?}");
    assert!(panel.get("/bans", Some(&s)).body.contains("No bans."));
    let c = h.add_client_at(local());
    let hello = h.client_hello(c, "Carl_Again");
    h.send(c, hello);
    h.step();
    assert_eq!(h.packets::<ServerHello>(c).len(), 1, "let in again");
}

#[test]
fn an_address_ban_from_the_bans_page_checks_its_fields() {
    let mut h = harness();
    let panel = Panel::start(&mut h);
    let s = panel.session(OWNER);
    let bad = post_during(
        &mut h,
        &panel,
        "/bans/add",
        &s,
        vec![("csrf", s.csrf.clone()), ("ip", "10.0.0.300".to_owned())],
    );
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("not an IPv4 or IPv6 address"), "{bad:?}");
    let bad = post_during(
        &mut h,
        &panel,
        "/bans/add",
        &s,
        vec![
            ("csrf", s.csrf.clone()),
            ("ip", "10.0.0.3".to_owned()),
            ("minutes", "soon".to_owned()),
        ],
    );
    assert_eq!(bad.status, 400);
    let ok = post_during(
        &mut h,
        &panel,
        "/bans/add",
        &s,
        vec![
            ("csrf", s.csrf.clone()),
            ("ip", "10.0.0.3".to_owned()),
            ("reason", "ban evasion".to_owned()),
        ],
    );
    assert_eq!(ok.status, 303, "{ok:?}");
    let bans = panel.get("/bans", Some(&s)).body;
    let row = between(&bans, "<tr data-ip=\"10.0.0.3\">", "</tr>");
    assert!(
        row.contains("permanent") && row.contains("ban evasion"),
        "{row}"
    );
}

#[test]
fn a_moderator_may_not_use_the_console_resources_or_settings() {
    let s = TempScripts::new("admin_moderator");
    s.resource_with("gm", "", "");
    let mut h = Harness::with_config(panel_config(s.config()));
    h.advance(Duration::from_secs(1));
    let panel = Panel::start(&mut h);
    let mo = panel.session(MODERATOR);
    for page in ["/console", "/resources", "/settings", "/events/log"] {
        let r = panel.get(page, Some(&mo));
        assert_eq!(r.status, 403, "{page}: {r:?}");
    }
    for (action, form) in [
        (
            "/console",
            vec![("csrf", mo.csrf.clone()), ("line", "stop gm".to_owned())],
        ),
        (
            "/resources/stop",
            vec![("csrf", mo.csrf.clone()), ("name", "gm".to_owned())],
        ),
        (
            "/settings/restart",
            vec![("csrf", mo.csrf.clone()), ("at", "04:00".to_owned())],
        ),
    ] {
        let r = post_during(&mut h, &panel, action, &mo, form);
        assert_eq!(r.status, 403, "{action}: {r:?}");
    }
    assert_eq!(
        h.script_host().running().collect::<Vec<_>>(),
        ["gm"],
        "nothing was stopped"
    );
    let dashboard = panel.get("/", Some(&mo)).body;
    assert!(dashboard.contains("mo (moderator)"));
    for hidden in [
        "href=\"/console\"",
        "href=\"/resources\"",
        "href=\"/settings\"",
    ] {
        assert!(!dashboard.contains(hidden), "{hidden} is not offered");
    }
    for page in ["/players", "/bans", "/map", "/chat"] {
        assert_eq!(panel.get(page, Some(&mo)).status, 200, "{page}");
    }
}

#[test]
fn resources_stop_start_and_restart_from_the_panel() {
    let s = TempScripts::new("admin_resources");
    s.resource_with(
        "gm",
        "",
        r#"dlmp.on("player_connect", function(p) dlmp.send_chat("hi " .. p:name(), nil, {p}) end)"#,
    );
    let mut h = Harness::with_config(panel_config(s.config()));
    h.advance(Duration::from_secs(1));
    let panel = Panel::start(&mut h);
    let owner = panel.session(OWNER);
    let act = |h: &mut Harness, op: &'static str| {
        let path = match op {
            "stop" => "/resources/stop",
            "start" => "/resources/start",
            _ => "/resources/restart",
        };
        let r = post_during(
            h,
            &panel,
            path,
            &owner,
            vec![("csrf", owner.csrf.clone()), ("name", "gm".to_owned())],
        );
        assert_eq!(r.status, 303, "{op}: {r:?}");
        r.location.expect("back to the resources")
    };
    assert_eq!(act(&mut h, "stop"), "/resources?msg=stopped%20gm");
    assert!(h.script_host().running().next().is_none());
    let page = panel.get("/resources", Some(&owner)).body;
    assert!(between(&page, "<tr id=\"resource-gm\">", "</tr>").contains("stopped"));
    assert_eq!(act(&mut h, "start"), "/resources?msg=started%20gm");
    s.resource_with(
        "gm",
        "",
        r#"dlmp.on("player_connect", function(p) dlmp.send_chat("hello " .. p:name(), nil, {p}) end)
        error("broken on purpose")"#,
    );
    let answer = act(&mut h, "restart");
    assert!(answer.contains("broken%20on%20purpose"), "{answer}");
    h.advance(Duration::from_secs(1));
    let page = panel.get("/resources", Some(&owner)).body;
    let row = between(&page, "<tr id=\"resource-gm\">", "</tr>");
    assert!(
        row.contains("broken on purpose"),
        "its last error is shown: {row}"
    );
    let bad = post_during(
        &mut h,
        &panel,
        "/resources/explode",
        &owner,
        vec![("csrf", owner.csrf.clone()), ("name", "gm".to_owned())],
    );
    assert_eq!(bad.status, 400);
}

#[test]
fn a_console_command_runs_as_on_stdin_and_answers() {
    let mut h = harness();
    let carl = player_at(&mut h, "Carl_Johnson", Vec3::new(0.0, 0.0, 3.0));
    let panel = Panel::start(&mut h);
    let owner = panel.session(OWNER);
    let r = post_during(
        &mut h,
        &panel,
        "/console",
        &owner,
        vec![("csrf", owner.csrf.clone()), ("line", "players".to_owned())],
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.content_type.starts_with("application/json"), "{r:?}");
    let json: serde_json::Value = serde_json::from_str(&r.body).expect("JSON");
    let lines: Vec<&str> = json["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .filter_map(|l| l.as_str())
        .collect();
    assert_eq!(lines[0], "1 player:");
    assert!(
        lines[1..]
            .iter()
            .any(|l| l.contains("Carl_Johnson  127.0.0.1:")),
        "{lines:?}"
    );

    let r = post_during(
        &mut h,
        &panel,
        "/console",
        &owner,
        vec![
            ("csrf", owner.csrf.clone()),
            ("line", "say hello from the panel".to_owned()),
        ],
    );
    assert_eq!(r.status, 200);
    h.step();
    assert!(
        h.chat_lines(carl)
            .iter()
            .any(|l| l.contains("hello from the panel")),
        "{:?}",
        h.chat_lines(carl)
    );
}

#[test]
fn the_daily_restart_is_set_from_the_settings_page() {
    let mut h = harness();
    let panel = Panel::start(&mut h);
    let owner = panel.session(OWNER);
    let bad = post_during(
        &mut h,
        &panel,
        "/settings/restart",
        &owner,
        vec![("csrf", owner.csrf.clone()), ("at", "25:00".to_owned())],
    );
    assert_eq!(bad.status, 400);
    let ok = post_during(
        &mut h,
        &panel,
        "/settings/restart",
        &owner,
        vec![("csrf", owner.csrf.clone()), ("at", "04:30".to_owned())],
    );
    assert_eq!(ok.status, 303, "{ok:?}");
    h.advance(Duration::from_secs(1));
    let page = panel.get("/settings", Some(&owner)).body;
    assert!(page.contains("every day at 04:30"), "{page}");
    // The harness's clock starts at 2025-12-01 00:00 UTC.
    assert!(page.contains("next at 2025-12-01 04:30 UTC"), "{page}");
}

/// The first event of a server-sent event stream: its name and data.
fn first_event(panel: &Panel, path: &str, session: &Session) -> (String, String) {
    let res = panel
        .agent
        .get(format!("{}{path}", panel.base))
        .header("Cookie", &session.cookie)
        .call()
        .expect("a stream");
    assert_eq!(res.status().as_u16(), 200);
    let kind = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(kind.starts_with("text/event-stream"), "{kind}");
    let mut reader = BufReader::new(res.into_body().into_reader());
    let (mut event, mut data) = (String::new(), String::new());
    loop {
        let mut line = String::new();
        assert!(
            reader.read_line(&mut line).expect("a line") > 0,
            "the stream ended"
        );
        let line = line.trim_end();
        if line.is_empty() && !data.is_empty() {
            return (event, data);
        }
        if let Some(e) = line
            .strip_prefix("event: ")
            .or_else(|| line.strip_prefix("event:"))
        {
            event = e.to_owned();
        }
        if let Some(d) = line
            .strip_prefix("data: ")
            .or_else(|| line.strip_prefix("data:"))
        {
            data.push_str(d);
        }
    }
}

#[test]
fn the_map_stream_shows_each_player_where_it_is() {
    let mut h = harness();
    let carl = player_at(&mut h, "Carl_Johnson", Vec3::new(1500.0, 2500.0, 10.0));
    let sweet = player_at(&mut h, "Sweet", Vec3::new(-300.0, 40.0, 5.0));
    h.set_scope(sweet, Some(7), None);
    h.advance(Duration::from_secs(1));
    let panel = Panel::start(&mut h);
    let mo = panel.session(MODERATOR);
    let (event, data) = first_event(&panel, "/events/map", &mo);
    assert_eq!(event, "snapshot");
    let json: serde_json::Value = serde_json::from_str(&data).expect("JSON");
    let players = json["players"].as_array().expect("players");
    let find = |id: u32| {
        players
            .iter()
            .find(|p| p["id"] == id)
            .unwrap_or_else(|| panic!("player {id} in {data}"))
    };
    let c = find(h.player_id(carl).0);
    assert_eq!(
        (c["x"].as_f64(), c["y"].as_f64()),
        (Some(1500.0), Some(2500.0))
    );
    assert_eq!(c["name"], "Carl_Johnson");
    assert_eq!(c["world"], 0);
    assert_eq!(find(h.player_id(sweet).0)["world"], 7);

    let owner = panel.session(OWNER);
    let (event, data) = first_event(&panel, "/events/dashboard", &owner);
    assert_eq!(event, "snapshot");
    let json: serde_json::Value = serde_json::from_str(&data).expect("JSON");
    assert_eq!(json["players"], 2);
    assert!(
        !json["history"].as_array().expect("history").is_empty(),
        "a second of tick times"
    );
}

#[path = "support/webdriver.rs"]
mod webdriver;

#[path = "support/https.rs"]
mod https;

#[test]
fn with_a_certificate_the_panel_speaks_https_and_its_cookie_is_secure() {
    let ca = https::TestCa::new("dlmp panel CA");
    let (cert, key) = ca.certificate();
    let s = TempScripts::new("admin_tls");
    let (cert_file, key_file) = (s.path().join("panel.crt"), s.path().join("panel.key"));
    std::fs::write(&cert_file, cert).expect("the certificate file");
    std::fs::write(&key_file, key).expect("the key file");
    let mut h = harness();
    let panel = Panel::start_with(&mut h, Some((cert_file, key_file, ca.pem.clone())));
    assert!(panel.base.starts_with("https://"), "{}", panel.base);
    let page = panel.get("/login", None);
    assert_eq!(page.status, 200, "{page:?}");
    assert!(
        page.body
            .contains("<form method=\"post\" action=\"/login\"")
    );
    let reply = panel.sign_in_as(OWNER);
    assert_eq!(reply.status, 303, "{reply:?}");
    let cookie = reply.set_cookie.expect("a session cookie");
    assert!(cookie.contains("; Secure"), "{cookie}");
    let plain = panel
        .agent
        .get(panel.base.replace("https://", "http://") + "/login")
        .call();
    assert!(
        plain.map_or(true, |r| r.status() != 200),
        "no page in plain HTTP"
    );
}

/// Where the moving player of the browser test is at step `k` of its walk: east along
/// y = -2000, 100 m a step.
fn walk(k: u32) -> Vec3 {
    Vec3::new(1000.0 + 100.0 * k as f32, -2000.0, 10.0)
}

/// The mark of player `id` on the map page as the browser draws it: the position it
/// carries, its place inside the drawn 12 km square (0..1 from the west and from the
/// north edge), its hover text; `null` before the first snapshot drew it.
const MARK: &str = r##"
    const g = document.getElementById("player-mark-" + arguments[0]);
    if (!g) return null;
    const c = g.querySelector("circle").getBoundingClientRect();
    const ground = document.querySelector("#map rect.ground").getBoundingClientRect();
    return {
        x: Number(g.dataset.x), y: Number(g.dataset.y),
        fx: (c.x + c.width / 2 - ground.x) / ground.width,
        fy: (c.y + c.height / 2 - ground.y) / ground.height,
        half: Number(document.getElementById("map").dataset.half),
        title: g.querySelector("title").textContent,
    };
"##;

/// Checks that a mark read by [`MARK`] is drawn where its player is and that the player
/// was there (a point of [`walk`]); its x.
fn mark_on_the_walk(mark: &serde_json::Value, name_and_id: &str) -> f64 {
    let (x, y, half) = (
        mark["x"].as_f64().expect("x"),
        mark["y"].as_f64().expect("y"),
        mark["half"].as_f64().expect("half"),
    );
    assert_eq!(half, 6000.0, "the 12 km world: {mark}");
    let k = ((x - 1000.0) / 100.0).round();
    assert!(
        y == -2000.0 && k >= 0.0 && (x - f64::from(walk(k as u32).x)).abs() < 0.01,
        "a point of the walk: {mark}"
    );
    let (fx, fy) = (
        mark["fx"].as_f64().expect("fx"),
        mark["fy"].as_f64().expect("fy"),
    );
    // Half a grid line's width of 12 km: the mark is drawn to scale, north up.
    assert!((fx - (x + half) / (2.0 * half)).abs() < 0.003, "{mark}");
    assert!((fy - (half - y) / (2.0 * half)).abs() < 0.003, "{mark}");
    assert_eq!(mark["title"], name_and_id, "the name on hover");
    x
}

/// What the browser test works on: the panel, the accounts and the players' ids.
struct BrowserCase {
    base: String,
    walker: u32,
    kicked: u32,
    banned: u32,
}

/// The browser's part of the test: every step as an admin does it, by typing and clicking.
fn drive_the_panel(browser: &webdriver::Browser, case: &BrowserCase) {
    let shots = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("admin-panel");
    let base = &case.base;

    browser.go(&format!("{base}/"));
    browser.wait_for("the sign-in page", || {
        browser.url().ends_with("/login").then_some(())
    });
    browser.type_into("#signin input[name=name]", OWNER.0);
    browser.type_into("#signin input[name=password]", OWNER.1);
    browser.click("#signin button");
    browser.element("#health");
    browser.wait_for("the dashboard's live numbers", || {
        (browser.text("#p99") != "0.00" || browser.text("#uptime") != "0").then_some(())
    });
    browser.screenshot(&shots.join("dashboard.png"));

    browser.go(&format!("{base}/players"));
    let kicked = format!("#player-{} form.kick", case.kicked);
    browser.type_into(&format!("{kicked} input[name=reason]"), "afk in the road");
    browser.click(&format!("{kicked} button"));
    browser.wait_for("the kick's answer", || {
        browser.url().contains("/players?msg=").then_some(())
    });

    // A fresh players page, loaded to the end before the next form is filled (the kick's
    // answer page may still be loading when its address shows).
    browser.go(&format!("{base}/players"));
    let banned = format!("#player-{} form.ban", case.banned);
    browser.type_into(&format!("{banned} input[name=reason]"), "speed hack");
    browser.type_into(&format!("{banned} input[name=minutes]"), "60");
    browser.click(&format!("{banned} button"));
    browser.wait_for("the ban on the bans page", || {
        browser.go(&format!("{base}/bans"));
        browser
            .find("tr[data-ip=\"10.0.0.3\"]")
            .map(|_| browser.text("tr[data-ip=\"10.0.0.3\"]"))
    });
    let row = browser.text("tr[data-ip=\"10.0.0.3\"]");
    assert!(
        row.contains("Big_Smoke") && row.contains("speed hack"),
        "{row}"
    );

    browser.go(&format!("{base}/resources"));
    browser.click("#resource-gm form[action=\"/resources/restart\"] button");
    browser.wait_for("the restart's answer", || {
        browser
            .url()
            .contains("/resources?msg=restarted%20gm")
            .then_some(())
    });
    assert!(browser.text("#resource-gm .state").contains("running"));

    browser.go(&format!("{base}/console"));
    browser.type_into("#line", "players");
    browser.click("#command button");
    let answer = browser.wait_for("the command's answer", || {
        let text = browser.text("#answer");
        text.contains("Carl_Johnson").then_some(text)
    });
    assert!(answer.starts_with("> players\n1 player:"), "{answer}");

    browser.go(&format!("{base}/map"));
    let id = case.walker;
    let title = format!("Carl_Johnson ({id})");
    let first = browser.wait_for("the walker's mark", || {
        let m = browser.run(MARK, serde_json::json!([id]));
        (!m.is_null()).then_some(m)
    });
    let x0 = mark_on_the_walk(&first, &title);
    let later = browser.wait_for("the mark to move", || {
        let m = browser.run(MARK, serde_json::json!([id]));
        (m["x"].as_f64().is_some_and(|x| x > x0)).then_some(m)
    });
    mark_on_the_walk(&later, &title);
    browser.screenshot(&shots.join("map.png"));
    browser.run(
        &format!(
            "document.getElementById(\"player-mark-{id}\")\
             .dispatchEvent(new MouseEvent(\"click\", {{bubbles: true}}));"
        ),
        serde_json::json!([]),
    );
    browser.wait_for("the player's row after a click on its mark", || {
        browser
            .url()
            .ends_with(&format!("/players#player-{id}"))
            .then_some(())
    });
}

#[test]
fn a_browser_signs_in_kicks_bans_restarts_runs_a_command_and_follows_a_player_on_the_map() {
    let Some(browser) = webdriver::Browser::start("the admin panel in a browser") else {
        return;
    };
    let s = TempScripts::new("admin_browser");
    s.resource_with("gm", "", r#"dlmp.on("player_connect", function(p) end)"#);
    let mut h = Harness::with_config(panel_config(s.config()));
    let join = |h: &mut Harness, ip: [u8; 4], name: &str, at: Vec3| {
        let c = h.add_client_at(IpAddr::from(ip));
        h.join_as(c, name);
        h.spawn(c, at);
        c
    };
    let carl = join(&mut h, [127, 0, 0, 1], "Carl_Johnson", walk(0));
    let kenny = join(&mut h, [10, 0, 0, 2], "Kenny", Vec3::new(0.0, 0.0, 3.0));
    let smoke = join(
        &mut h,
        [10, 0, 0, 3],
        "Big_Smoke",
        Vec3::new(20.0, 0.0, 3.0),
    );
    h.advance(Duration::from_secs(1));
    let panel = Panel::start(&mut h);
    let case = BrowserCase {
        base: panel.base.clone(),
        walker: h.player_id(carl).0,
        kicked: h.player_id(kenny).0,
        banned: h.player_id(smoke).0,
    };

    // The server runs at its own pace (server time kept to the wall clock) while the
    // browser works, and Carl walks a step east every 300 ms (the gamemode moves him).
    let admin = std::thread::spawn(move || drive_the_panel(&browser, &case));
    let (started, t0) = (std::time::Instant::now(), h.now());
    let (mut k, mut walked) = (0, std::time::Instant::now());
    while !admin.is_finished() {
        if h.now() - t0 < started.elapsed() {
            h.step();
        } else {
            std::thread::sleep(Duration::from_millis(2));
        }
        if walked.elapsed() >= Duration::from_millis(300) {
            k += 1;
            h.teleport(carl, walk(k));
            // Each game still connected sends its frame, as a game does many times a second.
            for c in [carl, kenny, smoke] {
                if h.packets::<ServerDisconnect>(c).is_empty() {
                    h.live(c);
                }
            }
            walked = std::time::Instant::now();
        }
    }
    if let Err(panic) = admin.join() {
        std::panic::resume_unwind(panic);
    }

    let kicked = h.packets::<ServerDisconnect>(kenny);
    assert!(kicked.iter().any(|d| d.reason == LeaveReason::Kicked));
    assert!(
        h.chat_lines(kenny)
            .contains(&"You were kicked: afk in the road".to_owned()),
        "{:?}",
        h.chat_lines(kenny)
    );
    assert!(!h.packets::<ServerDisconnect>(smoke).is_empty());
    let again = h.add_client_at(IpAddr::from([10, 0, 0, 3]));
    let hello = h.client_hello(again, "Big_Smoke");
    h.send(again, hello);
    h.step();
    assert_eq!(
        h.packets::<ConnectRefused>(again).first().map(|r| r.reason),
        Some(RefuseReason::Banned)
    );
    assert!(h.packets::<ServerDisconnect>(carl).is_empty(), "Carl stays");
}

#[test]
fn live_views_are_bounded_and_a_closed_one_frees_its_place() {
    use dlmp::admin::http::MAX_STREAMS;

    let mut h = harness();
    let panel = Panel::start(&mut h);
    let mo = panel.session(MODERATOR);
    let open = |panel: &Panel| {
        panel
            .agent
            .get(format!("{}/events/map", panel.base))
            .header("Cookie", &mo.cookie)
            .call()
            .expect("an answer")
    };
    let streams: Vec<_> = (0..MAX_STREAMS)
        .map(|_| {
            let res = open(&panel);
            assert_eq!(res.status().as_u16(), 200);
            res
        })
        .collect();
    let refused = open(&panel);
    assert_eq!(refused.status().as_u16(), 503);
    assert_eq!(
        refused.into_body().read_to_string().expect("text"),
        "too many live views open\n"
    );
    drop(streams);
    // The server notices a closed connection at its next event (a heartbeat a second).
    let mut reopened = None;
    for _ in 0..50 {
        let res = open(&panel);
        if res.status().as_u16() == 200 {
            reopened = Some(res);
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        reopened.is_some(),
        "the places of closed views are free again"
    );
}

#[test]
fn the_start_warns_of_a_panel_reachable_from_other_machines_without_tls() {
    use dlmp::logs::{KEPT, Stream, tap};

    let ca = https::TestCa::new("dlmp panel CA");
    let (cert, key) = ca.certificate();
    let s = TempScripts::new("admin_warn");
    let (cert_file, key_file) = (s.path().join("panel.crt"), s.path().join("panel.key"));
    std::fs::write(&cert_file, cert).expect("the certificate file");
    std::fs::write(&key_file, key).expect("the key file");
    let start = |ip: [u8; 4], tls: Option<(std::path::PathBuf, std::path::PathBuf)>| {
        let settings = HttpSettings {
            admin: Some(SocketAddr::from((ip, 0))),
            users: users(),
            tls,
            ..HttpSettings::default()
        };
        dlmp::admin::start(settings, None, None).expect("binds")
    };
    let warned = |server: &HttpServer| {
        let port = format!(":{} without TLS", server.admin_addr.expect("bound").port());
        tap()
            .last(Stream::Server, KEPT)
            .lines
            .iter()
            .any(|l| l.level == "WARN" && l.text.contains(&port))
    };
    tap_the_log();
    let open = start([0, 0, 0, 0], None);
    let local = start([127, 0, 0, 1], None);
    let encrypted = start([0, 0, 0, 0], Some((cert_file.clone(), key_file.clone())));
    assert!(warned(&open), "every address, plain HTTP: a warning");
    assert!(!warned(&local), "loopback only");
    assert!(!warned(&encrypted), "TLS");
}

#[test]
fn panel_actions_are_in_the_chat_log_with_the_admins_name() {
    use dlmp::logs::{KEPT, Stream, tap};

    tap_the_log();
    let mut h = harness();
    let carl = player_at(&mut h, "Carl_Johnson", Vec3::new(0.0, 0.0, 3.0));
    let id = h.player_id(carl).0;
    let panel = Panel::start(&mut h);
    let mo = panel.session(MODERATOR);
    let reply = post_during(
        &mut h,
        &panel,
        "/players/ban",
        &mo,
        vec![
            ("csrf", mo.csrf.clone()),
            ("id", id.to_string()),
            ("reason", "logged ban".to_owned()),
        ],
    );
    assert_eq!(reply.status, 303, "{reply:?}");
    let owner = panel.session(OWNER);
    let reply = post_during(
        &mut h,
        &panel,
        "/bans/add",
        &owner,
        vec![
            ("csrf", owner.csrf.clone()),
            ("ip", "10.9.8.7".to_owned()),
            ("reason", "logged address".to_owned()),
        ],
    );
    assert_eq!(reply.status, 303, "{reply:?}");
    let chat: Vec<String> = tap()
        .last(Stream::Chat, KEPT)
        .lines
        .into_iter()
        .map(|l| l.text)
        .collect();
    // The actions the tick carries out (the sign-ins are logged on the panel's own
    // threads, which this thread's subscriber does not hear).
    for (what, who) in [
        ("reason=\"logged ban\"", "who=\"mo\""),
        ("ban address 10.9.8.7", "who=\"ann\""),
    ] {
        assert!(
            chat.iter()
                .any(|l| l.starts_with("admin: ") && l.contains(what) && l.contains(who)),
            "{what} by {who}: {chat:?}"
        );
    }
}

/// Sends this test binary's log to the panel's log tap, once: a global subscriber, as the
/// server has (a thread's own subscriber misses events whose callsites other tests' threads
/// cached first).
fn tap_the_log() {
    use tracing_subscriber::layer::SubscriberExt;
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let subscriber = tracing_subscriber::registry()
            .with(tracing_subscriber::filter::LevelFilter::INFO)
            .with(dlmp::logs::TapLayer);
        tracing::subscriber::set_global_default(subscriber).expect("the only global subscriber");
    });
}
