//! A headless Chromium driven over the W3C WebDriver protocol for the browser test of the
//! admin panel (issue 38, ADR 0100): `chromedriver` (the Debian package `chromium-driver`)
//! started on a free port, one session of `chromium --headless`, and the few commands the
//! test needs, sent as JSON by `ureq`. Without the packages [`Browser::start`] says why and
//! the test is skipped, unless `DLMP_REQUIRE_BROWSER` is set (`.ci/run` sets it).
#![allow(dead_code, unreachable_pub)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};
use ureq::Agent;

/// The key under which WebDriver names an element.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";
/// The longest a [`Browser::wait_for`] waits for the page to change.
const WAIT: Duration = Duration::from_secs(30);

/// The first of `names` found on the `PATH`.
fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// A chromedriver process and its browser session; both end on drop.
pub struct Browser {
    driver: Child,
    agent: Agent,
    session: String,
}

impl Browser {
    /// Starts chromedriver and a headless Chromium; `None` after saying why the test is
    /// skipped when either is not installed.
    pub fn start(test: &str) -> Option<Browser> {
        let driver = on_path(&["chromedriver"]);
        let chromium = on_path(&["chromium", "chromium-browser", "google-chrome"]);
        let (Some(driver), Some(chromium)) = (driver, chromium) else {
            let why = "skipped, because chromium and chromedriver are not installed \
                       (Debian: apt-get install chromium chromium-driver; .ci/run installs them)";
            assert!(
                std::env::var_os("DLMP_REQUIRE_BROWSER").is_none(),
                "{test}: DLMP_REQUIRE_BROWSER is set but it would be {why}"
            );
            eprintln!("{test}: {why}");
            return None;
        };
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(&driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let agent: Agent = Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let base = format!("http://127.0.0.1:{port}");
        let mut browser = Browser {
            driver: child,
            agent,
            session: base.clone(),
        };
        let started = Instant::now();
        while browser
            .agent
            .get(format!("{base}/status"))
            .call()
            .map_or(true, |r| r.status() != 200)
        {
            assert!(started.elapsed() < WAIT, "chromedriver answers");
            std::thread::sleep(Duration::from_millis(100));
        }
        let created = browser.call(
            "POST",
            "/session",
            json!({"capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {
                    "binary": chromium,
                    "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                             "--disable-dev-shm-usage", "--window-size=1280,1000"],
                },
            }}}),
        );
        let id = created["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned();
        browser.session = format!("{base}/session/{id}");
        Some(browser)
    }

    /// Sends one command; its `value`. A WebDriver error fails the test with its message.
    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("{}{path}", self.session);
        let res = match method {
            "GET" => self.agent.get(&url).call(),
            "DELETE" => self.agent.delete(&url).call(),
            _ => self
                .agent
                .post(&url)
                .header("Content-Type", "application/json")
                .send(body.to_string()),
        }
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = res.status().as_u16();
        let text = res
            .into_body()
            .read_to_string()
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let json: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        assert!(
            status < 400,
            "{method} {path} {body}: {status} {}",
            json["value"]
        );
        json["value"].clone()
    }

    pub fn go(&self, url: &str) {
        self.call("POST", "/url", json!({ "url": url }));
    }

    pub fn url(&self) -> String {
        self.call("GET", "/url", Value::Null)
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The element `css` selects, if any.
    pub fn find(&self, css: &str) -> Option<String> {
        let url = format!("{}/element", self.session);
        let res = self
            .agent
            .post(&url)
            .header("Content-Type", "application/json")
            .send(json!({"using": "css selector", "value": css}).to_string())
            .expect("an answer");
        if res.status() != 200 {
            return None;
        }
        let text = res.into_body().read_to_string().expect("an answer");
        let json: Value = serde_json::from_str(&text).expect("JSON");
        json["value"][ELEMENT].as_str().map(str::to_owned)
    }

    /// The element `css` selects, waited for.
    pub fn element(&self, css: &str) -> String {
        self.wait_for(&format!("{css} on {}", self.url()), || self.find(css))
    }

    pub fn type_into(&self, css: &str, text: &str) {
        let e = self.element(css);
        self.call(
            "POST",
            &format!("/element/{e}/value"),
            json!({ "text": text }),
        );
    }

    pub fn click(&self, css: &str) {
        let e = self.element(css);
        self.call("POST", &format!("/element/{e}/click"), json!({}));
    }

    pub fn text(&self, css: &str) -> String {
        let e = self.element(css);
        self.call("GET", &format!("/element/{e}/text"), Value::Null)
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// Runs `script` (a function body; `arguments` are `args`) in the page; what it returns.
    pub fn run(&self, script: &str, args: Value) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            json!({ "script": script, "args": args }),
        )
    }

    /// Polls `check` until it gives a value; fails naming `what` after [`WAIT`].
    pub fn wait_for<T>(&self, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
        let started = Instant::now();
        loop {
            if let Some(v) = check() {
                return v;
            }
            assert!(started.elapsed() < WAIT, "waited in vain for {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Saves a PNG of the window at `path`.
    pub fn screenshot(&self, path: &Path) {
        let data = self.call("GET", "/screenshot", Value::Null);
        let png = base64::engine::general_purpose::STANDARD
            .decode(data.as_str().expect("base64"))
            .expect("a PNG");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("the artifact folder");
        }
        std::fs::write(path, png).expect("the screenshot is written");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if self.session.contains("/session/") {
            let _ = self.agent.delete(&self.session).call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
