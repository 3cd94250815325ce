//! Crash states: what the files may hold when the machine or the process stops at a point of
//! a [`Recording`].
//!
//! The model replays the recording event by event. For every inode it keeps the content at
//! its last sync (*durable*), the content the OS holds (*current*), and the writes and
//! truncates since the last sync (*pending*); for the directory it keeps the names at its last
//! sync and the creates and deletes since.
//!
//! - **Process crash**: everything that reached the OS stays: the current names and contents.
//! - **Power loss**: each name keeps a prefix of its pending creates/deletes (operations on one
//!   name stay in order; different names are independent), and each linked inode holds its
//!   durable content plus any subset of its pending operations, applied in the order they were
//!   issued: all of them, none, all but one, a prefix in issue order (a disk that keeps order),
//!   an arbitrary subset (one that reorders), or an arbitrary subset of 512-byte or 4-KiB sector pieces of
//!   them (torn writes; a write never damages bytes outside its range, which is SQLite's
//!   "powersafe overwrite" assumption on Linux).
//!
//! The choice space grows exponentially, so a crash point's whole-operation subsets are
//! enumerated when they fit its share of the budget and sampled (seeded) otherwise; torn
//! states are always sampled.

use super::record::{Event, Inode, Recording};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Which crash a state models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CrashKind {
    /// The machine lost power: only what was synced is certain.
    Power,
    /// The process was killed: everything it wrote reached the OS.
    Process,
}

impl CrashKind {
    pub fn name(self) -> &'static str {
        match self {
            CrashKind::Power => "power",
            CrashKind::Process => "process",
        }
    }
}

/// One state to check: the files and how they came about.
#[derive(Debug, Clone)]
pub struct CrashState {
    /// Crash after this many events.
    pub point: usize,
    /// Transactions acknowledged before the crash.
    pub acked: u64,
    pub files: Vec<(String, Vec<u8>)>,
    /// Which pending operations survived (empty for a process crash).
    pub survived: String,
}

#[derive(Debug, Clone)]
enum Op {
    Write { offset: u64, data: Arc<[u8]>, event: usize },
    Truncate { size: u64, event: usize },
}

impl Op {
    fn event(&self) -> usize {
        match self {
            Op::Write { event, .. } | Op::Truncate { event, .. } => *event,
        }
    }
}

#[derive(Debug, Clone, Default)]
struct InodeState {
    durable: Vec<u8>,
    current: Vec<u8>,
    pending: Vec<Op>,
}

#[derive(Debug, Clone)]
enum DirOp {
    Link(Inode),
    Unlink,
}

fn write_at(buf: &mut Vec<u8>, offset: u64, data: &[u8]) {
    let (start, end) = (offset as usize, offset as usize + data.len());
    if buf.len() < end {
        buf.resize(end, 0);
    }
    buf[start..end].copy_from_slice(data);
}

/// A piece of a pending operation that survives or not as a unit.
#[derive(Debug, Clone, Copy)]
struct Piece {
    inode: Inode,
    op: usize,
    /// Byte range within the write's data (whole op for truncates).
    from: usize,
    to: usize,
}

/// How a power-loss state is chosen: a prefix length per name's pending directory operations,
/// the sector size the pieces are cut at (`None`: whole operations), and which pieces survive.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Choice {
    dir: Vec<usize>,
    sector: Option<u64>,
    survive: Vec<bool>,
}

/// The file-system model, replayed up to a crash point.
pub struct Model<'r> {
    rec: &'r Recording,
    inodes: Vec<InodeState>,
    names: BTreeMap<String, Inode>,
    durable_names: BTreeMap<String, Inode>,
    pending_dir: Vec<(String, DirOp)>,
    acked: u64,
    /// Events replayed so far: the crash point.
    pub point: usize,
}

/// Inodes whose whole-operation subsets are enumerated rather than sampled, at most.
const MAX_EXHAUSTIVE_OPS: usize = 16;

