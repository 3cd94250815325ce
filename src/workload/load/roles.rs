//! A trial driven as a cast ([`crate::model::cast`]): every role's clients on threads of their
//! own, or in processes of their own (a role's `mode = "processes"`: started through the
//! trial's connector, as `--client-mode processes` starts them), each on a connection with the
//! role's knobs, all sent off at the common start; holds and checkpoints beside them on their
//! schedules until the workload roles end.
//!
//! A workload role through a driver process (its own `driver`, or the configuration's) runs
//! each client as a driver process fed from a thread here ([`super::driven::role_client`]),
//! sent off at the same common start. A workload role's clients otherwise run the driver's own client loop with the role's load shape and
//! parameters, recording the workload's operation types in a recorder of their own (a client
//! process sends the same in its report); the role's recorders and series cells go back into the trial's at the role's `ROLE:OP` types, so every
//! per-operation statistic is per role. The trial's own connection runs nothing: every role's
//! connection is configured like it, with the role's knobs over the configuration's.
//!
//! A hold begins a transaction and reads the schema, which takes its snapshot (in WAL mode, a
//! read mark that keeps a checkpoint from resetting the WAL past it), keeps it for the
//! schedule's `for`, then commits. A checkpoint runs `PRAGMA wal_checkpoint(MODE)` and keeps
//! its row and its duration. A vacuum runs `VACUUM` or `PRAGMA incremental_vacuum(N)` and keeps
//! its duration and the database's pages, free pages and file size before and after it. A backup
//! runs `VACUUM INTO` a file it makes in the trial's scratch directory, measures it and removes
//! it (only a file that did not exist before it ran: litebench never overwrites one it did not
//! make, nor writes through a symbolic link). A sidecar runs its command beside them (`load::sidecar`).

use super::shared_connection::SharedConnection;
use super::{
    first_error, panicked, record_series_and_interval, thread_client, wait_until, Buckets, RoleSeat, Shared,
    ThreadConnection, Transactions,
};
use crate::engines::{Connection, ErrorKind};
use crate::model::cast::{
    Backup, BeforeAfter, Cast, CastEvents, Checkpoint, CheckpointMode, Hold, HoldQuery, QueryRun, Role, RoleKind,
    Vacuum, VacuumMode,
};
use crate::model::load::{ClientMode, Connections, LoadShape};
use crate::model::params::Params;
use crate::workload::recorder::Recorder;
use crate::workload::remote::RemoteClient;
use crate::workload::{Trial, WorkloadError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// One workload role as the driver plays it: its load shape and parameters (the trial's with
/// the role's own over them), where its `ROLE:OP` types start in the trial's recorder, and the
/// index over all roles' clients of its first client (each client's seed comes from it).
struct Play<'r> {
    role: &'r Role,
    shape: LoadShape,
    params: Params,
    offset: usize,
    /// How many of the trial's types are its own (roles running different scripts have
    /// different types).
    types: usize,
    first: u32,
    /// Its clients run through a driver process: the role's own `driver`, or else the
    /// configuration's ([`super::driven::role_client`]).
    driven: bool,
}

fn plays<'r>(cast: &'r Cast, trial: &Trial<'_>, names: &[&str]) -> Vec<Play<'r>> {
    let mut first = 0;
    // Each role's `ROLE:OP` types follow the role before's, in the cast's order.
    let mut offset = 0;
    cast.workload_roles()
        .map(|role| {
            let prefix = format!("{}:", role.name);
            let types = names[offset.min(names.len())..]
                .iter()
                .take_while(|n| n.starts_with(&prefix))
                .count();
            let mut params = trial.params.clone();
            params.0.extend(role.params.0.clone());
            let play = Play {
                role,
                shape: LoadShape {
                    clients: role.clients,
                    rate: role.rate,
                    arrival: role.arrival,
                    client_mode: role.mode,
                    cast: None,
                    windows: (!role.schedule.is_always()).then_some(role.schedule),
                    ..trial.load.clone()
                },
                params,
                offset,
                types,
                first,
                driven: match role.driver() {
                    Some(d) => d != crate::model::driver::RUST,
                    None => trial.connector.driver().is_some(),
                },
            };
            first += role.clients;
            offset += types;
            play
        })
        .collect()
}

