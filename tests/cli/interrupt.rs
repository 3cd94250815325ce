//! Stopping a run: Ctrl-C, SIGTERM and SIGHUP (a closed terminal) each keep the finished
//! trials, mark the run interrupted, exit 130 and clean the scratch directory, whether they
//! come during the population of a template or during trials; `kill -9` leaves a consistent
//! store whose run reads abandoned.

use crate::cli::common::*;
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A running litebench that is killed if the test ends before it does.
struct Running {
    child: Option<Child>,
}

impl Running {
    fn pid(&self) -> libc::pid_t {
        self.child.as_ref().expect("child").id() as libc::pid_t
    }

    fn signal(&self, sig: libc::c_int) {
        // SAFETY: signalling our own child, which has not been reaped yet.
        let rc = unsafe { libc::kill(self.pid(), sig) };
        assert_eq!(
            rc,
            0,
            "kill({}, {sig}): {}",
            self.pid(),
            std::io::Error::last_os_error()
        );
    }

    fn is_running(&mut self) -> bool {
        matches!(self.child.as_mut().expect("child").try_wait(), Ok(None))
    }

    /// Waits for the child to exit (at most `limit`) and returns its status, stdout and stderr.
    fn finish(mut self, limit: Duration) -> (ExitStatus, String, String) {
        // Its output is read while it runs: a report larger than a pipe's buffer (64 KiB)
        // would otherwise block litebench's last write, and it would never exit.
        let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
            std::thread::spawn(move || {
                let mut text = Vec::new();
                if let Some(mut p) = pipe {
                    let _ = p.read_to_end(&mut text);
                }
                String::from_utf8_lossy(&text).into_owned()
            })
        };
        let child = self.child.as_mut().expect("child");
        let out = drain(
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn std::io::Read + Send>),
        );
        let err = drain(
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn std::io::Read + Send>),
        );
        let deadline = Instant::now() + limit;
        while self.is_running() {
            assert!(Instant::now() < deadline, "litebench did not exit within {limit:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
        let status = self.child.take().expect("child").wait().expect("its status");
        (status, out.join().unwrap_or_default(), err.join().unwrap_or_default())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Starts a long run: 50 trials of 2 s each, with `extra` arguments.
fn start_long_run(sb: &Sandbox, extra: &[&str]) -> Running {
    let crud = [
        "crud",
        "--param",
        "rows=1000",
        "--param",
        "duration=2s",
        "--trials",
        "50",
    ];
    start_run(sb, &[&crud[..], extra].concat())
}

/// Starts `litebench run ARGS --warmup 0 --quiet --format json` in the sandbox's store and
/// scratch directory, its output piped.
fn start_run(sb: &Sandbox, args: &[&str]) -> Running {
    let child = sb
        .std_command()
        .arg("run")
        .args(args)
        .args(["--warmup", "0", "--quiet", "--format", "json"])
        .arg("--results")
        .arg(sb.results())
        .arg("--dir")
        .arg(sb.scratch())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start litebench");
    Running { child: Some(child) }
}

/// Polls `show --list --format json` until the run has at least one stored trial; returns that
/// count. `between` runs at every poll (to drain a terminal).
fn wait_for_a_trial(sb: &Sandbox, run: &mut Running, between: &mut dyn FnMut()) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        between();
        assert!(run.is_running(), "litebench exited before it was interrupted");
        if sb.results().is_file() {
            let out = output(&mut sb.show(&["--list", "--format", "json"]));
            assert_no_panic(&out);
            if out.status.success() {
                let v = json(&out);
                if let Some(r) = v.as_array().and_then(|a| a.first()) {
                    assert_eq!(r["status"], "running", "{r}");
                    let n = r["trials"].as_u64().unwrap_or(0);
                    if n >= 1 {
                        return n;
                    }
                }
            }
        }
        assert!(Instant::now() < deadline, "no trial was stored within 30 s");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn ctrl_c_keeps_finished_trials_and_cleans_up() {
    stop_during_trials(libc::SIGINT);
}

#[test]
fn sigterm_keeps_finished_trials_and_cleans_up() {
    stop_during_trials(libc::SIGTERM);
}

#[test]
fn sighup_keeps_finished_trials_and_cleans_up() {
    stop_during_trials(libc::SIGHUP);
}

/// Stops a run with `sig` once a trial is stored: the run is kept as interrupted, its report
/// printed and written, exit 130, the scratch directory empty.
fn stop_during_trials(sig: libc::c_int) {
    let sb = Sandbox::new();
    let page = sb.root().join("interrupted.html");
    let mut run = start_long_run(&sb, &["--report", page.to_str().unwrap()]);
    let seen = wait_for_a_trial(&sb, &mut run, &mut || {});
    assert!(
        !listing(&sb.scratch()).is_empty(),
        "a running run has a scratch directory"
    );
    run.signal(sig);
    let (status, out, err) = run.finish(Duration::from_secs(30));
    let all = format!("status {status:?}\n--- stdout ---\n{out}\n--- stderr ---\n{err}");
    assert!(!err.contains("panicked"), "{all}");
    assert_eq!(status.code(), Some(130), "exit code after signal {sig}\n{all}");
    let err_lines: Vec<&str> = err.lines().filter(|l| !is_ram_warning(l)).collect();
    assert_eq!(err_lines.len(), 1, "{all}");
    assert!(
        err_lines[0].starts_with("interrupted: ") && err_lines[0].contains("finished trials kept as run 1 in"),
        "{all}"
    );

    // The report on stdout covers the finished trials.
    let printed: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("stdout: {e}\n{all}"));
    assert_eq!(printed["run"]["status"], "interrupted");
    let printed_trials = printed["trials"].as_array().map_or(0, Vec::len) as u64;
    assert!(
        printed_trials >= seen,
        "{printed_trials} trials printed, {seen} seen stored"
    );

    // The store agrees.
    let v = sb.show_json();
    assert_eq!(v["run"]["status"], "interrupted", "{:#}", v["run"]);
    let stored = v["trials"].as_array().map_or(0, Vec::len) as u64;
    assert!(stored >= 1 && stored >= seen, "{stored} trials stored");
    assert_eq!(stored, printed_trials, "printed and stored trials differ");
    assert!(
        v["warnings"]
            .as_array()
            .is_some_and(|w| w.iter().any(|s| s.as_str().unwrap_or("").contains("interrupted"))),
        "no interruption warning: {:#}",
        v["warnings"]
    );

    assert_eq!(
        listing(&sb.scratch()),
        Vec::<String>::new(),
        "scratch not cleaned up after Ctrl-C"
    );
    sb.assert_cwd_untouched();

    // --report: the page of what was measured, written after the interruption.
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}\n{all}", page.display()));
    assert!(html.contains("Run 1 — crud — interrupted"), "{all}");
    assert!(html.contains("run was interrupted: only the trials that finished are shown"));
    assert!(
        html.contains("data-chart=\"trials\""),
        "the finished trials are charted"
    );
}

