//! Whether a run the store still calls `running` is running, abandoned, or cannot be told.
//!
//! A run that was killed (`kill -9`, power loss) never gets to mark itself finished, so its row
//! keeps saying `running`. A process id alone cannot settle that: on another machine it names
//! some unrelated process, and after a reboot it may name a new one. So a run records the host
//! name and the kernel's boot id beside its pid, and it is called `abandoned` only where that
//! can be known: on the same host, and either in the same boot with its process gone, or in a
//! later boot (no process survives a reboot). Anywhere else it stays `running`, saying why its
//! state is unknown here.

/// Where a run's process lives, as stored with the run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// `None` for runs stored before hosts were recorded (schema 0).
    pub host: Option<String>,
    pub boot_id: Option<String>,
    pub pid: i64,
}

/// This machine: host name and boot id, `None` where they cannot be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Here {
    pub host: Option<String>,
    pub boot_id: Option<String>,
}

impl Here {
    /// The machine this process runs on.
    pub fn current() -> Here {
        Here {
            host: host_name(),
            boot_id: crate::sys::owner::boot_id(),
        }
    }
}

/// The host name (`gethostname`), `None` if it cannot be read or is empty.
pub fn host_name() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: buf is writable for its length; gethostname NUL-terminates when the name fits.
    if unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0)?;
    let name = String::from_utf8_lossy(&buf[..end]).trim().to_string();
    (!name.is_empty()).then_some(name)
}

/// Whether process `pid` exists on this machine.
pub fn process_alive(pid: i64) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    pid > 0
        && (unsafe { libc::kill(pid as libc::pid_t, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
}

/// The status to show for a stored run: `stored` itself, unless it is `running`.
pub fn status(stored: &str, origin: &Origin, here: &Here, alive: impl Fn(i64) -> bool) -> String {
    if stored != "running" {
        return stored.to_string();
    }
    let Some(host) = origin.host.as_deref() else {
        return "running (host not recorded by the litebench that started it; status unknown here)".into();
    };
    if here.host.as_deref() != Some(host) {
        return format!("running (on host {host}, status unknown here)");
    }
    match (origin.boot_id.as_deref(), here.boot_id.as_deref()) {
        (Some(then), Some(now)) if then != now => "abandoned".into(),
        (Some(_), Some(_)) if !alive(origin.pid) => "abandoned".into(),
        (Some(_), Some(_)) => "running".into(),
        _ => "running (no boot id to tell whether this host rebooted; status unknown here)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn here() -> Here {
        Here {
            host: Some("lab1".into()),
            boot_id: Some("b-now".into()),
        }
    }

    fn origin(host: Option<&str>, boot: Option<&str>) -> Origin {
        Origin {
            host: host.map(String::from),
            boot_id: boot.map(String::from),
            pid: 4242,
        }
    }

    #[test]
    fn finished_runs_keep_their_status() {
        for s in ["complete", "interrupted", "failed"] {
            assert_eq!(status(s, &Origin::default(), &here(), |_| false), s);
        }
    }

    #[test]
    fn same_host_same_boot_follows_the_process() {
        let o = origin(Some("lab1"), Some("b-now"));
        assert_eq!(status("running", &o, &here(), |_| true), "running");
        assert_eq!(status("running", &o, &here(), |_| false), "abandoned");
    }

    #[test]
    fn same_host_after_a_reboot_is_abandoned_whatever_the_pid() {
        let o = origin(Some("lab1"), Some("b-before"));
        assert_eq!(status("running", &o, &here(), |_| true), "abandoned");
    }

    #[test]
    fn another_host_is_never_abandoned() {
        let o = origin(Some("lab2"), Some("b-now"));
        for alive in [true, false] {
            let s = status("running", &o, &here(), |_| alive);
            assert_eq!(s, "running (on host lab2, status unknown here)");
        }
    }

    #[test]
    fn unknowns_are_not_abandoned() {
        let s = status("running", &origin(None, None), &here(), |_| false);
        assert!(s.starts_with("running (host not recorded"), "{s}");
        let s = status("running", &origin(Some("lab1"), None), &here(), |_| false);
        assert!(s.starts_with("running (no boot id"), "{s}");
        let blind = Here {
            host: Some("lab1".into()),
            boot_id: None,
        };
        let s = status("running", &origin(Some("lab1"), Some("b-now")), &blind, |_| false);
        assert!(s.starts_with("running (no boot id"), "{s}");
        let nameless = Here::default();
        let s = status("running", &origin(Some("lab1"), Some("b-now")), &nameless, |_| false);
        assert_eq!(s, "running (on host lab1, status unknown here)");
    }

    #[test]
    fn this_machine_and_this_process() {
        let h = Here::current();
        assert!(h.host.is_some(), "gethostname failed");
        if std::path::Path::new("/proc/sys/kernel/random/boot_id").exists() {
            assert_eq!(h.boot_id.as_deref().map(str::len), Some(36), "{h:?}");
        }
        assert!(process_alive(i64::from(std::process::id())));
        assert!(!process_alive(0));
        assert!(!process_alive(-1));
    }
}