impl Play<'_> {
    fn processes(&self) -> bool {
        self.role.mode == ClientMode::Processes
    }

    /// Client `index`'s own seed: the same as it would have on a thread or in a process.
    fn seed(&self, trial: &Trial<'_>, index: u32) -> u64 {
        super::client_seed(trial.seed, self.first + index)
    }
}

type Remotes = Vec<Box<dyn RemoteClient>>;

/// Every client of the roles that run as processes, started and ready (their operation types'
/// offsets beside them); those already started are stopped if one cannot start.
fn spawn_processes(trial: &Trial<'_>, plays: &[Play<'_>]) -> Result<(Vec<usize>, Remotes), WorkloadError> {
    let (mut offsets, mut remotes) = (Vec::new(), Vec::<Box<dyn RemoteClient>>::new());
    for play in plays.iter().filter(|p| p.processes()) {
        for index in 0..play.role.clients {
            // The process derives its seed from the trial's and its index, as a client of a
            // plain run does; it is given the trial seed that derives to its own.
            let seed = super::trial_seed(play.seed(trial, index), index);
            match trial.connector.spawn(index, seed, &play.shape, Some(play.role)) {
                Ok(r) => {
                    offsets.push(play.offset);
                    remotes.push(r);
                }
                Err(e) => {
                    remotes.iter().for_each(|r| r.stop());
                    return Err(e);
                }
            }
        }
    }
    Ok((offsets, remotes))
}

/// Runs one trial of `tx` as `cast` (see the module's documentation).
pub(super) fn drive(
    _conn: &mut dyn Connection,
    tx: &dyn Transactions,
    trial: &Trial<'_>,
    rec: &mut Recorder,
    cast: &Cast,
) -> Result<(), WorkloadError> {
    let shape = trial.load;
    let names = rec.op_names();
    let plays = plays(cast, trial, &names);
    // A role with `connections = "shared"`: its one connection, opened here with the role's
    // knobs, then lent to each of its clients ([`super::shared_connection`]).
    let mut opened: Vec<Option<Box<dyn Connection>>> = Vec::new();
    for play in &plays {
        opened.push(match play.role.connections {
            Connections::Shared => Some(trial.connector.open_with(&play.role.knobs)?),
            Connections::PerClient => None,
        });
    }
    let _interrupted_on_stop: Vec<_> = opened
        .iter()
        .flatten()
        .filter_map(|c| trial.watch.map(|w| w.register(c.as_ref())))
        .collect();
    let mut ones = Vec::new();
    for c in opened.iter_mut() {
        ones.push(match c {
            Some(c) => Some(SharedConnection::new(c.as_mut())?),
            None => None,
        });
    }
    // Client processes are started, and ready, before the threads' clients prepare; the gate
    // sends them off at the common start, which this thread then also waits for.
    let (offsets, remotes) = spawn_processes(trial, &plays)?;
    let go = || remotes.iter().all(|r| r.go());
    let threads: u32 = plays.iter().filter(|p| !p.processes()).map(|p| p.role.clients).sum();
    let meets = threads + u32::from(!remotes.is_empty());
    let shared = Shared::new(
        trial,
        tx,
        meets,
        (!remotes.is_empty()).then_some(&go as &(dyn Fn() -> bool + Sync)),
    );
    let interval = Duration::from_millis(shape.interval_ms.max(1));
    let mut series = Buckets::new(interval, names.len());
    let counters = rec.counters();
    let clients_done = AtomicBool::new(false);
    let mut events = CastEvents::default();
    let mut more_io = Vec::new();
    let results = std::thread::scope(|scope| {
        let sampler = super::spawn_sampler(
            scope,
            &shared,
            trial,
            counters.clone(),
            &clients_done,
            !remotes.is_empty(),
        );
        let beside = spawn_beside(scope, cast, trial, &shared, &clients_done);
        let readers = super::read_reports(scope, &remotes, &shared);
        let mut handles = Vec::new();
        for (play, one) in plays.iter().zip(&ones).filter(|(p, _)| !p.processes()) {
            for index in 0..play.role.clients {
                // Each client attributes its own thread's I/O (counted per thread at the VFS
                // shim) to its role's operations.
                let own = rec.part(play.offset, play.types);
                let buckets = Buckets::new(interval, play.types);
                let shared = &shared;
                let one = one.as_ref();
                handles.push(match play.driven {
                    true => scope.spawn(move || driven_client(tx, trial, shared, play, index, own, buckets)),
                    false => scope.spawn(move || client(tx, trial, shared, (play, one), index, own, buckets)),
                });
            }
        }
        if !remotes.is_empty() {
            processes_run(&shared);
        }
        let mut results = Vec::new();
        for h in handles {
            match h.join() {
                Ok((offset, result, own, buckets)) => {
                    rec.absorb_at(own, offset);
                    series.absorb_at(buckets, offset);
                    results.push(result);
                }
                Err(_) => results.push(Err(panicked())),
            }
        }
        if shared.halted() {
            remotes.iter().for_each(|r| r.stop());
        }
        super::supervise(&remotes, &readers, &shared);
        for (h, offset) in readers.into_iter().zip(&offsets) {
            results.push(match h.join() {
                Ok(report) => report.map(|r| super::absorb_report(r, *offset, rec, &mut series, &mut more_io, &shared)),
                Err(_) => Err(panicked()),
            });
        }
        clients_done.store(true, Ordering::Relaxed);
        for h in beside {
            match h.join() {
                Ok(Ok(e)) => events.absorb(e),
                Ok(Err(e)) => results.push(Err(e)),
                Err(_) => results.push(Err(panicked())),
            }
        }
        if let Some(Ok(marks)) = sampler.map(|s| s.join()) {
            series.io = marks.io;
            series.files = marks.files;
        }
        results
    });
    first_error(results)?;
    if !events.is_empty() {
        rec.set_cast_events(events);
    }
    record_series_and_interval(rec, &shared, series, &names, more_io);
    Ok(())
}

