//! `litebench qualify --dir D`: whether SQLite can run in a directory, in which journal modes,
//! and how fast it commits there ([`crate::testbed::qualify`] probes; this file asks and prints).
//! With `--guest`, inside a user-mode Linux guest on the directory as hostfs shows it
//! ([`crate::bench::guest_qualify`]).

use crate::app::cli::QualifyArgs;
use crate::base::Failure;
use crate::report::format::{render, Document};
use crate::testbed::qualify::verdict::{self, Safety, SAFE_WHY};
use crate::testbed::qualify::{self, check::Check, Qualification};
use std::path::PathBuf;

/// Qualifies the directory and prints the verdicts first. Exit code 0 whatever they are (the
/// JSON carries them for scripts); 2 when nothing could be probed.
pub fn run(args: &QualifyArgs) -> Result<i32, Failure> {
    let dir = args.dir.value.clone().unwrap_or_else(|| PathBuf::from("."));
    if !dir.is_dir() {
        let what = if dir.exists() {
            "not a directory"
        } else {
            "no such directory"
        };
        return Err(Failure(format!(
            "--dir {}: {what}; give an existing directory",
            dir.display()
        )));
    }
    if args.guest {
        let memory = crate::base::bytesize::whole(&args.guest_memory)
            .filter(|b| *b >= 128 << 20)
            .ok_or_else(|| {
                Failure(format!(
                    "--guest-memory {}: give a size of at least 128M, e.g. 512M",
                    args.guest_memory
                ))
            })?;
        use clap::ValueEnum;
        let format = args
            .format
            .value
            .to_possible_value()
            .map(|v| v.get_name().to_string())
            .unwrap_or_else(|| "table".into());
        return crate::bench::guest_qualify::qualify(&dir, memory, &format);
    }
    let program = std::env::current_exe().map_err(|e| {
        Failure(format!(
            "cannot find litebench's own executable to start a second process: {e}"
        ))
    })?;
    // Ctrl-C stops between probes, and the directory is still emptied.
    crate::sys::signals::stop_flag()?;
    let q = match qualify::qualify(&dir, &program, args.across_host.as_deref()) {
        Ok(q) => q,
        Err(qualify::QualifyError::Interrupted) => {
            crate::errln!("qualify --dir {}: interrupted", dir.display());
            return Ok(crate::sys::signals::EXIT_INTERRUPTED);
        }
        Err(e) => return Err(Failure(format!("--dir {}: {e}", dir.display()))),
    };
    crate::out!("{}", render(&document(&q), args.format.value));
    Ok(0)
}

/// Why each verdict that is not safe, a line each, then why the safe ones are, once, and the
/// notes: all of it right under the verdicts.
fn whys(q: &Qualification) -> String {
    let mut out = String::new();
    // Inside the guest, whether locks cross hostfs: once, as the verdict's first line, and
    // not again in each mode's reason.
    let across = q.across_hostfs.as_ref().map(|a| verdict::across_hostfs(a).1);
    if let Some(line) = &across {
        out += &format!("{line}\n");
    }
    for v in q.verdicts.iter().filter(|v| v.verdict != Safety::Safe) {
        let why = across
            .as_deref()
            .and_then(|line| v.why.strip_prefix(line))
            .map_or(v.why.as_str(), |rest| rest.trim_start_matches("; "));
        if !why.is_empty() {
            out += &format!("- {}: {why}\n", v.mode);
        }
    }
    if q.verdicts.iter().any(|v| v.verdict == Safety::Safe) {
        out += &format!("- safe: {SAFE_WHY}\n");
    }
    for n in &q.notes {
        out += &format!("note: {n}\n");
    }
    out
}

/// What the storage is, in one line.
fn storage_line(q: &Qualification) -> String {
    let s = &q.environment.storage;
    let fs = s.fs_type.as_deref().unwrap_or("an unknown filesystem");
    let source = s.mount_source.as_deref().unwrap_or("?");
    let mount = s.mount_point.as_ref().map_or("?".into(), |m| m.display().to_string());
    let device = s.device.as_ref().map_or(String::new(), |d| {
        let model = d.model.as_deref().map_or(String::new(), |m| format!(", {m}"));
        format!(" (device {}{model})", d.name)
    });
    format!("{}: {fs} from {source} mounted on {mount}{device}", s.dir.display())
}

