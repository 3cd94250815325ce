//! The peer's side of `qualify`'s second process ([`super::peer`]): requests answered from
//! standard input, with what they opened held until `release`.

use super::locks::{self, LockKind};
use super::shm::SharedMap;
use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::engines::{Connection, ErrorKind};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

/// What the peer holds between requests.
#[derive(Default)]
struct Held {
    files: Vec<File>,
    maps: Vec<SharedMap>,
    conns: BTreeMap<PathBuf, SqliteConn>,
}

/// The peer's side: answers requests from standard input until it ends. Exit code 0.
pub fn serve() -> i32 {
    let mut held = Held::default();
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split('\t').collect();
        let answer = answer(&words, &mut held).replace('\n', " ");
        if writeln!(out, "{answer}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
    0
}

fn answer(words: &[&str], held: &mut Held) -> String {
    match words {
        ["lock", kind, path] => match (LockKind::parse(kind), open_rw(path)) {
            (None, _) => format!("error: no lock kind {kind}"),
            (_, Err(e)) => format!("failed {e}"),
            (Some(kind), Ok(f)) => {
                let attempt = locks::try_write_lock(&f, kind);
                held.files.push(f);
                attempt.word()
            }
        },
        ["map-read", path, offset] => with_map(path, offset, held, |m, at| format!("{:x}", m.read(at))),
        ["map-write", path, offset, value] => match u64::from_str_radix(value, 16) {
            Ok(v) => with_map(path, offset, held, |m, at| {
                m.write(at, v);
                "ok".into()
            }),
            Err(e) => format!("error: value {value}: {e}"),
        },
        ["sql", path, sql] => run_sql(Path::new(path), sql, held),
        ["watch", path, millis] => match millis.parse::<u64>() {
            Ok(ms) => super::files::watch(Path::new(path), std::time::Duration::from_millis(ms)).words(),
            Err(e) => format!("error: millis {millis}: {e}"),
        },
        ["release"] => {
            *held = Held::default();
            "ok".into()
        }
        _ => format!("error: unknown request {:?}", words.join(" ")),
    }
}

fn open_rw(path: &str) -> io::Result<File> {
    File::options().read(true).write(true).open(path)
}

fn with_map(path: &str, offset: &str, held: &mut Held, f: impl FnOnce(&SharedMap, usize) -> String) -> String {
    let Ok(at) = offset.parse::<usize>() else {
        return format!("error: offset {offset}");
    };
    match SharedMap::open(Path::new(path)) {
        Ok(m) => {
            let said = f(&m, at);
            held.maps.push(m);
            said
        }
        Err(e) => format!("failed mmap: {e}"),
    }
}

/// Runs `sql` on the peer's connection to `path` (opened at the first request, with no busy
/// timeout, so a lock shows at once): `ok`, the first value of the first row, `busy MESSAGE`
/// or `error MESSAGE`.
fn run_sql(path: &Path, sql: &str, held: &mut Held) -> String {
    if !held.conns.contains_key(path) {
        match SqliteConn::open(Api::bundled(), path, None, "qualify-peer") {
            Ok(c) => {
                held.conns.insert(path.to_path_buf(), c);
            }
            Err(e) => return format!("error {}", e.message),
        }
    }
    let conn = held.conns.get_mut(path).expect("opened above");
    match conn.query(sql) {
        Ok(rows) => match rows.first().and_then(|r| r.first()) {
            Some(Some(v)) => v.clone(),
            Some(None) => "null".into(),
            None => "ok".into(),
        },
        Err(e) if e.kind == ErrorKind::Busy => format!("busy {}", e.message),
        Err(e) => format!("error {}", e.message),
    }
}
