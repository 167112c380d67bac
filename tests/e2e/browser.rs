//! A real headless Chromium driven over WebDriver (chromedriver + fantoccini), for the score pad's
//! browser tests. Without Chromium these tests print `skipped`; in CI (`CI=true`) they fail.
//!
//! Each browser gets its own chromedriver on a free port and a fresh profile; the window is a
//! phone's (360×640, or another size). Screenshots go to `target/tmp/pad-screenshots/` (next to
//! the test output).

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

/// Where Debian's packages put them; overridable for other systems.
const CHROMEDRIVER_VAR: &str = "TABLETALLY_CHROMEDRIVER";
const CHROMIUM_VAR: &str = "TABLETALLY_CHROMIUM";

/// How long a test waits for something to appear on the page.
const WAIT: Duration = Duration::from_secs(20);

pub struct Browser {
    pub client: Client,
    driver: Child,
    profile: PathBuf,
}

fn find(var: &str, candidates: &[&str]) -> Option<PathBuf> {
    if let Ok(path) = std::env::var(var) {
        return Some(PathBuf::from(path));
    }
    candidates.iter().map(PathBuf::from).find(|p| p.exists())
}

/// The folder screenshots are written to.
pub fn screenshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pad-screenshots")
}

/// Starts a browser at a phone's size (360×640); `None` (after printing `skipped`) when
/// Chromium is not installed, outside CI.
pub async fn browser() -> Option<Browser> {
    browser_sized(360, 640).await
}

/// Starts a browser whose window is `width`×`height` CSS pixels (a phone's screen, touch on).
pub async fn browser_sized(width: u32, height: u32) -> Option<Browser> {
    browser_with(width, height, None).await
}

/// A phone-sized browser whose languages (`navigator.languages`, `Accept-Language`) are
/// `languages`, e.g. `"fr-FR,fr"`: a phone set to that language.
pub async fn browser_speaking(languages: &str) -> Option<Browser> {
    browser_with(360, 640, Some(languages)).await
}