#[test]
fn kill_9_leaves_a_consistent_store_with_an_abandoned_run() {
    let sb = Sandbox::new();
    let mut run = start_long_run(&sb, &[]);
    let seen = wait_for_a_trial(&sb, &mut run, &mut || {});
    run.signal(libc::SIGKILL);
    let (status, _, _) = run.finish(Duration::from_secs(30));
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGKILL), "{status:?}");

    let v = sb.show_json();
    assert_eq!(v["run"]["status"], "abandoned", "{:#}", v["run"]);
    assert!(v["run"]["finished_at"].is_null());
    let stored = v["trials"].as_array().map_or(0, Vec::len) as u64;
    assert!(
        stored >= 1 && stored >= seen,
        "{stored} trials stored, {seen} seen before the kill"
    );
    assert!(!v["summary"].as_array().is_none_or(Vec::is_empty), "no summary");

    let out = output(&mut sb.show(&["--list", "--format", "json"]));
    assert_success(&out);
    let listed = json(&out);
    assert_eq!(listed[0]["status"], "abandoned", "{listed:#}");
    assert_eq!(listed[0]["trials"], stored);

    // The store is a sound SQLite database.
    let sqlite3 = std::path::Path::new("/usr/bin/sqlite3");
    if sqlite3.is_file() {
        let out = std::process::Command::new(sqlite3)
            .arg(sb.results())
            .arg("PRAGMA integrity_check;")
            .output()
            .expect("run sqlite3");
        assert!(out.status.success(), "{}", describe(&out));
        assert_eq!(stdout(&out).trim(), "ok", "{}", describe(&out));
    } else {
        eprintln!("note: /usr/bin/sqlite3 not present; integrity_check skipped");
    }
    sb.assert_cwd_untouched();
}