fn micros(us: f64) -> String {
    if us >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.0} µs")
    }
}

fn rate(r: f64) -> String {
    format!("{r:.0}")
}

fn document(q: &Qualification) -> Document {
    let verdicts: Vec<Vec<String>> = q
        .verdicts
        .iter()
        .map(|v| {
            vec![
                v.mode.to_string(),
                v.between_processes.word().into(),
                v.after_power_loss.word().into(),
                v.verdict.word().into(),
            ]
        })
        .collect();
    let whys = whys(q);
    let sync = q.sync_latency.as_ref().map_or("fdatasync not measured".into(), |s| {
        format!(
            "fdatasync of 4 KiB: median {}, p99 {} over {} syncs",
            micros(s.median_us),
            micros(s.p99_us),
            s.samples
        )
    });
    let commits: Vec<Vec<String>> = q
        .commits
        .iter()
        .map(|c| {
            vec![
                c.journal_mode.clone(),
                c.synchronous.clone(),
                match c.failed {
                    Some(_) => "-".into(),
                    None => format!("{:.1}", c.syncs_per_commit + c.dir_syncs_per_commit),
                },
                c.expected_per_s.map_or("no sync".into(), rate),
                c.failed.clone().unwrap_or_else(|| rate(c.measured_per_s)),
            ]
        })
        .collect();
    Document::new(q)
        .text(format!(
            "qualify {}\n{} s; each probe in a directory of its own, removed after\n\n",
            storage_line(q),
            format_args!("{:.1}", q.seconds)
        ))
        .heading("verdict per journal mode")
        .table(
            "verdicts",
            &["journal mode", "processes", "power loss", "verdict"],
            verdicts,
        )
        .text(format!("{whys}\n"))
        .heading("commits per second, one-row insert each")
        .text(format!(
            "{sync}; sync-bound: the rate if a commit took only its syncs (counted)\n"
        ))
        .table(
            "commits",
            &[
                "journal_mode",
                "synchronous",
                "syncs/commit",
                "sync-bound/s",
                "measured/s",
            ],
            commits,
        )
        .text("\n")
        .heading("what was probed")
        .table("checks", &["check", "result", "what was seen"], check_rows(q))
}

fn check_rows(q: &Qualification) -> Vec<Vec<String>> {
    let row = |name: &str, c: &Check| vec![name.to_string(), c.word().to_string(), c.detail().to_string()];
    let f = &q.files;
    let mut rows = vec![
        row("posix lock taken", &q.posix_locks.taken),
        row("posix lock conflicts", &q.posix_locks.conflicts),
        row("posix lock freed on close", &q.posix_locks.released_on_close),
        row("ofd lock conflicts", &q.ofd_locks.conflicts),
        row("shared mapping (-shm)", &q.shared_memory),
        row("sqlite writer blocks writer", &q.sqlite.writer_blocks_writer),
        row("sqlite wal reader sees commits", &q.sqlite.wal_reader_sees_commits),
        row("sqlite wal, exclusive locking", &q.sqlite.wal_exclusive_works),
        row("rename replaces atomically", &f.rename_atomic),
        row("directory fsync", &f.dir_fsync),
        row("O_DIRECT", &f.o_direct),
        row("fallocate", &f.fallocate),
    ];
    if let Some(a) = &q.across_hostfs {
        rows.push(row("host lock seen in guest", &a.host_lock_seen_in_guest));
        rows.push(row("guest lock seen on host", &a.guest_lock_seen_on_host));
    }
    rows
}

#[cfg(test)]
mod tests {
    #[test]
    fn micros_switch_to_milliseconds_at_one() {
        assert_eq!(super::micros(250.4), "250 µs");
        assert_eq!(super::micros(4120.0), "4.12 ms");
    }
}
