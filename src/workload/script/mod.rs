//! `script`: the user's own transactions, written as pgbench scripts (`\set` with pgbench's
//! expressions and random functions, `\sleep`, `\if` blocks, SQL with `:name` variables and
//! `\gset`/`\aset` into them, `:client_id` and the other automatic variables), run weighted on the
//! load driver on every engine; and pgbench's own three built-in scripts with its
//! initialisation, so that pgbench's workload runs on SQLite, DuckDB and MariaDB as on
//! PostgreSQL.
//!
//! - [`expr`]: `\set` expressions; [`random`]: their random draws and hashes;
//! - [`sql`]: the SQL tokenizer that finds statements and variables (bound as parameters,
//!   never pasted into the SQL);
//! - [`parse`]: a script file into commands, every error as `file:line:column: message`;
//! - [`builtin`]: pgbench's scripts, tables and consistency check;
//! - [`client`]: a client's transactions.
//!
//! Every statement of every script is an operation type of its own, a part of its script's
//! (pgbench `-r`'s per-statement latencies), so the operation types depend on the parameters:
//! [`Workload::operation_types`]. Scripts are read once per process when the run is planned
//! ([`Workload::settle`]), their SHA-256 goes into the parameters (and so into the manifest:
//! runs of different files never compare as the same workload), and a client process that
//! reads different files refuses to run. Every difference from pgbench is in
//! docs/workloads.md.

pub mod builtin;
pub mod client;
mod eval_error;
pub mod expr;
#[cfg(test)]
mod expr_pgbench;
mod func;
mod lex;
mod number;
pub mod parse;
mod permute;
pub mod random;
pub mod sql;

use super::load::{self, Budget, Client, Streams};
use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::{Connection, Dialect, EngineError};
use crate::model::op::OpType;
use crate::model::params::{ParamKind, ParamSpec, ParamValue, Params};
use crate::workload::read_once::ReadOnce;
use crate::workload::recorder::Recorder;
use parse::{Script, Vars};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The workload.
pub struct ScriptWorkload;

/// The seed `hash()` uses when given none (pgbench's `:default_seed`, which pgbench draws at
/// random per run): fixed, so that hashed keys are the same in every run.
pub const DEFAULT_SEED: i64 = 0x2545_F491_4F6C_DD1D;

/// Most transactions a count-based trial may run.
pub const MAX_TRANSACTIONS: u64 = 1_000_000_000;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "file",
        kind: ParamKind::Path,
        default: "",
        help: "script files, comma-separated, each with an optional weight as pgbench's -f FILE@W (a.sql@3,b.sql@1); FILE.pg.sql, FILE.mysql.sql, FILE.duckdb.sql or FILE.sqlite.sql beside FILE.sql replaces it on that engine",
    },
    ParamSpec {
        name: "builtin",
        kind: ParamKind::Path,
        default: "",
        help: "pgbench's built-in scripts, comma-separated with optional weights (tpcb-like, simple-update, select-only); tpcb-like when no file is given either",
    },
    ParamSpec {
        name: "scale",
        kind: ParamKind::Count { min: 1, max: 10_000 },
        default: "1",
        help: "pgbench's scale factor: :scale in scripts, and 100,000 accounts, 10 tellers and 1 branch per unit when the built-in tables are populated",
    },
    ParamSpec {
        name: "init",
        kind: ParamKind::Path,
        default: "",
        help: "an SQL file run once, in one transaction, to create and populate the template (instead of pgbench's tables)",
    },
    ParamSpec {
        name: "db",
        kind: ParamKind::Path,
        default: "",
        help: "an existing SQLite database every trial starts from a byte-identical copy of (never opened in place; SQLite only)",
    },
    ParamSpec {
        name: "define",
        kind: ParamKind::Path,
        default: "",
        help: "variables as pgbench's -D, NAME=VALUE separated by ';' (text, bound as text; read as a number in expressions)",
    },
    ParamSpec {
        name: "transactions",
        kind: ParamKind::Count {
            min: 1,
            max: MAX_TRANSACTIONS,
        },
        default: "1000",
        help: "transactions per trial over all clients (pgbench -t times the clients)",
    },
    ParamSpec {
        name: "duration",
        kind: ParamKind::Duration { allow_zero: true },
        default: "0",
        help: "run every client for this long instead (pgbench -T; 0: run `transactions`)",
    },
    ParamSpec {
        name: "sha256",
        kind: ParamKind::Path,
        default: "",
        help: "set by litebench: the SHA-256 of the scripts, init file and definitions; given, the run refuses files that hash otherwise",
    },
];

