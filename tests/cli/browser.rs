//! A headless Chromium (Debian's `chromium` package) driven over the DevTools protocol, for
//! checking that a page loads cleanly and what it drew.
//!
//! Chromium is started with `--remote-debugging-pipe`: it reads protocol commands from file
//! descriptor 3 and writes replies and events to descriptor 4, each message JSON ended by a NUL
//! byte. No port, no browser download, no extra crate: a pipe pair and serde_json.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const CHROMIUM: &str = "/usr/bin/chromium";

/// What loading a page produced.
#[derive(Debug, Default)]
pub struct PageLoad {
    /// Console errors, uncaught exceptions and browser log errors (failed loads among them).
    pub errors: Vec<String>,
    /// Every URL the page requested (the page itself included).
    pub requests: Vec<String>,
    /// Requests that failed.
    pub failed: Vec<String>,
    /// The value of the expression evaluated after the load event.
    pub evaluated: Value,
}

pub struct Browser {
    child: Child,
    to: std::fs::File,
    from: Receiver<Value>,
    next_id: u64,
    /// Events received while waiting for a reply.
    events: VecDeque<Value>,
}

fn pipe() -> (RawFd, RawFd) {
    let mut fds = [0; 2];
    // SAFETY: fds is a valid array of two ints.
    let r = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(r, 0, "pipe2: {}", std::io::Error::last_os_error());
    (fds[0], fds[1])
}

impl Browser {
    /// Starts a headless Chromium with its own throwaway profile directory.
    pub fn start(profile: &std::path::Path) -> Browser {
        let (chrome_reads, we_write) = pipe();
        let (we_read, chrome_writes) = pipe();
        let mut cmd = Command::new(CHROMIUM);
        cmd.args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--remote-debugging-pipe",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        // SAFETY: only async-signal-safe calls (fcntl, dup2) between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                // Move both ends above 4 first, so placing one cannot overwrite the other.
                let r = libc::fcntl(chrome_reads, libc::F_DUPFD, 10);
                let w = libc::fcntl(chrome_writes, libc::F_DUPFD, 10);
                if r < 0 || w < 0 || libc::dup2(r, 3) < 0 || libc::dup2(w, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("start chromium");
        // SAFETY: the descriptors are ours, open, and each is owned by exactly one File.
        let (to, from_file) = unsafe {
            libc::close(chrome_reads);
            libc::close(chrome_writes);
            (
                std::fs::File::from_raw_fd(we_write),
                std::fs::File::from_raw_fd(we_read),
            )
        };
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut from_file = from_file;
            let mut buf = Vec::new();
            let mut chunk = [0u8; 65536];
            loop {
                let n = match from_file.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                buf.extend_from_slice(&chunk[..n]);
                while let Some(end) = buf.iter().position(|b| *b == 0) {
                    let msg: Vec<u8> = buf.drain(..=end).collect();
                    if let Ok(v) = serde_json::from_slice::<Value>(&msg[..msg.len() - 1]) {
                        if tx.send(v).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Browser {
            child,
            to,
            from: rx,
            next_id: 0,
            events: VecDeque::new(),
        }
    }

    fn recv(&mut self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        self.from
            .recv_timeout(left)
            .expect("chromium did not answer in time (or exited)")
    }

    /// Sends a command (to a page session when `session` is given) and waits for its reply.
    pub fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&msg).unwrap();
        bytes.push(0);
        self.to.write_all(&bytes).expect("write to chromium");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let v = self.recv(deadline);
            if v["id"].as_u64() == Some(id) {
                assert!(v.get("error").is_none(), "{method}: {}", v["error"]);
                return v["result"].clone();
            }
            self.events.push_back(v);
        }
    }

    /// Loads `url` in a new tab, waits for its load event (and a moment for late requests),
    /// then evaluates `expression` (which must return a JSON-serialisable value).
    pub fn load(&mut self, url: &str, expression: &str) -> PageLoad {
        self.load_in(url, expression, None)
    }

    /// [`Browser::load`] in a viewport of `(width, height)` CSS pixels (a screen of that size),
    /// or the browser's default one.
    pub fn load_in(&mut self, url: &str, expression: &str, viewport: Option<(u32, u32)>) -> PageLoad {
        let target = self.call(None, "Target.createTarget", json!({"url": "about:blank"}));
        let attached = self.call(
            None,
            "Target.attachToTarget",
            json!({"targetId": target["targetId"], "flatten": true}),
        );
        let session = attached["sessionId"].as_str().expect("session id").to_string();
        let s = Some(session.as_str());
        for domain in ["Page.enable", "Runtime.enable", "Log.enable", "Network.enable"] {
            self.call(s, domain, json!({}));
        }
        if let Some((width, height)) = viewport {
            self.call(
                s,
                "Emulation.setDeviceMetricsOverride",
                json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
            );
        }
        self.call(s, "Page.navigate", json!({"url": url}));
        let mut out = PageLoad::default();
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut loaded_at: Option<Instant> = None;
        loop {
            let v = match self.events.pop_front() {
                Some(v) => v,
                None => {
                    if let Some(t) = loaded_at {
                        // Let anything the load event did not wait for arrive.
                        match self
                            .from
                            .recv_timeout(Duration::from_millis(300).saturating_sub(t.elapsed()))
                        {
                            Ok(v) => v,
                            Err(_) => break,
                        }
                    } else {
                        self.recv(deadline)
                    }
                }
            };
            if v["sessionId"].as_str() != Some(session.as_str()) {
                continue;
            }
            let p = &v["params"];
            match v["method"].as_str().unwrap_or("") {
                "Page.loadEventFired" => loaded_at = Some(Instant::now()),
                "Network.requestWillBeSent" => out
                    .requests
                    .push(p["request"]["url"].as_str().unwrap_or("").to_string()),
                "Network.loadingFailed" => out.failed.push(format!("{}: {}", p["requestId"], p["errorText"])),
                "Runtime.exceptionThrown" => out.errors.push(format!("exception: {}", p["exceptionDetails"])),
                "Runtime.consoleAPICalled" if matches!(p["type"].as_str(), Some("error" | "assert")) => {
                    out.errors.push(format!("console: {}", p["args"]))
                }
                "Log.entryAdded" if p["entry"]["level"].as_str() == Some("error") => out
                    .errors
                    .push(format!("log: {} {}", p["entry"]["text"], p["entry"]["url"])),
                _ => {}
            }
        }
        let r = self.call(
            s,
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
        );
        assert!(
            r.get("exceptionDetails").is_none(),
            "evaluate: {}",
            r["exceptionDetails"]
        );
        out.evaluated = r["result"]["value"].clone();
        out
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
