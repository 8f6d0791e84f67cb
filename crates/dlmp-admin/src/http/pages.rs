//! The pages' bodies, from the latest snapshot. The live parts (the dashboard's numbers
//! and plot, the console, the chat log, the map) are filled and kept current by
//! `assets/app.js` from the event streams; what is rendered here is their first state.

use std::fmt::Write as _;

use dlmp_ops::accounts::Area;

use super::auth::Session;
use super::html::{csrf_field, esc};
use crate::snapshot::{Sample, Snapshot};

/// The world's half size, m (world.md "World bounds": |x|, |y| <= 6000).
pub const WORLD_HALF: f32 = 6000.0;

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

/// The dashboard: the numbers and the last 15 minutes as a plot.
#[must_use]
pub fn dashboard(s: &Snapshot) -> String {
    let h = &s.health;
    let last = h.history.last().copied().unwrap_or_default();
    let cpu = last
        .cpu_percent
        .map_or_else(|| "-".to_owned(), |c| format!("{c:.0} %"));
    let restart = match (&s.restart_daily, &s.restart_next) {
        (Some(daily), Some(next)) => format!("daily at {}, next {}", esc(daily), esc(next)),
        (Some(daily), None) => format!("daily at {}", esc(daily)),
        _ => "none".to_owned(),
    };
    format!(
        "<section class=\"cards\" id=\"health\">\
         <div><b id=\"players\">{players}</b> / {max} players</div>\
         <div>tick p50 <b id=\"p50\">{p50:.2}</b> ms, p99 <b id=\"p99\">{p99:.2}</b> ms</div>\
         <div>CPU <b id=\"cpu\">{cpu}</b></div>\
         <div>datagrams in <b id=\"din\">{din}</b>, out <b id=\"dout\">{dout}</b></div>\
         <div>script errors <b id=\"errors\">{errors}</b></div>\
         <div>database queue <b id=\"dbq\">{dbq}</b></div>\
         <div>uptime <b id=\"uptime\">{uptime}</b> s</div>\
         <div>scheduled restart: {restart}</div></section>\
         <h2>The last 15 minutes</h2>{plot}",
        players = h.players,
        max = h.max_players,
        p50 = last.tick_p50_ms,
        p99 = last.tick_p99_ms,
        din = h.datagrams_in,
        dout = h.datagrams_out,
        errors = h.script_errors,
        dbq = h.db_queue,
        uptime = h.uptime_secs,
        plot = plot(&h.history),
    )
}

/// The history as an SVG plot: tick p50 and p99 (ms, left scale) and CPU (%, right
/// scale), 900 seconds wide. app.js redraws it from the stream with the same layout.
#[must_use]
pub fn plot(samples: &[Sample]) -> String {
    const W: f64 = 900.0;
    const H: f64 = 200.0;
    let top = samples.iter().map(|s| s.tick_p99_ms).fold(1.0f64, f64::max);
    let line = |f: &dyn Fn(&Sample) -> Option<f64>, scale: f64| {
        let mut points = String::new();
        let start = W - samples.len() as f64;
        for (i, s) in samples.iter().enumerate() {
            if let Some(v) = f(s) {
                let _ = write!(
                    points,
                    "{:.0},{:.1} ",
                    start + i as f64,
                    H - (v / scale * H).min(H)
                );
            }
        }
        points
    };
    format!(
        "<svg id=\"plot\" class=\"plot\" viewBox=\"0 0 {W} {H}\" preserveAspectRatio=\"none\" \
         data-top=\"{top}\" role=\"img\" aria-label=\"tick time and CPU\">\
         <polyline class=\"p50\" points=\"{p50}\"/><polyline class=\"p99\" points=\"{p99}\"/>\
         <polyline class=\"cpu\" points=\"{cpu}\"/></svg>\
         <p class=\"legend\"><span class=\"p50\">tick p50</span> <span class=\"p99\">tick p99</span> \
         (0..<span id=\"top\">{top:.1}</span> ms) <span class=\"cpu\">CPU</span> (0..100 %)</p>",
        p50 = line(&|s| Some(s.tick_p50_ms), top),
        p99 = line(&|s| Some(s.tick_p99_ms), top),
        cpu = line(&|s| s.cpu_percent, 100.0),
    )
}