async fn browser_with(width: u32, height: u32, languages: Option<&str>) -> Option<Browser> {
    let driver_path = find(
        CHROMEDRIVER_VAR,
        &["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"],
    );
    let chromium_path = find(
        CHROMIUM_VAR,
        &["/usr/bin/chromium", "/usr/bin/chromium-browser"],
    );
    let (Some(driver_path), Some(chromium_path)) = (driver_path, chromium_path) else {
        crate::helpers::skip_outside_ci(
            "Chromium and chromedriver must be installed (apt-get install chromium chromium-driver)",
            &format!(
                "install chromium and chromium-driver (or set {CHROMIUM_VAR} and {CHROMEDRIVER_VAR}) to run the score pad's browser tests"
            ),
        );
        return None;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    // Its own process group, which Chromium joins: a failed test stops both (see `Drop`).
    let driver = Command::new(&driver_path)
        .process_group(0)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("start {}: {e}", driver_path.display()));
    let profile =
        std::env::temp_dir().join(format!("tabletally-chromium-{}", uuid::Uuid::new_v4()));
    let mut args = vec![
        "--headless".to_owned(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--disable-quic".into(),
        "--no-first-run".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--disable-sync".into(),
        "--disable-dev-shm-usage".into(),
        format!("--user-data-dir={}", profile.display()),
    ];
    let mut options = json!({
        "binary": chromium_path,
        "mobileEmulation": {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2.0, "touch": true}},
    });
    if let Some(languages) = languages {
        let first = languages.split(',').next().unwrap_or(languages);
        args.push(format!("--lang={first}"));
        args.push(format!("--accept-lang={languages}"));
        options["prefs"] = json!({"intl.accept_languages": languages});
    }
    options["args"] = json!(args);
    let mut capabilities = serde_json::Map::new();
    capabilities.insert("goog:chromeOptions".into(), options);
    let url = format!("http://127.0.0.1:{port}");
    let mut last_error = String::new();
    for _ in 0..100 {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(capabilities.clone())
            .connect(&url)
            .await
        {
            Ok(client) => {
                return Some(Browser {
                    client,
                    driver,
                    profile,
                });
            }
            Err(e) => {
                last_error = e.to_string();
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    panic!("chromedriver did not start a session: {last_error}");
}

impl Browser {
    pub async fn goto(&self, url: &str) {
        self.client.goto(url).await.expect("navigate");
    }

    /// Waits until an element matching `css` is on the page, and returns it.
    pub async fn find(&self, css: &str) -> Element {
        self.client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no element {css}: {e}"))
    }

    /// Does `act` to the element matching `css`, found again while the page draws it anew in
    /// between (a live stream's frame arriving while the test acts), for up to [`WAIT`].
    async fn on_element<T, F>(&self, css: &str, what: &str, act: impl Fn(Element) -> F) -> T
    where
        F: Future<Output = Result<T, fantoccini::error::CmdError>>,
    {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            match act(self.find(css).await).await {
                Ok(done) => return done,
                Err(fantoccini::error::CmdError::Standard(e))
                    if e.error == fantoccini::error::ErrorStatus::StaleElementReference
                        && tokio::time::Instant::now() < deadline => {}
                Err(e) => panic!("{what} {css}: {e}"),
            }
        }
    }

    /// Clicks the element matching `css`.
    pub async fn click(&self, css: &str) {
        self.on_element(css, "click", |el| async move { el.click().await })
            .await
    }

    /// Clears a field and types into it, as a thumb would.
    pub async fn fill(&self, css: &str, text: &str) {
        self.on_element(css, "type into", |el| async move {
            el.clear().await?;
            el.send_keys(text).await
        })
        .await
    }

    /// Picks an option of a `<select>` by its value.
    pub async fn select(&self, css: &str, value: &str) {
        self.on_element(css, &format!("select {value} in"), |el| async move {
            el.select_by_value(value).await
        })
        .await
    }

    /// The text of the element matching `css`.
    pub async fn text(&self, css: &str) -> String {
        self.on_element(css, "text of", |el| async move { el.text().await })
            .await
    }

    /// Waits until the element matching `css` has text that satisfies `accept`; returns it.
    pub async fn wait_text(&self, css: &str, accept: impl Fn(&str) -> bool) -> String {
        let deadline = tokio::time::Instant::now() + WAIT;
        let mut last = String::new();
        while tokio::time::Instant::now() < deadline {
            if let Ok(el) = self.client.find(Locator::Css(css)).await
                && let Ok(text) = el.text().await
            {
                if accept(&text) {
                    return text;
                }
                last = text;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("{css} never had the expected text; last: {last:?}")
    }

    /// Runs a script in the page and returns its result.
    pub async fn js(&self, script: &str) -> serde_json::Value {
        self.client
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("script {script}: {e}"))
    }

    /// Picks the option of a `<select>` whose text contains `text` (options whose values are
    /// the page's own, such as a Vintage turn's "steal from Cy: c4 · …").
    pub async fn select_text(&self, css: &str, text: &str) {
        self.find(css).await;
        let picked = self
            .js(&format!(
                "const s = document.querySelector({css}); const o = [...s.options].find(o => o.textContent.includes({text})); \
                 if (!o) return false; s.value = o.value; s.dispatchEvent(new Event('change', {{bubbles: true}})); return true;",
                css = json!(css),
                text = json!(text)
            ))
            .await;
        assert_eq!(picked, json!(true), "no option with {text:?} in {css}");
    }

    /// Writes a PNG of the phone-sized viewport, scrolled to `css` first.
    pub async fn screenshot(&self, name: &str, css: Option<&str>) {
        if let Some(css) = css {
            let el = self.find(css).await;
            let _ = self
                .client
                .execute(
                    "arguments[0].scrollIntoView({block: 'start'})",
                    vec![serde_json::to_value(&el).expect("an element as JSON")],
                )
                .await;
        }
        let png = self.client.screenshot().await.expect("screenshot");
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir).expect("screenshot folder");
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).expect("write the screenshot");
        eprintln!("screenshot: {}", path.display());
    }

    /// Ends the session (Chromium exits) and stops chromedriver.
    pub async fn close(mut self) {
        let _ = self.client.clone().close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // After a failed assertion: stop the chromedriver this test started and the Chromium it
        // launched (same process group, whose id is the driver's pid).
        let group = format!("-{}", self.driver.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}