/// One weighted script, read for every dialect.
pub struct Entry {
    /// The name it was given by (`a.sql`, `tpcb-like`): its operation type.
    pub name: String,
    pub weight: u64,
    /// Per dialect (in [`Dialect::ALL`]'s order): the file read (the variant, if any) and the
    /// script.
    pub parsed: Vec<(String, Script)>,
}

impl Entry {
    pub fn for_dialect(&self, d: Dialect) -> &Script {
        &self.parsed[Self::index(d)].1
    }

    /// The file read for `d` (the variant, if any), as its parse errors name it.
    pub fn file_for_dialect(&self, d: Dialect) -> &str {
        &self.parsed[Self::index(d)].0
    }

    fn index(d: Dialect) -> usize {
        Dialect::ALL.iter().position(|x| *x == d).unwrap_or(0)
    }
}

/// Operation types for one dialect, and each script's statements' types in order.
pub struct Layout {
    pub types: Vec<OpType>,
    pub statements: Vec<Vec<usize>>,
}

/// Everything the parameters name, read and parsed: kept for the life of the process.
pub struct Loaded {
    pub scripts: Vec<Entry>,
    pub total_weight: u64,
    pub vars: Vars,
    /// `--param define` values: slot and text.
    pub defines: Vec<(usize, String)>,
    pub scale: i64,
    pub init: Option<String>,
    pub sha256: String,
    /// Only built-in scripts (pgbench's consistency check applies), and only tpcb-like.
    pub builtin_only: bool,
    pub tpcb_only: bool,
    layouts: [OnceLock<Layout>; 4],
}

impl Loaded {
    /// The operation types on an engine of `dialect` (no dialect: the base files'): one per
    /// script, then one per statement of each, named `FILE:LINE COMMAND TABLE`.
    pub fn layout(&self, dialect: Option<Dialect>) -> &Layout {
        let d = dialect.unwrap_or(Dialect::Sqlite);
        let i = Dialect::ALL.iter().position(|x| *x == d).unwrap_or(0);
        self.layouts[i].get_or_init(|| {
            let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
            let mut types: Vec<OpType> = self
                .scripts
                .iter()
                .map(|e| OpType {
                    name: leak(e.name.clone()),
                    part_of: None,
                })
                .collect();
            let mut statements = Vec::new();
            for (k, e) in self.scripts.iter().enumerate() {
                let (file, script) = &e.parsed[i];
                let parent = types[k].name;
                let mut ops = Vec::new();
                for s in script.statements() {
                    ops.push(types.len());
                    types.push(OpType {
                        name: leak(format!("{file}:{} {}", s.line, s.label)),
                        part_of: Some(parent),
                    });
                }
                statements.push(ops);
            }
            Layout { types, statements }
        })
    }
}

/// `NAME[@W]`: the name and its weight (1 when not given).
fn weighted(item: &str, param: &str) -> Result<(String, u64), String> {
    match item.rsplit_once('@') {
        Some((name, w)) => {
            let w: u64 = w.trim().parse().map_err(|_| {
                format!("--param {param}={item}: the weight after @ must be a whole number (pgbench's -f FILE@W)")
            })?;
            if w > u64::from(u32::MAX) {
                return Err(format!("--param {param}={item}: weight {w} is too large"));
            }
            Ok((name.trim().to_string(), w))
        }
        None => Ok((item.trim().to_string(), 1)),
    }
}

fn items(p: &Params, param: &str) -> Vec<String> {
    p.text(param)
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Where the variant of `file` for `d` would be: `tpcb.sql` -> `tpcb.pg.sql`.
pub fn variant(file: &str, d: Dialect) -> String {
    let suffix = match d {
        Dialect::Sqlite => "sqlite",
        Dialect::Postgres => "pg",
        Dialect::Mysql => "mysql",
        Dialect::Duckdb => "duckdb",
    };
    match file.strip_suffix(".sql") {
        Some(stem) => format!("{stem}.{suffix}.sql"),
        None => format!("{file}.{suffix}"),
    }
}

fn read(path: &str, param: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("--param {param}: cannot read {path}: {e}"))
}