/// The players, each with a kick and a ban form.
#[must_use]
pub fn players(s: &Snapshot, session: &Session) -> String {
    if s.players.is_empty() {
        return "<p id=\"none\">No players connected.</p>".to_owned();
    }
    let mut rows = String::new();
    for p in &s.players {
        let position = p.position.map_or_else(
            || "-".to_owned(),
            |[x, y, z]| format!("{x:.1} {y:.1} {z:.1}"),
        );
        let health = match (p.health, p.armor) {
            (Some(h), Some(a)) => format!("{h:.0} / {a:.0}"),
            _ => "-".to_owned(),
        };
        let _ = write!(
            rows,
            "<tr id=\"player-{id}\" data-name=\"{name}\"><td>{id}</td><td class=\"name\">{name}</td>\
             <td>{addr}</td><td>{ping}</td><td>{state}</td><td>{health}</td>\
             <td>{position} <small>world {vw}</small></td><td>{vehicle}</td><td class=\"actions\">\
             <form method=\"post\" action=\"/players/kick\" class=\"kick\">{csrf}\
             <input type=\"hidden\" name=\"id\" value=\"{id}\">\
             <input name=\"reason\" placeholder=\"reason\" maxlength=\"100\">\
             <button>Kick</button></form>\
             <form method=\"post\" action=\"/players/ban\" class=\"ban\">{csrf}\
             <input type=\"hidden\" name=\"id\" value=\"{id}\">\
             <input name=\"reason\" placeholder=\"reason\" maxlength=\"100\">\
             <input name=\"minutes\" placeholder=\"minutes (empty: forever)\" inputmode=\"numeric\" size=\"8\">\
             <button>Ban</button></form></td></tr>",
            id = p.id,
            name = esc(&p.name),
            addr = esc(&p.address),
            ping = p
                .ping_ms
                .map_or_else(|| "-".to_owned(), |ms| format!("{ms} ms")),
            state = p.state,
            vw = p.virtual_world,
            vehicle = opt(p.vehicle),
            csrf = csrf_field(session),
        );
    }
    format!(
        "<table id=\"players\"><thead><tr><th>id</th><th>name</th><th>address</th><th>ping</th>\
         <th>state</th><th>health / armor</th><th>position</th><th>vehicle</th><th></th></tr>\
         </thead><tbody>{rows}</tbody></table>"
    )
}

/// The bans in force, each with a lift form, and a form to ban an address.
#[must_use]
pub fn bans(s: &Snapshot, session: &Session) -> String {
    let mut rows = String::new();
    for b in &s.bans {
        let _ = write!(
            rows,
            "<tr data-ip=\"{ip}\"><td>{ip}</td><td class=\"name\">{name}</td><td>{by}</td>\
             <td>{server}</td><td>{at}</td><td>{until}</td><td>{reason}</td><td>\
             <form method=\"post\" action=\"/bans/lift\">{csrf}\
             <input type=\"hidden\" name=\"ip\" value=\"{ip}\"><button>Lift</button></form></td></tr>",
            ip = esc(&b.ip),
            name = esc(&b.name),
            by = esc(&b.by),
            server = esc(&b.server),
            at = esc(&b.at),
            until = b
                .until
                .as_deref()
                .map_or_else(|| "permanent".to_owned(), esc),
            reason = esc(&b.reason),
            csrf = csrf_field(session),
        );
    }
    let table = if s.bans.is_empty() {
        "<p id=\"none\">No bans.</p>".to_owned()
    } else {
        format!(
            "<table id=\"bans\"><thead><tr><th>address</th><th>name</th><th>by</th><th>server</th>\
             <th>at</th><th>until</th><th>reason</th><th></th></tr></thead><tbody>{rows}</tbody></table>"
        )
    };
    let unconfirmed = if s.bans_unconfirmed > 0 {
        format!(
            "<p>{} not yet written to the database.</p>",
            s.bans_unconfirmed
        )
    } else {
        String::new()
    };
    format!(
        "{table}{unconfirmed}<h2>Ban an address</h2>\
         <form method=\"post\" action=\"/bans/add\" id=\"ban-address\">{csrf}\
         <input name=\"ip\" placeholder=\"IPv4 or IPv6 address\" required>\
         <input name=\"minutes\" placeholder=\"minutes (empty: forever)\" inputmode=\"numeric\">\
         <input name=\"reason\" placeholder=\"reason\" maxlength=\"100\"><button>Ban</button></form>",
        csrf = csrf_field(session)
    )
}

/// The resources with their controls and last errors.
#[must_use]
pub fn resources(s: &Snapshot, session: &Session) -> String {
    if s.resources.is_empty() {
        return "<p id=\"none\">No resources.</p>".to_owned();
    }
    let mut rows = String::new();
    for r in &s.resources {
        let mut forms = String::new();
        for op in ["start", "stop", "restart"] {
            let _ = write!(
                forms,
                "<form method=\"post\" action=\"/resources/{op}\">{csrf}\
                 <input type=\"hidden\" name=\"name\" value=\"{name}\">\
                 <button name=\"op\" value=\"{op}\">{op}</button></form>",
                csrf = csrf_field(session),
                name = esc(&r.name),
            );
        }
        let errors: String = r
            .errors
            .iter()
            .map(|e| format!("<li>{}</li>", esc(e)))
            .collect();
        let _ = write!(
            rows,
            "<tr id=\"resource-{name}\"><td>{name}</td><td class=\"state\">{state}</td>\
             <td class=\"actions\">{forms}</td><td><ul class=\"errors\">{errors}</ul></td></tr>",
            name = esc(&r.name),
            state = if r.running { "running" } else { "stopped" },
        );
    }
    format!(
        "<table id=\"resources\"><thead><tr><th>name</th><th>state</th><th></th>\
         <th>last errors</th></tr></thead><tbody>{rows}</tbody></table>"
    )
}