/// This thread's part for the client processes: it meets the threads at the common start for
/// them, then stands for their loops until the trial's planned end, while the sampler reads
/// the database's files (ended at once, a cast of process roles only read its WAL once, at
/// the start, and judged nothing).
fn processes_run(shared: &Shared<'_>) {
    shared.rendezvous(true);
    if let (super::Budget::Time(d), Some(s)) = (shared.budget, shared.start.get()) {
        wait_while(*s + shared.warmup + d, shared, &AtomicBool::new(false));
    }
    shared.loop_ended();
}

/// The roles beside the workload's, each on a thread of its own from the common start until
/// the workload roles end: holds and checkpoints ([`act`]) and sidecars.
fn spawn_beside<'s, 'e>(
    scope: &'s std::thread::Scope<'s, 'e>,
    cast: &'e Cast,
    trial: &'e Trial<'e>,
    shared: &'e Shared<'e>,
    done: &'e AtomicBool,
) -> Vec<std::thread::ScopedJoinHandle<'s, Result<CastEvents, WorkloadError>>> {
    cast.roles
        .iter()
        .filter(|r| r.kind != RoleKind::Workload)
        .map(|role| {
            if role.kind == RoleKind::Sidecar {
                let file = cast.file.as_str();
                return scope.spawn(move || super::sidecar::run(role, file, trial, shared, done));
            }
            scope.spawn(move || act(role, trial, shared, done))
        })
        .collect()
}

/// Client `index` of a role that runs on threads: on a connection with the role's knobs, its
/// loop with the role's shape, parameters and seed; what it recorded, at its role's offset.
fn client(
    tx: &dyn Transactions,
    trial: &Trial<'_>,
    shared: &Shared<'_>,
    (play, one): (&Play<'_>, Option<&SharedConnection<'_>>),
    index: u32,
    mut own: Recorder,
    mut buckets: Buckets,
) -> (usize, Result<(), WorkloadError>, Recorder, Buckets) {
    let role = RoleSeat {
        shape: &play.shape,
        params: &play.params,
        seed: play.seed(trial, index),
    };
    let conn = match one {
        Some(one) => ThreadConnection::Lent(one),
        None => ThreadConnection::Own(Some(&play.role.knobs)),
    };
    let result = thread_client(tx, trial, shared, (index, Some(role)), conn, &mut own, &mut buckets);
    (play.offset, result, own, buckets)
}