/// The definitions of `--param define`: `NAME=VALUE` separated by `;`, where a `;` starts the
/// next definition only when `NAME=` follows it (so a value may hold a `;`).
fn definitions(text: &str) -> Vec<&str> {
    let starts_one = |rest: &str| {
        let rest = rest.trim_start();
        let name = rest.split('=').next().unwrap_or("");
        rest.contains('=') && !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let mut out = Vec::new();
    let mut from = 0;
    for (i, _) in text.match_indices(';') {
        if starts_one(&text[i + 1..]) {
            out.push(&text[from..i]);
            from = i + 1;
        }
    }
    out.push(&text[from..]);
    // Only the blanks before a name go: a value is kept as given, trailing blanks included
    // (pgbench reads `-D x='7 '` as malformed, not as 7).
    out.into_iter()
        .map(str::trim_start)
        .filter(|d| !d.trim_end().is_empty())
        .collect()
}

/// Reads and parses what `p` names.
fn read_all(p: &Params) -> Result<Loaded, String> {
    let mut builtins = items(p, "builtin");
    let files = items(p, "file");
    if builtins.is_empty() && files.is_empty() {
        builtins.push("tpcb-like".into());
    }
    let mut vars = Vars::default();
    for name in ["scale", "client_id", "default_seed", "random_seed"] {
        vars.add(name);
    }
    let mut defines = Vec::new();
    for d in definitions(p.text("define")) {
        let Some((name, value)) = d.split_once('=') else {
            return Err(format!("--param define: {d} is not NAME=VALUE"));
        };
        let name = name.trim();
        if value.is_empty() {
            // pgbench's -D refuses an empty value in these words.
            return Err(format!("--param define: invalid variable definition: \"{d}\""));
        }
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "--param define: {name:?} is not a variable name (letters, digits, _)"
            ));
        }
        defines.push((vars.add(name), value.to_string()));
    }
    let mut hash = Sha256::new();
    hash.update(format!("define\0{}\0", p.text("define")));
    let mut scripts: Vec<Entry> = Vec::new();
    let mut add = |name: String, weight: u64, sources: Vec<(String, String)>, vars: &mut Vars| -> Result<(), String> {
        if scripts.iter().any(|e| e.name == name) {
            return Err(format!(
                "script {name} is given twice; give it once with a weight (NAME@W)"
            ));
        }
        hash.update(format!("script\0{name}\0{weight}\0"));
        let mut parsed = Vec::new();
        for (d, (file, text)) in Dialect::ALL.iter().zip(&sources) {
            hash.update(format!("{file}\0{}\0{text}\0", text.len()));
            let script = parse::parse(file, text, vars, *d == Dialect::Mysql).map_err(|e| e.to_string())?;
            parsed.push((file.clone(), script));
        }
        scripts.push(Entry { name, weight, parsed });
        Ok(())
    };
    for b in &builtins {
        let (name, weight) = weighted(b, "builtin")?;
        let text = builtin::script(&name).ok_or_else(|| {
            format!(
                "--param builtin={name}: no such built-in script; use {}",
                builtin::NAMES.join(", ")
            )
        })?;
        let sources = Dialect::ALL.iter().map(|_| (name.clone(), text.to_string())).collect();
        add(name, weight, sources, &mut vars)?;
    }
    for f in &files {
        let (name, weight) = weighted(f, "file")?;
        let base = read(&name, "file")?;
        let mut sources = Vec::new();
        for d in Dialect::ALL {
            let v = variant(&name, d);
            sources.push(if Path::new(&v).exists() {
                (v.clone(), read(&v, "file")?)
            } else {
                (name.clone(), base.clone())
            });
        }
        add(name, weight, sources, &mut vars)?;
    }
    let total_weight: u64 = scripts.iter().map(|e| e.weight).sum();
    if total_weight == 0 {
        return Err("--param file/builtin: every script has weight 0; give at least one a weight above 0".into());
    }
    let init = match p.text("init") {
        "" => None,
        f => Some(read(f, "init")?),
    };
    if let Some(text) = &init {
        let refused = text
            .find('\0')
            .map(|nul| (nul, crate::engines::sql_lex::NUL_BYTE.to_string()))
            .or_else(|| super::file_reach::first_refusal(text, 0, text.len(), false));
        if let Some((at, what)) = refused {
            let (line, column) = crate::engines::sql_lex::line_col(text, at);
            return Err(format!("{}:{line}:{column}: {what}", p.text("init")));
        }
    }
    if let Some(text) = &init {
        hash.update(format!("init\0{text}\0"));
    }
    let builtin_only = files.is_empty();
    let tpcb_only = builtin_only && scripts.iter().all(|e| e.name == "tpcb-like");
    let sha256 = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok(Loaded {
        scripts,
        total_weight,
        vars,
        defines,
        scale: p.count("scale") as i64,
        init,
        sha256,
        builtin_only,
        tpcb_only,
        layouts: Default::default(),
    })
}