/// A live log view: filled from `stream` by app.js, filterable by text and level.
#[must_use]
pub fn log_view(stream: &str, levels: bool) -> String {
    let level = if levels {
        "<select id=\"level\"><option value=\"\">every level</option>\
         <option>ERROR</option><option>WARN</option><option>INFO</option>\
         <option>DEBUG</option></select>"
    } else {
        ""
    };
    format!(
        "<div class=\"filter\"><input id=\"filter\" placeholder=\"filter\" \
         aria-label=\"filter\">{level}</div>\
         <pre id=\"log\" class=\"log\" data-stream=\"{stream}\"></pre>"
    )
}

/// The live console: the log and a command line that runs console commands.
#[must_use]
pub fn console(session: &Session) -> String {
    format!(
        "{log}<form method=\"post\" action=\"/console\" id=\"command\">{csrf}\
         <input name=\"line\" id=\"line\" placeholder=\"a console command (help)\" \
         autocomplete=\"off\" required><button>Run</button></form>\
         <pre id=\"answer\" class=\"answer\"></pre>",
        log = log_view("/events/log", true),
        csrf = csrf_field(session),
    )
}

/// The map: the world to scale with a 500 m grid; app.js draws the marks.
#[must_use]
pub fn map(s: &Snapshot) -> String {
    let half = WORLD_HALF;
    let mut grid = String::new();
    let mut v = -half;
    while v <= half {
        let class = if v == 0.0 {
            "axis"
        } else if v % 1000.0 == 0.0 {
            "km"
        } else {
            ""
        };
        let _ = write!(
            grid,
            "<line class=\"{class}\" x1=\"{v}\" y1=\"{n}\" x2=\"{v}\" y2=\"{half}\"/>\
             <line class=\"{class}\" x1=\"{n}\" y1=\"{v}\" x2=\"{half}\" y2=\"{v}\"/>",
            n = -half
        );
        if v % 2000.0 == 0.0 && v > -half && v < half {
            let _ = write!(
                grid,
                "<text class=\"label\" x=\"{v}\" y=\"{y}\">{v}</text>\
                 <text class=\"label\" x=\"{x}\" y=\"{v}\">{neg}</text>",
                y = half - 60.0,
                x = -half + 60.0,
                // `0.0 - v`, not `-v`: the centre line reads 0, not -0.
                neg = 0.0 - v
            );
        }
        v += 500.0;
    }
    let worlds: std::collections::BTreeSet<u32> = s
        .players
        .iter()
        .map(|p| p.virtual_world)
        .chain(s.vehicles.iter().map(|v| v.virtual_world))
        .chain(std::iter::once(0))
        .collect();
    let options: String = worlds
        .iter()
        .map(|w| format!("<option value=\"{w}\">world {w}</option>"))
        .collect();
    format!(
        "<div class=\"filter\"><label>Virtual world <select id=\"world\">{options}</select></label> \
         <span id=\"counts\"></span></div>\
         <svg id=\"map\" class=\"map\" viewBox=\"{n} {n} {size} {size}\" data-half=\"{half}\" \
         role=\"img\" aria-label=\"the world map\"><rect class=\"ground\" x=\"{n}\" y=\"{n}\" \
         width=\"{size}\" height=\"{size}\"/><g class=\"grid\">{grid}</g><g id=\"marks\"></g></svg>\
         <p class=\"legend\">North is up; the grid is 500 m, thick lines every km. \
         <span class=\"player\">players</span> <span class=\"vehicle\">vehicles</span>; \
         a click on a player opens its row.</p>",
        n = -half,
        size = 2.0 * half,
    )
}

/// The settings: the daily restart.
#[must_use]
pub fn settings(s: &Snapshot, session: &Session) -> String {
    format!(
        "<h2>Scheduled restart</h2><p>Now: {now}{next}.</p>\
         <form method=\"post\" action=\"/settings/restart\" id=\"restart\">{csrf}\
         <label>Every day at <input name=\"at\" value=\"{value}\" placeholder=\"HH:MM (UTC) or HH:MM+02:00; empty: never\"></label>\
         <button>Save</button></form>\
         <p>Players are told in chat 15, 5 and 1 minutes before; the server then saves, \
         disconnects everyone and exits with code {code} for its service to start it again.</p>",
        now = s.restart_daily.as_deref().map_or_else(
            || "no daily restart".to_owned(),
            |d| format!("every day at {}", esc(d))
        ),
        next = s
            .restart_next
            .as_deref()
            .map_or_else(String::new, |n| format!(", next at {}", esc(n))),
        value = esc(s.restart_daily.as_deref().unwrap_or("")),
        csrf = csrf_field(session),
        code = dlmp_ops::restart::RESTART_EXIT_CODE,
    )
}

/// The area a page path belongs to.
#[must_use]
pub fn area_of(title: &str) -> Area {
    super::html::PAGES
        .iter()
        .find(|(_, name, _)| *name == title)
        .map_or(Area::Settings, |(_, _, a)| *a)
}