/// Starts a crud run whose population alone takes minutes: 100 million rows (at a million rows
/// a second, more than the bundled SQLite manages here, still 100 s), then one trial.
fn start_huge_population(sb: &Sandbox) -> Running {
    let child = sb
        .std_command()
        .args(["run", "crud"])
        .args(HUGE_POPULATION)
        .args(["--format", "json"])
        .arg("--results")
        .arg(sb.results())
        .arg("--dir")
        .arg(sb.scratch())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start litebench");
    Running { child: Some(child) }
}

/// The template files in the run's scratch directory, with their sizes.
fn templates(sb: &Sandbox) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for run_dir in std::fs::read_dir(sb.scratch()).expect("scratch").flatten() {
        for f in std::fs::read_dir(run_dir.path()).into_iter().flatten().flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            if name.starts_with("template-") {
                out.push((name, f.metadata().map_or(0, |m| m.len())));
            }
        }
    }
    out
}

/// Waits until the template is being filled (over 1 MiB on disk).
fn wait_for_population(sb: &Sandbox, run: &mut Running) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(run.is_running(), "litebench exited before it was interrupted");
        if templates(sb).iter().any(|(_, len)| *len > 1 << 20) {
            return;
        }
        assert!(Instant::now() < deadline, "no template grew within 60 s");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Stops a run with `sig` while its template is populated: it ends within seconds (not after
/// the minutes the population would take), exit 130, the run stored as interrupted, the
/// half-filled template removed.
fn stop_during_population(sig: libc::c_int) {
    let sb = Sandbox::new();
    let mut run = start_huge_population(&sb);
    wait_for_population(&sb, &mut run);
    run.signal(sig);
    // Generous: the population checks for a stop every few hundred rows and the run then exits
    // within about a second; today's code went on populating for minutes.
    let (status, out, err) = run.finish(Duration::from_secs(30));
    let all = format!("status {status:?}\n--- stdout ---\n{out}\n--- stderr ---\n{err}");
    assert!(!err.contains("panicked"), "{all}");
    assert_eq!(status.code(), Some(130), "exit code after signal {sig}\n{all}");
    let err_lines: Vec<&str> = err.lines().filter(|l| !is_ram_warning(l)).collect();
    assert_eq!(err_lines.len(), 1, "{all}");
    assert!(
        err_lines[0].starts_with("interrupted: 0 finished trials kept as run 1 in"),
        "{all}"
    );
    let listed = json(&output(&mut sb.show(&["--list", "--format", "json"])));
    assert_eq!(listed[0]["status"], "interrupted", "{listed:#}");
    assert_eq!(listed[0]["trials"], 0, "{listed:#}");
    assert_eq!(templates(&sb), Vec::new(), "the half-filled template is left");
    assert_eq!(
        listing(&sb.scratch()),
        Vec::<String>::new(),
        "scratch not cleaned up after an interrupted population"
    );
    sb.assert_cwd_untouched();
}

#[test]
fn ctrl_c_stops_a_population_at_once() {
    stop_during_population(libc::SIGINT);
}

#[test]
fn sigterm_stops_a_population_at_once() {
    stop_during_population(libc::SIGTERM);
}

#[test]
fn sighup_stops_a_population_at_once() {
    stop_during_population(libc::SIGHUP);
}

/// A pseudo-terminal for litebench to run on: its slave side becomes the child's controlling
/// terminal; closing the master hangs it up, as closing a terminal window or losing an ssh
/// connection does (the kernel sends SIGHUP, and later writes to it fail with EIO).
struct Terminal {
    master: Option<std::fs::File>,
    slave: Option<std::fs::File>,
}

impl Terminal {
    fn open() -> Terminal {
        use std::os::fd::FromRawFd;
        let (mut master, mut slave) = (-1, -1);
        // SAFETY: openpty writes two new descriptors; the name, termios and size are optional.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both descriptors are new and owned here alone.
        let (master, slave) = unsafe { (std::fs::File::from_raw_fd(master), std::fs::File::from_raw_fd(slave)) };
        // SAFETY: fcntl on descriptors we own.
        unsafe {
            use std::os::fd::AsRawFd;
            // Not inherited: the terminal hangs up only when its last master descriptor closes.
            for fd in [master.as_raw_fd(), slave.as_raw_fd()] {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
            // Non-blocking, so draining never waits.
            libc::fcntl(master.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK);
        }
        Terminal {
            master: Some(master),
            slave: Some(slave),
        }
    }

    /// Makes `cmd` run in a new session with the terminal as stdin, stdout, stderr and
    /// controlling terminal.
    fn attach(&mut self, cmd: &mut std::process::Command) {
        use std::os::unix::process::CommandExt;
        let slave = self.slave.take().expect("slave side");
        cmd.stdin(slave.try_clone().expect("dup"))
            .stdout(slave.try_clone().expect("dup"))
            .stderr(slave);
        // SAFETY: between fork and exec only async-signal-safe calls (setsid, ioctl).
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }

    /// Reads whatever litebench has written (the progress bar), so it never blocks on a full
    /// terminal.
    fn drain(&mut self) {
        use std::io::Read;
        let mut buf = [0u8; 4096];
        if let Some(m) = self.master.as_mut() {
            while matches!(m.read(&mut buf), Ok(n) if n > 0) {}
        }
    }

    fn hang_up(&mut self) {
        self.master = None;
    }
}

#[test]
fn a_closed_terminal_ends_the_run_as_interrupted_and_cleans_up() {
    let sb = Sandbox::new();
    let mut terminal = Terminal::open();
    let mut cmd = sb.std_command();
    cmd.args([
        "run",
        "crud",
        "--param",
        "rows=1000",
        "--param",
        "duration=2s",
        "--trials",
        "50",
        "--param",
        "inserts=20",
        "--param",
        "updates=20",
        "--param",
        "deletes=20",
        "--warmup",
        "0",
        "--format",
        "json",
    ])
    .arg("--results")
    .arg(sb.results())
    .arg("--dir")
    .arg(sb.scratch());
    // No --quiet: the progress bar is drawn on the terminal until it goes away.
    terminal.attach(&mut cmd);
    let mut run = Running {
        child: Some(cmd.spawn().expect("start litebench")),
    };
    let seen = wait_for_a_trial(&sb, &mut run, &mut || terminal.drain());
    terminal.hang_up();
    let (status, _, _) = run.finish(Duration::from_secs(30));
    // Today SIGHUP killed litebench (no exit code); a panic on a failed write would be 101.
    assert_eq!(status.code(), Some(130), "{status:?}");
    let v = sb.show_json();
    assert_eq!(v["run"]["status"], "interrupted", "{:#}", v["run"]);
    let stored = v["trials"].as_array().map_or(0, Vec::len) as u64;
    assert!(stored >= seen, "{stored} trials stored, {seen} seen before the hangup");
    assert_eq!(
        listing(&sb.scratch()),
        Vec::<String>::new(),
        "scratch not cleaned up after the terminal closed"
    );
    sb.assert_cwd_untouched();
}

#[test]
fn under_nohup_a_hangup_changes_nothing() {
    let sb = Sandbox::new();
    let mut cmd = sb.std_command();
    cmd.args([
        "run",
        "crud",
        "--param",
        "rows=1000",
        "--param",
        "duration=1s",
        "--trials",
        "3",
        "--param",
        "inserts=20",
        "--param",
        "updates=20",
        "--param",
        "deletes=20",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ])
    .arg("--results")
    .arg(sb.results())
    .arg("--dir")
    .arg(sb.scratch())
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    // What `nohup` does before it runs litebench.
    // SAFETY: between fork and exec only async-signal-safe calls (signal).
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            Ok(())
        });
    }
    let mut run = Running {
        child: Some(cmd.spawn().expect("start litebench")),
    };
    wait_for_a_trial(&sb, &mut run, &mut || {});
    run.signal(libc::SIGHUP);
    let (status, out, err) = run.finish(Duration::from_secs(60));
    assert_eq!(status.code(), Some(0), "{status:?}\n{out}\n{err}");
    let v = sb.show_json();
    assert_eq!(v["run"]["status"], "complete", "{:#}", v["run"]);
    assert_eq!(v["trials"].as_array().map_or(0, Vec::len), 3);
}