/// What the parameters name, read once per process (kept for its life: the operation types'
/// names are borrowed from it).
pub fn load(p: &Params) -> Result<&'static Loaded, String> {
    static SCRIPTS: ReadOnce<Loaded> = ReadOnce::new();
    let key: Vec<String> = ["file", "builtin", "init", "define"]
        .iter()
        .map(|k| p.text(k).to_string())
        .chain([p.count("scale").to_string()])
        .collect();
    SCRIPTS.get(key, || read_all(p))
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "script",
    about: "your own transactions as pgbench scripts (pgbench's expressions, \\set, \\if, \\gset/\\aset, \\sleep, :variables bound as parameters), weighted, with per-statement latencies; or pgbench's built-in tpcb-like, simple-update and select-only",
    source: "pgbench (PostgreSQL): its script language, built-in scripts and initialisation, as its documentation gives them",
    params: PARAMS,
    operations: &[],
    ..WorkloadKind::BASE
};

impl Workload for ScriptWorkload {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    /// `begin`: where the user or a preset sets it, the bare `BEGIN`s of the scripts start in its
    /// mode ([`crate::workload::bare_begin`]); without one there is nothing for it to start.
    fn files(&self, p: &Params) -> Vec<(&'static str, String)> {
        let scripts = items(p, "file")
            .into_iter()
            .map(|f| weighted(&f, "file").map_or(f, |(name, _)| name))
            .map(|f| ("file", f));
        let others = ["init", "db"]
            .into_iter()
            .filter(|k| !p.text(k).is_empty())
            .map(|k| (k, p.text(k).to_string()));
        scripts.chain(others).collect()
    }

    fn reads_knob(&self, knob: &str, p: &Params) -> Result<(), String> {
        if knob != crate::engines::sqlite::knobs::BEGIN_KNOB {
            return Err(format!("no statement of {} reads {knob}", KIND.name));
        }
        match self.bare_begins(p) {
            Some(0) => Err(
                "the scripts have no bare BEGIN (BEGIN, BEGIN TRANSACTION or BEGIN DEFERRED) for it to start".into(),
            ),
            _ => Ok(()),
        }
    }

    fn check(&self, p: &Params) -> Result<(), String> {
        if !p.text("db").is_empty() && !p.text("init").is_empty() {
            return Err("--param db and --param init together: a run starts from your database or from an init script, not both".into());
        }
        Ok(())
    }

    fn settle(&self, p: &mut Params) -> Result<(), String> {
        if !p.text("db").is_empty() {
            super::user_db::check(p.text("db"))?;
        }
        let loaded = load(p)?;
        let pinned = p.text("sha256");
        if !pinned.is_empty() && pinned != loaded.sha256 {
            return Err(format!(
                "--param sha256={pinned}: the scripts, init file and definitions hash to {}; they are not the ones pinned",
                loaded.sha256
            ));
        }
        if p.text("file").is_empty() && p.text("builtin").is_empty() {
            p.0.insert("builtin".into(), ParamValue::Choice("tpcb-like".into()));
        }
        p.0.insert("sha256".into(), ParamValue::Choice(loaded.sha256.clone()));
        Ok(())
    }

    fn bare_begins(&self, p: &Params) -> Option<usize> {
        let loaded = load(p).ok()?;
        let scripts = loaded.scripts.iter().map(|e| e.for_dialect(Dialect::Sqlite));
        let sql = scripts.flat_map(|s| &s.commands).filter_map(|c| match c {
            parse::Command::Sql(s) => Some(s.sql.as_str()),
            _ => None,
        });
        Some(sql.filter(|s| super::bare_begin::is_bare(s)).count())
    }

    fn operation_types(&self, p: &Params, dialect: Option<Dialect>) -> Vec<OpType> {
        load(p).map(|l| l.layout(dialect).types.clone()).unwrap_or_default()
    }

    fn template_file(&self, p: &Params) -> Option<PathBuf> {
        Some(p.text("db")).filter(|d| !d.is_empty()).map(PathBuf::from)
    }

    /// A script runs as data unless a statement's result feeds a variable (`\gset`,
    /// `\aset`) or it sleeps (`\sleep`, which a driver would not).
    fn driver_refusal(&self, p: &Params) -> Option<String> {
        let loaded = load(p).ok()?;
        for entry in &loaded.scripts {
            let (file, script) = entry.parsed.first()?;
            for c in &script.commands {
                let why = match c {
                    parse::Command::Sql(s) if s.store.is_some() => {
                        format!(
                            "{file}:{}: a \\gset/\\aset feeds a statement's result into variables",
                            s.line
                        )
                    }
                    parse::Command::Sleep { line, .. } => {
                        format!("{file}:{line}: a \\sleep, which a driver would not run")
                    }
                    _ => continue,
                };
                return Some(format!("{why}; drivers are sent every transaction ahead of time"));
            }
        }
        None
    }