/// Client `index` of a role that runs through a driver: a driver process with the role's
/// knobs, fed from this thread ([`super::driven::role_client`]).
fn driven_client(
    tx: &dyn Transactions,
    trial: &Trial<'_>,
    shared: &Shared<'_>,
    play: &Play<'_>,
    index: u32,
    mut own: Recorder,
    mut buckets: Buckets,
) -> (usize, Result<(), WorkloadError>, Recorder, Buckets) {
    let seat = super::driven::Seat {
        index,
        clients: play.role.clients,
        solo: false,
        shape: &play.shape,
        params: &play.params,
        seed: play.seed(trial, index),
        role: Some(play.role),
    };
    let result = super::driven::role_client(tx, trial, shared, &seat, &mut own, &mut buckets);
    (play.offset, result, own, buckets)
}

/// A hold or checkpoint role, on its own connection, from the common start until the workload
/// roles end (or the trial's time, or a stop): what it did, milliseconds after the measured
/// start.
fn act(role: &Role, trial: &Trial<'_>, shared: &Shared<'_>, done: &AtomicBool) -> Result<CastEvents, WorkloadError> {
    let mut conn = trial.connector.open_with(&role.knobs)?;
    let _interrupted_on_stop = trial.watch.map(|w| w.register(conn.as_ref()));
    let mut events = CastEvents::default();
    let start = loop {
        if let Some(s) = shared.start.get() {
            break *s + shared.warmup;
        }
        if done.load(Ordering::Relaxed) || shared.halted() {
            return Ok(events);
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    let end = match shared.budget {
        super::Budget::Time(d) => d,
        _ => crate::model::params::MAX_DURATION,
    };
    let ms = |t: Instant| t.saturating_duration_since(start).as_millis() as u64;
    let over = || done.load(Ordering::Relaxed) || shared.halted();
    for at in role.schedule.starts(end) {
        wait_while(start + at, shared, done);
        if over() {
            break;
        }
        match role.kind {
            RoleKind::Hold => {
                let hold_for = role.schedule.hold_for.unwrap_or_default();
                let until = start + at + hold_for;
                if let Some(h) = hold(conn.as_mut(), role.query.as_ref(), until, shared, done)? {
                    events.holds.push(Hold {
                        role: role.name.clone(),
                        start_ms: ms(h.began),
                        end_ms: ms(h.ended),
                        query: h.query,
                    });
                }
            }
            RoleKind::Checkpoint(mode) => {
                let c = checkpoint(conn.as_mut(), mode, shared)?;
                events.checkpoints.push(Checkpoint {
                    role: role.name.clone(),
                    t_ms: ms(c.0),
                    ..c.1
                });
            }
            RoleKind::Vacuum(mode) => {
                let db = trial.place.map(|p| p.db);
                let v = vacuum(conn.as_mut(), mode, db, shared)?;
                events.vacuums.push(Vacuum {
                    role: role.name.clone(),
                    t_ms: ms(v.0),
                    ..v.1
                });
            }
            RoleKind::Backup => {
                let b = backup(conn.as_mut(), role, trial.place, shared, &over)?;
                events.backups.push(Backup { t_ms: ms(b.0), ..b.1 });
            }
            RoleKind::Workload => unreachable!("workload roles run the client loop"),
            RoleKind::Sidecar => unreachable!("a sidecar runs in load::sidecar"),
        }
    }
    Ok(events)
}

/// Waits until `t`, or until the workload roles end or the trial stops.
pub(super) fn wait_while(t: Instant, shared: &Shared<'_>, done: &AtomicBool) {
    while Instant::now() < t && !done.load(Ordering::Relaxed) && !shared.halted() {
        wait_until(t.min(Instant::now() + Duration::from_millis(20)), shared.stop);
    }
}

/// What one hold did: when its snapshot was taken and let go, and its report query's run.
struct Held {
    began: Instant,
    ended: Instant,
    query: Option<QueryRun>,
}

/// One hold: BEGIN, a read that takes the snapshot (the role's report query, timed with every
/// row read, or a generic one), kept until `until` (or the trial's end; a query that runs past
/// it is not cut short), then COMMIT. None when a lock kept it from starting.
fn hold(
    conn: &mut dyn Connection,
    query: Option<&HoldQuery>,
    until: Instant,
    shared: &Shared<'_>,
    done: &AtomicBool,
) -> Result<Option<Held>, WorkloadError> {
    let began = Instant::now();
    let read = conn.execute_batch("BEGIN").and_then(|()| match query {
        Some(q) => q
            .statements
            .iter()
            .try_fold(0u64, |rows, sql| Ok(rows + conn.query(sql)?.len() as u64))
            .map(|rows| {
                Some(QueryRun {
                    duration_us: began.elapsed().as_micros() as u64,
                    rows,
                })
            }),
        None => conn.query("SELECT count(*) FROM sqlite_schema").map(|_| None),
    });
    let query = match read {
        Ok(q) => q,
        Err(e) if e.kind == ErrorKind::Busy => {
            let _ = conn.execute_batch("ROLLBACK");
            return Ok(None);
        }
        Err(mut e) => {
            if let Some(q) = query {
                e.context = format!("the hold's query = \"{}\"", q.file);
            }
            return Err(shared.failed(e));
        }
    };
    // A generic read takes the snapshot at once; a report's is held from its first statement.
    let began = if query.is_some() { began } else { Instant::now() };
    wait_while(until, shared, done);
    let ended = Instant::now();
    conn.execute_batch("COMMIT").map_err(|e| shared.failed(e))?;
    Ok(Some(Held { began, ended, query }))
}

/// One `PRAGMA wal_checkpoint(MODE)`: when it started, and its row and duration (a checkpoint
/// refused with SQLITE_BUSY counts as busy, with no frames).
fn checkpoint(
    conn: &mut dyn Connection,
    mode: CheckpointMode,
    shared: &Shared<'_>,
) -> Result<(Instant, Checkpoint), WorkloadError> {
    let t0 = Instant::now();
    let rows = conn.query(&format!("PRAGMA wal_checkpoint({})", mode.name()));
    let duration_us = t0.elapsed().as_micros() as u64;
    let number = |row: &[Option<String>], i: usize| {
        row.get(i)
            .and_then(|v| v.as_deref())
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(-1)
    };
    let (busy, log_frames, checkpointed_frames) = match rows {
        Ok(rows) => {
            let row = rows.first().map(Vec::as_slice).unwrap_or(&[]);
            (number(row, 0) != 0, number(row, 1), number(row, 2))
        }
        Err(e) if e.kind == ErrorKind::Busy => (true, -1, -1),
        Err(e) => return Err(shared.failed(e)),
    };
    Ok((
        t0,
        Checkpoint {
            role: String::new(),
            t_ms: 0,
            busy,
            log_frames,
            checkpointed_frames,
            duration_us,
        },
    ))
}

/// One vacuum: when it started, its duration (a wait for the write lock included), and the
/// database's pages, free pages and main file's bytes before and after it (`db`: the file,
/// where the trial has one); a vacuum refused with SQLITE_BUSY counts as busy.
///
/// An incremental vacuum runs in a write transaction of its own (`BEGIN IMMEDIATE`), its
/// "before" read once the lock is held: read before the wait, it counted another role's vacuum
/// that ran meanwhile as this one's. A full `VACUUM` cannot run inside a transaction.
fn vacuum(
    conn: &mut dyn Connection,
    mode: VacuumMode,
    db: Option<&std::path::Path>,
    shared: &Shared<'_>,
) -> Result<(Instant, Vacuum), WorkloadError> {
    let bytes = || db.and_then(|p| std::fs::metadata(p).ok()).map_or(0, |m| m.len());
    let read = |conn: &mut dyn Connection| (pragma(conn, "page_count"), pragma(conn, "freelist_count"), bytes());
    let own_transaction = matches!(mode, VacuumMode::Incremental { .. });
    let t0 = Instant::now();
    let mut before = None;
    let ran = (|| {
        if own_transaction {
            conn.execute_batch("BEGIN IMMEDIATE")?;
        }
        before = Some(read(conn));
        // `query` steps the statement to its end: an incremental vacuum frees its pages as it
        // is stepped.
        let vacuumed = conn.query(&mode.sql()).map(drop);
        match (own_transaction, vacuumed) {
            (true, Ok(())) => conn.execute_batch("COMMIT"),
            (true, Err(e)) => {
                let _ = conn.execute_batch("ROLLBACK");
                Err(e)
            }
            (false, done) => done,
        }
    })();
    let duration_us = t0.elapsed().as_micros() as u64;
    let busy = match ran {
        Ok(()) => false,
        Err(e) if matches!(e.kind, ErrorKind::Busy) => true,
        Err(e) => return Err(shared.failed(e)),
    };
    let after = read(conn);
    let (pages, free, file) = before.unwrap_or(after);
    Ok((
        t0,
        Vacuum {
            role: String::new(),
            t_ms: 0,
            duration_us,
            busy,
            page_count: BeforeAfter {
                before: pages,
                after: after.0,
            },
            freelist_count: BeforeAfter {
                before: free,
                after: after.1,
            },
            file_bytes: BeforeAfter {
                before: file,
                after: after.2,
            },
        },
    ))
}

/// A number `PRAGMA name` returns (-1 where it returns none).
fn pragma(conn: &mut dyn Connection, name: &str) -> i64 {
    conn.query_value(&format!("PRAGMA {name}"))
        .ok()
        .flatten()
        .and_then(|v| v.parse().ok())
        .unwrap_or(-1)
}

/// One backup by `VACUUM INTO` the role's target in `scratch`: when it started, its duration,
/// and the copy's pages and bytes; the copy is removed once measured. A target that exists
/// (litebench removes its own, so it is someone else's, or a symbolic link) stops the trial.
fn backup(
    conn: &mut dyn Connection,
    role: &Role,
    place: Option<crate::workload::Place<'_>>,
    shared: &Shared<'_>,
    over: &dyn Fn() -> bool,
) -> Result<(Instant, Backup), WorkloadError> {
    let refused = |detail: String| WorkloadError::Verification {
        workload: format!("cast role \"{}\"", role.name),
        detail,
    };
    let (Some(target), Some(place)) = (role.backup.as_ref(), place) else {
        return Err(refused(
            "a backup needs the trial's scratch directory, and this trial has none".into(),
        ));
    };
    // Named in the run's record before it exists: a `kill -9` during the copy leaves nothing
    // `cleanup` does not know.
    let path = place.run.path(&target.to);
    // The copy and the journal files SQLite may make beside it: none may be there before.
    let beside = |suffix: &str| {
        let mut p = path.clone().into_os_string();
        p.push(suffix);
        std::path::PathBuf::from(p)
    };
    let files = [path.clone(), beside("-journal"), beside("-wal"), beside("-shm")];
    if let Some(there) = files.iter().find(|f| std::fs::symlink_metadata(f).is_ok()) {
        return Err(refused(format!(
            "{} exists and litebench did not make it; remove it, or give `to` another file name",
            there.display()
        )));
    }
    let source_pages = pragma(conn, "page_count");
    let page_size = pragma(conn, "page_size").max(1) as u64;
    let t0 = Instant::now();
    let mut api = None;
    let ran = match target.steps {
        None => conn.execute_batch(&format!("VACUUM INTO '{}'", path.to_string_lossy().replace('\'', "''"))),
        // The online backup writes into a file it opens: made here, new (never one that was
        // there, nor through a link), so that what is removed below is only litebench's.
        Some(steps) => match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
            Err(e) => return Err(refused(format!("cannot make its copy {}: {e}", path.display()))),
            Ok(_) => conn.online_backup(&path, steps, over).map(|p| {
                api = Some(p.run);
            }),
        },
    };
    let duration_us = t0.elapsed().as_micros() as u64;
    // Made by this backup (none was there before): measured, then removed.
    let made = std::fs::symlink_metadata(&path)
        .ok()
        .filter(|m| m.file_type().is_file());
    let bytes = made.as_ref().map_or(0, |m| m.len());
    for f in &files {
        if std::fs::symlink_metadata(f).is_ok_and(|m| m.file_type().is_file()) {
            std::fs::remove_file(f).map_err(|e| refused(format!("cannot remove its copy {}: {e}", f.display())))?;
        }
    }
    let busy = match ran {
        Ok(()) => false,
        Err(e) if matches!(e.kind, ErrorKind::Busy) => true,
        Err(e) => return Err(shared.failed(e)),
    };
    Ok((
        t0,
        Backup {
            role: role.name.clone(),
            method: target.method,
            t_ms: 0,
            duration_us,
            busy,
            source_pages,
            pages: bytes / page_size,
            bytes,
            api,
        },
    ))
}