/// Starts `litebench run script` on the script `text` (written into the sandbox as `name`),
/// one trial of one transaction unless `extra` says otherwise.
fn start_script(sb: &Sandbox, name: &str, text: &str, extra: &[&str]) -> Running {
    let file = sb.root().join(name);
    std::fs::write(&file, text).expect("write the script");
    let param = format!("file={}", file.display());
    let script = ["script", "--param", param.as_str(), "--trials", "1"];
    start_run(sb, &[&script[..], extra].concat())
}

/// Waits until the run is stored as running (everything before the trials is done), then
/// gives its first trial half a second to be under way.
fn wait_until_running(sb: &Sandbox, run: &mut Running) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(run.is_running(), "litebench exited before it was stopped");
        if sb.results().is_file() {
            let out = output(&mut sb.show(&["--list", "--format", "json"]));
            if out.status.success() && json(&out)[0]["status"] == "running" {
                break;
            }
        }
        assert!(Instant::now() < deadline, "the run did not start within 30 s");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    assert!(run.is_running(), "litebench exited before it was stopped");
}

/// Sends `sig` to a running script trial and checks the stop is prompt: exit 130 within 10 s
/// (today's code slept or ran on until kill -9), the run stored as interrupted.
fn stop_a_script_trial(name: &str, text: &str, sig: libc::c_int) {
    let sb = Sandbox::new();
    let mut run = start_script(&sb, name, text, &["--param", "transactions=1"]);
    wait_until_running(&sb, &mut run);
    let sent = Instant::now();
    run.signal(sig);
    let (status, out, err) = run.finish(Duration::from_secs(10));
    let all = format!("{name}, signal {sig}: status {status:?}\n--- stdout ---\n{out}\n--- stderr ---\n{err}");
    eprintln!("{name}, signal {sig}: exited {:?} after the signal", sent.elapsed());
    assert!(!err.contains("panicked"), "{all}");
    assert_eq!(status.code(), Some(130), "{all}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("interrupted: 0 finished trials kept as run 1")),
        "{all}"
    );
    assert_eq!(sb.show_json()["run"]["status"], "interrupted", "{all}");
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "{all}");
}