    fn transactions(&self) -> Option<&dyn load::Transactions> {
        Some(self)
    }

    fn populate(&self, conn: &mut dyn Connection, pop: &Population<'_>) -> Result<u64, PopulateError> {
        let loaded = load(pop.params).map_err(|e| EngineError {
            busy_cause: None,
            engine: "script".into(),
            kind: crate::engines::ErrorKind::Input,
            code: None,
            message: e,
            context: "reading the scripts".into(),
        })?;
        if let Some(init) = &loaded.init {
            // The user's SQL touches nothing outside the template's scratch directory.
            conn.confine_to_scratch()?;
            let init = init.trim_end();
            let end = if init.ends_with(';') { "" } else { ";" };
            conn.execute_batch(&format!("BEGIN;\n{init}{end}\nCOMMIT;"))?;
            pop.note(INIT_SQL);
            return Ok(rows_left(conn)?);
        }
        if loaded.builtin_only || loaded.scripts.iter().any(|e| builtin::NAMES.contains(&e.name.as_str())) {
            return builtin::populate(conn, pop, loaded.scale);
        }
        Ok(0)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        load::drive(conn, self, trial, rec)
    }

    fn verify(&self, conn: &mut dyn Connection, p: &Params) -> Result<(), WorkloadError> {
        let loaded = load(p).map_err(|d| WorkloadError::check_failed("script", d))?;
        if loaded.builtin_only && loaded.init.is_none() && p.text("db").is_empty() {
            builtin::verify(conn, loaded.scale, loaded.tpcb_only)?;
        }
        Ok(())
    }
}

/// How an `init=` file's rows went into the template, for the population table's "loaded by".
pub const INIT_SQL: &str = "init SQL";

/// The rows an `init=` file left in the template: the sum of `count(*)` over the tables it
/// created (the engine's catalogue aside), so that the population table counts what the user's
/// SQL inserted rather than 0.
fn rows_left(conn: &mut dyn Connection) -> Result<u64, EngineError> {
    let dialect = conn.dialect();
    let tables = conn.query(dialect.user_tables_query())?;
    let mut rows = 0u64;
    for name in tables.into_iter().filter_map(|r| r.into_iter().next().flatten()) {
        let count = conn.query_value(&format!("SELECT count(*) FROM {}", dialect.quote_ident(&name)))?;
        rows = rows.saturating_add(count.and_then(|c| c.parse::<u64>().ok()).unwrap_or(0));
    }
    Ok(rows)
}

impl Streams for ScriptWorkload {
    type Client<'c> = Box<dyn Client + 'c>;

    fn budget(&self, params: &Params) -> Budget {
        Budget::timed_or(params.duration("duration"), Budget::Count(params.count("transactions")))
    }

    fn stop_params(&self) -> Option<crate::model::stop_rule::StopParams> {
        Some(crate::model::stop_rule::StopParams {
            count: "transactions",
            duration: "duration",
        })
    }

    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        index: u32,
        _clients: u32,
        seed: u64,
        params: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        let loaded = load(params).map_err(|d| WorkloadError::check_failed("script", d))?;
        let pinned = params.text("sha256");
        if !pinned.is_empty() && pinned != loaded.sha256 {
            return Err(WorkloadError::check_failed("script", format!(
                "client {index}: the scripts hash to {} now, not {pinned} as when the run started; they changed during the run",
                loaded.sha256
            )));
        }
        // The scripts' SQL touches nothing outside the trial's scratch directory.
        conn.confine_to_scratch().map_err(WorkloadError::Engine)?;
        let c = client::ScriptClient::new(conn, loaded, index, seed).map_err(|e| {
            let m = e.message.to_ascii_lowercase();
            if e.kind == crate::engines::ErrorKind::Input {
                WorkloadError::check_failed("script", e.message)
            } else if index > 0 && (m.contains("no such table") || m.contains("does not exist")) {
                WorkloadError::check_failed("script", format!(
                    "client {index} does not see the populated tables ({}); an in-memory database belongs to one connection, so use one client there or a database on disk",
                    e.message
                ))
            } else {
                WorkloadError::Engine(e)
            }
        })?;
        Ok(Box::new(c))
    }
}

#[cfg(test)]
mod tests;