impl<'r> Model<'r> {
    pub fn new(rec: &'r Recording) -> Model<'r> {
        let count = rec.names.keys().max().map_or(0, |m| m + 1);
        let mut inodes = vec![InodeState::default(); count];
        let mut names = BTreeMap::new();
        for (name, inode, content) in &rec.baseline {
            inodes[*inode] = InodeState {
                durable: content.clone(),
                current: content.clone(),
                pending: Vec::new(),
            };
            names.insert(name.clone(), *inode);
        }
        Model {
            rec,
            inodes,
            durable_names: names.clone(),
            names,
            pending_dir: Vec::new(),
            acked: 0,
            point: 0,
        }
    }

    /// Crash points: 0 (nothing happened) to the number of events.
    pub fn points(&self) -> usize {
        self.rec.events.len() + 1
    }

    /// Replays the next event; false at the end.
    pub fn step(&mut self) -> bool {
        let Some(e) = self.rec.events.get(self.point) else {
            return false;
        };
        let at = self.point;
        match e {
            Event::Create { name, inode } => {
                self.inodes[*inode] = InodeState::default();
                self.names.insert(name.clone(), *inode);
                self.pending_dir.push((name.clone(), DirOp::Link(*inode)));
            }
            Event::Write {
                inode, offset, data, ..
            } => {
                let i = &mut self.inodes[*inode];
                write_at(&mut i.current, *offset, data);
                i.pending.push(Op::Write {
                    offset: *offset,
                    data: data.clone(),
                    event: at,
                });
            }
            Event::Truncate { inode, size } => {
                let i = &mut self.inodes[*inode];
                i.current.resize(*size as usize, 0);
                i.pending.push(Op::Truncate { size: *size, event: at });
            }
            Event::Sync { inode, dir } => {
                let i = &mut self.inodes[*inode];
                i.durable = i.current.clone();
                i.pending.clear();
                if *dir {
                    self.sync_dir();
                }
            }
            Event::Delete { name, dir } => {
                self.names.remove(name);
                self.pending_dir.push((name.clone(), DirOp::Unlink));
                if *dir {
                    self.sync_dir();
                }
            }
            Event::Ack { tx } => self.acked = self.acked.max(*tx),
        }
        self.point += 1;
        true
    }

    fn sync_dir(&mut self) {
        self.durable_names = self.names.clone();
        self.pending_dir.clear();
    }

    /// The event the crash point follows.
    pub fn last_event(&self) -> String {
        match self.point.checked_sub(1) {
            None => "before the first event".into(),
            Some(i) => format!("#{i} {}", self.rec.events[i].describe(&self.rec.names)),
        }
    }

    /// The process-crash state at this point.
    pub fn process_state(&self) -> CrashState {
        CrashState {
            point: self.point,
            acked: self.acked,
            files: self
                .names
                .iter()
                .map(|(n, i)| (n.clone(), self.inodes[*i].current.clone()))
                .collect(),
            survived: String::new(),
        }
    }

    /// Names with pending directory operations, and their operations in order.
    fn dir_groups(&self) -> Vec<(&str, Vec<&DirOp>)> {
        let mut groups: BTreeMap<&str, Vec<&DirOp>> = BTreeMap::new();
        for (name, op) in &self.pending_dir {
            groups.entry(name.as_str()).or_default().push(op);
        }
        groups.into_iter().collect()
    }

    fn linked(&self, groups: &[(&str, Vec<&DirOp>)], dir: &[usize]) -> BTreeMap<String, Inode> {
        let mut names = self.durable_names.clone();
        for ((name, ops), &keep) in groups.iter().zip(dir) {
            for op in &ops[..keep] {
                match op {
                    DirOp::Link(i) => names.insert(name.to_string(), *i),
                    DirOp::Unlink => names.remove(*name),
                };
            }
        }
        names
    }

    fn pieces(&self, linked: &BTreeMap<String, Inode>, sector: Option<u64>) -> Vec<Piece> {
        let mut inodes: Vec<Inode> = linked.values().copied().collect();
        inodes.sort_unstable();
        inodes.dedup();
        let mut out = Vec::new();
        for inode in inodes {
            for (op, o) in self.inodes[inode].pending.iter().enumerate() {
                match (o, sector) {
                    (Op::Write { offset, data, .. }, Some(s)) => {
                        let mut from = 0usize;
                        while from < data.len() {
                            let abs = offset + from as u64;
                            let to = ((abs / s + 1) * s - offset).min(data.len() as u64) as usize;
                            out.push(Piece { inode, op, from, to });
                            from = to;
                        }
                    }
                    (Op::Write { data, .. }, None) => out.push(Piece {
                        inode,
                        op,
                        from: 0,
                        to: data.len(),
                    }),
                    (Op::Truncate { .. }, _) => out.push(Piece {
                        inode,
                        op,
                        from: 0,
                        to: 0,
                    }),
                }
            }
        }
        // Issue order across inodes (pieces of one write stay together, in offset order).
        out.sort_by_key(|p| (self.inodes[p.inode].pending[p.op].event(), p.from));
        out
    }

    fn materialise(&self, groups: &[(&str, Vec<&DirOp>)], c: &Choice) -> CrashState {
        let linked = self.linked(groups, &c.dir);
        let pieces = self.pieces(&linked, c.sector);
        let mut content: BTreeMap<Inode, Vec<u8>> = BTreeMap::new();
        let mut kept: Vec<String> = Vec::new();
        let mut dropped = 0usize;
        for (p, &keep) in pieces.iter().zip(&c.survive) {
            let buf = content
                .entry(p.inode)
                .or_insert_with(|| self.inodes[p.inode].durable.clone());
            if !keep {
                dropped += 1;
                continue;
            }
            let op = &self.inodes[p.inode].pending[p.op];
            match op {
                Op::Write { offset, data, .. } => write_at(buf, offset + p.from as u64, &data[p.from..p.to]),
                Op::Truncate { size, .. } => buf.resize(*size as usize, 0),
            }
            let whole = matches!(op, Op::Truncate { .. }) || (p.from == 0 && p.to == op_len(op));
            kept.push(if whole {
                format!("#{}", op.event())
            } else {
                format!("#{}[{}..{}]", op.event(), p.from, p.to)
            });
        }
        let files = linked
            .iter()
            .map(|(n, i)| {
                let bytes = content.remove(i).unwrap_or_else(|| self.inodes[*i].durable.clone());
                (n.clone(), bytes)
            })
            .collect();
        let mut survived = Vec::new();
        for ((name, ops), &keep) in groups.iter().zip(&c.dir) {
            survived.push(format!("{name}: {keep} of {} directory ops", ops.len()));
        }
        let cut = c
            .sector
            .map_or("whole writes".to_string(), |s| format!("{s}-byte sectors"));
        survived.push(format!("{cut}: kept [{}], lost {dropped} piece(s)", kept.join(" ")));
        CrashState {
            point: self.point,
            acked: self.acked,
            files,
            survived: survived.join("; "),
        }
    }

    /// Up to about `budget` power-loss states at this point (always at least "nothing
    /// pending survived" and "everything survived" for each directory outcome), and whether
    /// every whole-operation subset was among them.
    pub fn power_states(&self, budget: usize, rng: &mut ChaCha8Rng) -> (Vec<CrashState>, bool) {
        let groups = self.dir_groups();
        let dir_space: usize = groups.iter().map(|(_, ops)| ops.len() + 1).product();
        let mut dirs: Vec<Vec<usize>> = Vec::new();
        let mut exhaustive = dir_space <= 64;
        if exhaustive {
            for mut k in 0..dir_space {
                dirs.push(
                    groups
                        .iter()
                        .map(|(_, ops)| {
                            let v = k % (ops.len() + 1);
                            k /= ops.len() + 1;
                            v
                        })
                        .collect(),
                );
            }
        } else {
            dirs.push(groups.iter().map(|_| 0).collect());
            dirs.push(groups.iter().map(|(_, ops)| ops.len()).collect());
            for _ in 0..8 {
                dirs.push(groups.iter().map(|(_, ops)| rng.random_range(0..=ops.len())).collect());
            }
        }
        let mut choices: Vec<Choice> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut add = |c: Choice, choices: &mut Vec<Choice>| {
            if seen.insert(c.clone()) {
                choices.push(c);
            }
        };
        let whole: Vec<usize> = dirs
            .iter()
            .map(|d| self.pieces(&self.linked(&groups, d), None).len())
            .collect();
        let of = |d: &[usize], sector, survive| Choice {
            dir: d.to_vec(),
            sector,
            survive,
        };
        // Everything or nothing, for every directory outcome.
        for (d, &n) in dirs.iter().zip(&whole) {
            for k in [0, n] {
                add(of(d, None, (0..n).map(|i| i < k).collect()), &mut choices);
            }
        }
        // Everything but one operation: a single lost write in the middle, the classic hole.
        for (d, &n) in dirs.iter().zip(&whole) {
            for lost in 0..n {
                if choices.len() >= budget {
                    break;
                }
                add(of(d, None, (0..n).map(|i| i != lost).collect()), &mut choices);
            }
        }
        let left = budget.saturating_sub(choices.len());
        // Every whole-operation subset when they fit (with room left for torn states)...
        let subsets: usize = whole
            .iter()
            .map(|&n| {
                if n > MAX_EXHAUSTIVE_OPS {
                    usize::MAX / 128
                } else {
                    1 << n
                }
            })
            .fold(0usize, |a, b| a.saturating_add(b));
        if subsets <= left * 3 / 4 + 2 * dirs.len() {
            for (d, &n) in dirs.iter().zip(&whole) {
                for mask in 0u64..(1u64 << n) {
                    add(of(d, None, (0..n).map(|i| mask >> i & 1 == 1).collect()), &mut choices);
                }
            }
        } else {
            exhaustive = false;
            // ...else prefixes in issue order (a disk that keeps order), evenly spaced...
            let prefixes = left / 4;
            let total: usize = whole.iter().map(|&n| n.saturating_sub(1)).sum();
            let stride = total.div_ceil(prefixes.max(1)).max(1);
            for (d, &n) in dirs.iter().zip(&whole) {
                for k in (1..n).step_by(stride) {
                    add(of(d, None, (0..n).map(|i| i < k).collect()), &mut choices);
                }
            }
            // ...and random subsets (a disk that reorders).
            let target = (choices.len() + left / 2).min(budget);
            let mut tries = 0;
            while choices.len() < target && tries < budget * 4 {
                tries += 1;
                let di = rng.random_range(0..dirs.len());
                let survive = random_subset(rng, whole[di], tries);
                add(of(&dirs[di], None, survive), &mut choices);
            }
        }
        // Torn writes: random sector pieces, at 512 B and 4 KiB in turn.
        let mut tries = 0;
        while choices.len() < budget && tries < budget * 4 {
            tries += 1;
            let sector = if tries % 2 == 0 { 512 } else { 4096 };
            let di = rng.random_range(0..dirs.len());
            let n = self.pieces(&self.linked(&groups, &dirs[di]), Some(sector)).len();
            if n == whole[di] {
                continue; // no write spans more than one sector: nothing to tear
            }
            let survive = random_subset(rng, n, tries);
            add(of(&dirs[di], Some(sector), survive), &mut choices);
        }
        let states = choices.iter().map(|c| self.materialise(&groups, c)).collect();
        (states, exhaustive)
    }
}

/// A random subset of `n` pieces: on odd tries every piece independently, on even tries
/// everything before a random cut and a random subset after it (older writes have usually
/// reached the disk; the recent ones are the uncertain ones).
fn random_subset(rng: &mut ChaCha8Rng, n: usize, attempt: usize) -> Vec<bool> {
    let cut = if attempt % 2 == 1 { 0 } else { rng.random_range(0..=n) };
    (0..n).map(|i| i < cut || rng.random_bool(0.5)).collect()
}

fn op_len(op: &Op) -> usize {
    match op {
        Op::Write { data, .. } => data.len(),
        Op::Truncate { .. } => 0,
    }
}

/// The random source for one crash point, from the run's seed.
pub fn point_rng(seed: u64, salt: u64, point: usize) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed ^ salt.rotate_left(17) ^ (point as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(inode: Inode, offset: u64, data: &[u8]) -> Event {
        Event::Write {
            inode,
            offset,
            data: data.into(),
            len: data.len() as u64,
        }
    }

    fn recording(events: Vec<Event>) -> Recording {
        let mut names = BTreeMap::new();
        names.insert(0, "db".to_string());
        names.insert(1, "db-journal".to_string());
        Recording {
            baseline: vec![("db".into(), 0, b"AAAA".to_vec())],
            events,
            names,
        }
    }

    fn contents(states: &[CrashState]) -> std::collections::BTreeSet<Vec<(String, Vec<u8>)>> {
        states.iter().map(|s| s.files.clone()).collect()
    }

    #[test]
    fn a_process_crash_keeps_every_write_and_power_loss_only_synced_ones() {
        let rec = recording(vec![
            write(0, 0, b"BB"),
            Event::Sync { inode: 0, dir: false },
            write(0, 2, b"CC"),
        ]);
        let mut m = Model::new(&rec);
        while m.step() {}
        assert_eq!(m.process_state().files, vec![("db".into(), b"BBCC".to_vec())]);
        let (states, exhaustive) = m.power_states(100, &mut point_rng(1, 0, 3));
        assert!(exhaustive);
        let got = contents(&states);
        let want: std::collections::BTreeSet<_> = [b"BBAA".to_vec(), b"BBCC".to_vec()]
            .into_iter()
            .map(|c| vec![("db".to_string(), c)])
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn an_unsynced_create_or_delete_may_not_have_happened() {
        let rec = recording(vec![
            Event::Create {
                name: "db-journal".into(),
                inode: 1,
            },
            write(1, 0, b"J"),
            Event::Sync { inode: 1, dir: false },
            Event::Delete {
                name: "db-journal".into(),
                dir: false,
            },
        ]);
        let mut m = Model::new(&rec);
        while m.step() {}
        assert_eq!(m.process_state().files.len(), 1, "the delete reached the OS");
        let (states, _) = m.power_states(100, &mut point_rng(1, 0, 4));
        let got = contents(&states);
        // Neither the create nor the delete, the create only (the synced journal), both.
        assert_eq!(got.len(), 2);
        assert!(got
            .iter()
            .any(|f| f.len() == 2 && f[1] == ("db-journal".into(), b"J".to_vec())));
        assert!(got.iter().any(|f| f.len() == 1));
    }

    #[test]
    fn writes_tear_at_sector_boundaries_and_may_survive_out_of_order() {
        let big = vec![7u8; 1024];
        let rec = recording(vec![write(0, 0, &big), write(0, 2048, b"Z")]);
        let mut m = Model::new(&rec);
        while m.step() {}
        let (states, exhaustive) = m.power_states(200, &mut point_rng(3, 0, 2));
        assert!(exhaustive);
        let got = contents(&states);
        // Out of order: the second write without the first.
        let mut second_only = b"AAAA".to_vec();
        second_only.resize(2049, 0);
        second_only[2048] = b'Z';
        assert!(got.contains(&vec![("db".to_string(), second_only)]));
        // Torn at 512 bytes: the first half of the first write only.
        assert!(states.iter().any(|s| {
            let f = &s.files[0].1;
            f.len() == 512 && f.iter().all(|&b| b == 7)
                || (f.len() >= 1024 && f[..512].iter().all(|&b| b == 7) && f[512..1024].iter().all(|&b| b != 7))
        }));
    }
}