/// `\sleep 604800 s` (a week) ends at once on each stop signal.
#[test]
fn a_week_long_sleep_ends_on_every_stop_signal() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        stop_a_script_trial("week.sql", "\\sleep 604800 s\nSELECT 1;\n", sig);
    }
    // A variable's huge value in microseconds, too.
    stop_a_script_trial(
        "huge.sql",
        "\\set v 9223372036854775807\n\\sleep :v us\nSELECT 1;\n",
        libc::SIGINT,
    );
}

/// A runaway recursive CTE (it never ends by itself) is interrupted on SIGINT and SIGTERM.
#[test]
fn a_runaway_statement_in_a_trial_is_interrupted() {
    let runaway = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c;\n";
    for sig in [libc::SIGINT, libc::SIGTERM] {
        stop_a_script_trial("runaway.sql", runaway, sig);
    }
}

/// The processes whose parent is `pid` (from /proc).
fn children_of(pid: libc::pid_t) -> Vec<libc::pid_t> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(child) = e.file_name().to_string_lossy().parse::<libc::pid_t>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`: the command name may hold spaces and parentheses.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<libc::pid_t>().ok());
        if ppid == Some(pid) {
            out.push(child);
        }
    }
    out
}

/// Whether process `pid` still exists (a zombie counts: it is not reaped).
fn exists(pid: libc::pid_t) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Starts a 60-second script trial with three clients, two of them in processes of their own,
/// waits until both processes are under way and stops one of them (SIGSTOP); returns it,
/// and both.
fn stop_a_client_process(sb: &Sandbox, duration: &str) -> (Running, libc::pid_t, Vec<libc::pid_t>) {
    let mut run = start_script(
        sb,
        "read.sql",
        "SELECT 1;\n",
        &[
            "--param",
            &format!("duration={duration}"),
            "--clients",
            "3",
            "--client-mode",
            "processes",
        ],
    );
    wait_until_running(sb, &mut run);
    let clients = children_of(run.pid());
    assert_eq!(clients.len(), 2, "client processes: {clients:?}");
    // SAFETY: signalling a child of the litebench this test started.
    assert_eq!(unsafe { libc::kill(clients[0], libc::SIGSTOP) }, 0);
    std::thread::sleep(Duration::from_millis(300));
    (run, clients[0], clients)
}

/// A stopped client process no longer holds the driver up after a stop request: it is killed,
/// and litebench exits 130 within 10 s (today it waited until the client was resumed) with no
/// client process left behind.
#[test]
fn a_stopped_client_process_does_not_hold_up_a_stop() {
    let sb = Sandbox::new();
    let (run, stopped, clients) = stop_a_client_process(&sb, "60s");
    let sent = Instant::now();
    run.signal(libc::SIGINT);
    let (status, out, err) = run.finish(Duration::from_secs(10));
    eprintln!(
        "with client process {stopped} stopped: exited {:?} after SIGINT",
        sent.elapsed()
    );
    let all = format!("status {status:?}\n--- stdout ---\n{out}\n--- stderr ---\n{err}");
    assert!(!err.contains("panicked"), "{all}");
    assert_eq!(status.code(), Some(130), "{all}");
    assert_eq!(sb.show_json()["run"]["status"], "interrupted", "{all}");
    for pid in clients {
        assert!(!exists(pid), "client process {pid} was left behind\n{all}");
    }
}

/// A client process that sends no report fails the trial after a deadline, naming it (today
/// the driver waited for it for ever).
#[test]
fn a_client_process_without_a_report_fails_the_trial_naming_it() {
    let sb = Sandbox::new();
    let (run, stopped, clients) = stop_a_client_process(&sb, "1s");
    // The 1 s trial, then the 10 s the others' end leaves it, then the kill.
    let (status, out, err) = run.finish(Duration::from_secs(30));
    let all = format!("status {status:?}\n--- stdout ---\n{out}\n--- stderr ---\n{err}");
    assert!(!err.contains("panicked"), "{all}");
    assert_eq!(status.code(), Some(2), "{all}");
    let lines: Vec<&str> = err.lines().filter(|l| !is_ram_warning(l)).collect();
    assert_eq!(lines.len(), 1, "{all}");
    assert!(
        lines[0].starts_with("error: defaults: client ")
            && lines[0].contains(&format!("(process {stopped}) sent no report within 10 s")),
        "{all}"
    );
    for pid in clients {
        assert!(!exists(pid), "client process {pid} was left behind\n{all}");
    }
}

/// A stop signal while the plan reads the scripts (here a FIFO the test writes the script into
/// only after the signal) ends the run as every stop does: exit 130, not 143 (killed by
/// SIGTERM), nothing stored.
#[test]
fn a_stop_before_the_first_trial_exits_130() {
    let sb = Sandbox::new();
    let fifo = sb.root().join("script.sql");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let child = sb
        .std_command()
        .args(["run", "script", "--param"])
        .arg(format!("file={}", fifo.display()))
        .args(["--param", "transactions=1", "--trials", "1", "--quiet"])
        .arg("--results")
        .arg(sb.results())
        .arg("--dir")
        .arg(sb.scratch())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start litebench");
    let run = Running { child: Some(child) };
    // Opening the FIFO for writing returns once litebench has it open for reading: it is
    // reading its scripts.
    let mut writer = std::fs::OpenOptions::new()
        .write(true)
        .open(&fifo)
        .expect("open the FIFO");
    std::thread::sleep(Duration::from_millis(200));
    run.signal(libc::SIGTERM);
    std::thread::sleep(Duration::from_millis(200));
    std::io::Write::write_all(&mut writer, b"SELECT 1;\n").expect("write the script");
    drop(writer);
    let (status, out, err) = run.finish(Duration::from_secs(10));
    let all = format!("status {status:?}\n--- stdout ---\n{out}\n--- stderr ---\n{err}");
    assert_eq!(status.code(), Some(130), "{all}");
    assert_eq!(
        err.trim_end(),
        "interrupted before the first trial: nothing was measured or stored",
        "{all}"
    );
    assert!(!sb.results().exists(), "a results store was created\n{all}");
}
