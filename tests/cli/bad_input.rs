//! Bad command lines: each is refused with exit code 2 and one line naming what is wrong and
//! what would be right, before anything is created under `--dir`.

use crate::cli::common::*;
use litebench::engines::sqlite::knobs::SQLITE_KNOBS;
use std::path::Path;

/// Runs `litebench run ARGS` (plus the tiny trial counts, so that a command wrongly accepted
/// finishes quickly) and asserts the one-line error, and that neither `--dir` nor the working
/// directory holds anything afterwards. Returns the sandbox for further checks.
fn rejects(args: &[&str], parts: &[&str]) -> Sandbox {
    let sb = Sandbox::new();
    let mut cmd = sb.run(args);
    cmd.args(TINY_COUNTS);
    let out = output(&mut cmd);
    assert_error_line(&out, parts);
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "--dir is not empty");
    sb.assert_cwd_untouched();
    sb
}

/// `rejects` with the tiny workload parameters added after `args`.
fn rejects_tiny(args: &[&str], parts: &[&str]) -> Sandbox {
    let mut all: Vec<&str> = args.to_vec();
    all.extend_from_slice(TINY_PARAMS);
    rejects(&all, parts)
}

/// Asserts that a failed command left no results store behind.
fn assert_no_store(sb: &Sandbox) {
    assert_eq!(
        listing(&sb.results_dir()),
        Vec::<String>::new(),
        "a refused command created a results store"
    );
}

#[test]
fn unknown_workload_lists_valid_workloads() {
    let sb = rejects_tiny(
        &["nosuch"],
        &["error: unknown workload `nosuch`", "valid workloads: crud"],
    );
    assert_no_store(&sb);
}

#[test]
fn unknown_engine_lists_valid_engines() {
    let sb = rejects_tiny(
        &["crud", "--engine", "nosuch"],
        &[
            "error: --engine nosuch: unknown engine",
            "valid engines: sqlite, sqlite:<library path>, sqlite@<name>, postgres",
        ],
    );
    assert_no_store(&sb);
}

#[test]
fn engine_not_in_this_build_lists_valid_engines() {
    rejects_tiny(
        &["crud", "--engine", "fs"],
        &[
            "error: --engine fs: unknown engine",
            "valid engines: sqlite, sqlite:<library path>",
        ],
    );
}

/// A file that is not a DuckDB library, as `duckdb:<path>`: a text file, another library
/// (zlib), a truncated copy of a library. Each is refused in one line naming the path and what
/// is wrong, exit code 2, nothing left behind.
#[test]
fn a_file_that_is_not_duckdb_is_refused_in_one_line() {
    let t = tempfile::tempdir().unwrap();
    let text = t.path().join("libduckdb.so");
    std::fs::write(&text, "this is not a library\n").unwrap();
    let zlib = "/usr/lib/x86_64-linux-gnu/libz.so.1";
    let truncated = t.path().join("truncated.so");
    let whole = crate::support::duckdb_library(crate::support::DUCKDB)
        .map_or_else(|| std::fs::read(zlib).unwrap(), |p| std::fs::read(p).unwrap());
    std::fs::write(&truncated, &whole[..whole.len().min(64 * 1024)]).unwrap();
    let cases: [(String, &[&str]); 4] = [
        (
            text.display().to_string(),
            &["cannot load", "give the path of a libduckdb.so"],
        ),
        (
            zlib.to_string(),
            &["is not a DuckDB library (it has no `duckdb_library_version`)"],
        ),
        (
            truncated.display().to_string(),
            &["cannot load", "give the path of a libduckdb.so"],
        ),
        (t.path().join("none.so").display().to_string(), &["no such file"]),
    ];
    for (path, parts) in cases {
        let spec = format!("duckdb:{path}");
        let mut all = vec![format!("error: --engine {spec}: "), path.clone()];
        all.extend(parts.iter().map(|p| p.to_string()));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let sb = rejects_tiny(&["crud", "--engine", &spec], &all);
        assert_no_store(&sb);
    }
}

#[test]
fn engine_with_empty_library_path() {
    rejects_tiny(
        &["crud", "--engine", "sqlite:"],
        &["error: --engine sqlite:: missing library path", "e.g. sqlite:/"],
    );
}

#[test]
fn engine_library_that_does_not_exist() {
    let sb = Sandbox::new();
    let missing = sb.root().join("no-such-libsqlite3.so");
    let engine = format!("sqlite:{}", missing.display());
    let out = output(
        sb.run(&["crud", "--engine", &engine])
            .args(TINY_PARAMS)
            .args(TINY_COUNTS),
    );
    assert_error_line(
        &out,
        &[
            &format!("error: --engine {engine}: cannot load it"),
            "no such file",
            "give the path of a libsqlite3.so",
        ],
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
    assert!(!missing.exists());
    sb.assert_cwd_untouched();
}

fn assert_cannot_load(file: &Path) {
    let sb = Sandbox::new();
    let engine = format!("sqlite:{}", file.display());
    let out = output(
        sb.run(&["crud", "--engine", &engine])
            .args(TINY_PARAMS)
            .args(TINY_COUNTS),
    );
    assert_error_line(
        &out,
        &[
            &format!("error: --engine {engine}: cannot load it ("),
            "give the path of a libsqlite3.so",
        ],
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
    sb.assert_cwd_untouched();
}

#[test]
fn engine_file_that_is_not_a_library() {
    let sb = Sandbox::new();
    let fake = sb.root().join("libsqlite3.so");
    std::fs::write(&fake, "this is a text file, not a shared library\n").unwrap();
    assert_cannot_load(&fake);
    let hostname = Path::new("/etc/hostname");
    if hostname.is_file() {
        assert_cannot_load(hostname);
    }
    // A library cut short: refused before the loader maps it past its end (SIGBUS).
    let debian = std::fs::read("/usr/lib/x86_64-linux-gnu/libsqlite3.so.0").unwrap_or_default();
    if debian.len() > 65536 {
        let cut = sb.root().join("truncated.so");
        std::fs::write(&cut, &debian[..65536]).unwrap();
        assert_cannot_load(&cut);
    }
}

#[test]
fn engine_library_without_sqlite_symbols() {
    let libz = Path::new("/usr/lib/x86_64-linux-gnu/libz.so.1");
    if !libz.is_file() {
        eprintln!("note: {} not present; skipping", libz.display());
        return;
    }
    let sb = Sandbox::new();
    let engine = format!("sqlite:{}", libz.display());
    let out = output(
        sb.run(&["crud", "--engine", &engine])
            .args(TINY_PARAMS)
            .args(TINY_COUNTS),
    );
    assert_error_line(
        &out,
        &[
            &format!("error: --engine {engine}: not a SQLite library"),
            "it has no `sqlite3_",
            "give the path of a libsqlite3.so",
        ],
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
    sb.assert_cwd_untouched();
}

#[test]
fn engine_library_path_that_is_a_directory_says_so() {
    let sb = Sandbox::new();
    let engine = format!("sqlite:{}", sb.root().display());
    let out = output(
        sb.run(&["crud", "--engine", &engine])
            .args(TINY_PARAMS)
            .args(TINY_COUNTS),
    );
    assert_error_line(
        &out,
        &[
            &format!("error: --engine {engine}: cannot load it (it is a directory)"),
            "give the path of a libsqlite3.so",
        ],
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
}

/// A library that answers `sqlite3_libversion_number` with a recent release but lacks the rest of
/// SQLite's interface: the error names the missing symbol (it once said "SQLite ? is too old").
#[test]
fn engine_library_missing_a_sqlite_symbol_names_the_symbol() {
    let sb = Sandbox::new();
    let src = sb.root().join("half.c");
    let lib = sb.root().join("libhalf.so");
    std::fs::write(&src, "int sqlite3_libversion_number(void) { return 3045000; }\n").unwrap();
    let cc = std::process::Command::new("gcc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src)
        .status()
        .expect("gcc (Debian package gcc) compiles the test library");
    assert!(cc.success());
    let engine = format!("sqlite:{}", lib.display());
    let out = output(
        sb.run(&["crud", "--engine", &engine])
            .args(TINY_PARAMS)
            .args(TINY_COUNTS),
    );
    let line = assert_error_line(
        &out,
        &[&format!(
            "error: --engine {engine}: this SQLite build has no `sqlite3_initialize`"
        )],
    );
    assert!(!line.contains('?'), "{line}");
}

#[test]
fn unknown_knob_lists_every_valid_knob() {
    let names: Vec<&str> = SQLITE_KNOBS.iter().map(|k| k.name).collect();
    let valid = format!("valid knobs: {}", names.join(", "));
    let sb = rejects_tiny(
        &["crud", "--knob", "nosuch=1"],
        &["error: --knob nosuch: unknown knob", &valid, "pragma.NAME=VALUE"],
    );
    assert_no_store(&sb);
}

#[test]
fn invalid_journal_mode_lists_valid_values() {
    let sb = rejects_tiny(
        &["crud", "--knob", "journal_mode=fast"],
        &[
            "error: --knob journal_mode=fast: invalid value",
            "valid values: delete, truncate, persist, memory, wal, off",
        ],
    );
    assert_no_store(&sb);
}

#[test]
fn page_size_not_a_power_of_two() {
    rejects_tiny(
        &["crud", "--knob", "page_size=1000"],
        &[
            "error: --knob page_size=1000: invalid value",
            "valid values: a power of two from 512 to 65536",
        ],
    );
}

#[test]
fn malformed_knob() {
    rejects_tiny(
        &["crud", "--knob", "journal_mode"],
        &[
            "error: --knob journal_mode: expected NAME=VALUE[,VALUE...]",
            "e.g. --knob journal_mode=delete,wal",
        ],
    );
}

#[test]
fn knob_given_twice() {
    rejects_tiny(
        &["crud", "--knob", "journal_mode=wal", "--knob", "journal_mode=off"],
        &["error: --knob journal_mode is given twice", "--knob journal_mode=A,B"],
    );
}

#[test]
fn unknown_param_lists_valid_params() {
    let sb = rejects(
        &["crud", "--param", "nosuch=1", "--param", "rows=200"],
        &[
            "error: --param nosuch: workload crud has no such parameter",
            "valid parameters: rows, inserts, updates, deletes, value_size, duration",
        ],
    );
    assert_no_store(&sb);
}

#[test]
fn negative_param() {
    rejects(
        &["crud", "--param", "rows=-1"],
        &[
            "error: --param rows=-1: invalid value",
            "valid: an integer from 0 to 100000000",
        ],
    );
}

#[test]
fn non_numeric_param() {
    rejects(
        &["crud", "--param", "rows=200", "--param", "inserts=abc"],
        &[
            "error: --param inserts=abc: invalid value",
            "valid: an integer from 0 to 100000000",
        ],
    );
}

#[test]
fn malformed_param() {
    rejects(
        &["crud", "--param", "rows"],
        &["error: --param rows: expected NAME=VALUE", "e.g. --param rows=1000"],
    );
}

#[test]
fn param_given_twice() {
    rejects(
        &["crud", "--param", "rows=10", "--param", "rows=20"],
        &["error: --param rows is given twice"],
    );
}

#[test]
fn more_deletes_than_rows() {
    let sb = rejects(
        &[
            "crud",
            "--param",
            "deletes=500",
            "--param",
            "rows=10",
            "--param",
            "inserts=10",
        ],
        &[
            "error: --param deletes=500: more deletes than rows + inserts (20)",
            "lower deletes or raise rows",
        ],
    );
    assert_no_store(&sb);
}

#[test]
fn dir_that_does_not_exist() {
    let sb = Sandbox::new();
    let missing = sb.scratch().join("nope");
    let out = output(
        sb.run_in(&missing, &sb.results(), &["crud"])
            .args(TINY_PARAMS)
            .args(TINY_COUNTS),
    );
    assert_error_line(
        &out,
        &[
            &format!("error: --dir {}: no such directory", missing.display()),
            "create it or give an existing directory",
        ],
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "--dir was created");
    sb.assert_cwd_untouched();
}

#[test]
fn dir_that_is_a_regular_file() {
    let sb = Sandbox::new();
    let file = sb.scratch().join("afile");
    std::fs::write(&file, "not a directory").unwrap();
    let out = output(
        sb.run_in(&file, &sb.results(), &["crud"])
            .args(TINY_PARAMS)
            .args(TINY_COUNTS),
    );
    assert_error_line(
        &out,
        &[
            &format!("error: --dir {}: not a directory", file.display()),
            "give a directory",
        ],
    );
    assert_eq!(listing(&sb.scratch()), vec!["afile".to_string()]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a directory");
    sb.assert_cwd_untouched();
}

#[test]
fn dir_that_is_not_writable() {
    // Nobody can create files in /proc, not even root.
    let sb = Sandbox::new();
    let out = output(
        sb.run_in(Path::new("/proc"), &sb.results(), &["crud"])
            .args(TINY_PARAMS)
            .args(TINY_COUNTS),
    );
    assert_error_line(
        &out,
        &[
            "error: --dir /proc: cannot create files there (",
            "give a writable directory",
        ],
    );
    assert!(
        !listing(Path::new("/proc")).iter().any(|n| n.starts_with("run-")),
        "litebench left a run directory in /proc"
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
    sb.assert_cwd_untouched();
}

#[test]
fn results_whose_parent_does_not_exist() {
    let sb = Sandbox::new();
    let results = sb.results_dir().join("nodir").join("r.db");
    let out = output(
        sb.run_in(&sb.scratch(), &results, &["crud"])
            .args(TINY_PARAMS)
            .args(TINY_COUNTS),
    );
    assert_error_line(
        &out,
        &[
            &format!("error: --results {}: directory ", results.display()),
            "nodir does not exist",
            "create it or choose another path",
        ],
    );
    assert_eq!(
        listing(&sb.results_dir()),
        Vec::<String>::new(),
        "the missing directory was created"
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
    sb.assert_cwd_untouched();
}

#[test]
fn results_that_is_a_directory() {
    let sb = Sandbox::new();
    let out = output(
        sb.run_in(&sb.scratch(), &sb.results_dir(), &["crud"])
            .args(TINY_PARAMS)
            .args(TINY_COUNTS),
    );
    assert_error_line(
        &out,
        &[
            &format!("error: --results {}: is a directory", sb.results_dir().display()),
            "give a file path",
        ],
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
    assert_no_store(&sb);
    sb.assert_cwd_untouched();
}

#[test]
fn results_that_is_not_a_database() {
    let sb = Sandbox::new();
    std::fs::write(
        sb.results(),
        "not a database, just text that is long enough to look like a header",
    )
    .unwrap();
    let out = output(sb.run(&["crud"]).args(TINY_PARAMS).args(TINY_COUNTS));
    assert_error_line(
        &out,
        &[
            &format!(
                "error: --results {}: not a litebench results store",
                sb.results().display()
            ),
            "file is not a database",
        ],
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
    sb.assert_cwd_untouched();
}

#[test]
fn zero_trials_is_a_usage_error() {
    let sb = Sandbox::new();
    let mut cmd = sb.run(&["crud", "--trials", "0", "--warmup", "0", "--quiet"]);
    cmd.args(TINY_PARAMS);
    let out = output(&mut cmd);
    assert_clap_error(&out, &["'--trials <TRIALS>'", "0 is not in 1..=100000"]);
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
    assert_no_store(&sb);
    sb.assert_cwd_untouched();
}

/// A command refused because of its `--engine` library or its `--dir` should leave nothing
/// behind, like every other refused command. Today `run` opens (and so creates) the results
/// store before it loads the engines and checks `--dir`.
#[test]
fn late_refusals_create_no_results_store() {
    let cases: Vec<Vec<String>> = vec![
        vec!["--engine".into(), "sqlite:/no/such/libsqlite3.so".into()],
        vec!["--dir".into(), "/no/such/dir".into()],
        vec!["--dir".into(), "/proc".into()],
    ];
    for extra in cases {
        let sb = Sandbox::new();
        let mut cmd = sb.litebench();
        cmd.args(["run", "crud"])
            .args(&extra)
            .arg("--results")
            .arg(sb.results());
        if !extra.contains(&"--dir".to_string()) {
            cmd.arg("--dir").arg(sb.scratch());
        }
        cmd.args(TINY_PARAMS).args(TINY_COUNTS);
        let out = output(&mut cmd);
        assert_error_line(&out, &[&extra[0]]);
        assert_eq!(
            listing(&sb.results_dir()),
            Vec::<String>::new(),
            "`run {}` was refused but created a results store",
            extra.join(" ")
        );
    }
}

#[test]
fn a_preset_knob_that_an_engine_lacks_is_refused_before_anything_runs() {
    let sb = Sandbox::new();
    for engines in [
        &["--engine", "postgres"][..],
        &["--engine", "sqlite", "--engine", "mysql"][..],
    ] {
        let mut args = vec!["--preset", "speedtest"];
        args.extend_from_slice(engines);
        let out = output(&mut sb.run(&args));
        assert_error_line(
            &out,
            &["--preset speedtest: its knob", "means nothing to", "without --preset"],
        );
        assert_no_store(&sb);
        assert!(listing(&sb.scratch()).is_empty(), "{:?}", listing(&sb.scratch()));
    }
}

#[test]
fn duration_too_large_for_the_clock() {
    // Used to panic converting the seconds to a Duration (exit 101).
    for (value, valid) in [
        ("100000000000000000000", "at most 720h (0 = off)"),
        ("1e30", "at most 720h (0 = off)"),
        ("721h", "at most 720h (0 = off)"),
    ] {
        let sb = rejects(
            &["crud", "--param", &format!("duration={value}")],
            &[&format!("error: --param duration={value}: invalid value"), valid],
        );
        assert_no_store(&sb);
    }
    let sb = rejects(
        &["tatp", "--param", "warmup_time=99999999999999999999999h"],
        &[
            "error: --param warmup_time=99999999999999999999999h: invalid value",
            "a duration greater than zero, such as 500ms, 30s, 2m, at most 720h",
        ],
    );
    assert_no_store(&sb);
}

#[test]
fn duration_rounds_that_would_run_out_of_rows() {
    // Used to panic ("cannot sample empty range") in the third round, leaving a scratch
    // directory and an abandoned run behind.
    let sb = rejects(
        &[
            "crud",
            "--param",
            "rows=2",
            "--param",
            "inserts=0",
            "--param",
            "updates=1",
            "--param",
            "deletes=1",
            "--param",
            "duration=1s",
        ],
        &[
            "error: --param deletes=1: with duration=1000ms rounds repeat",
            "would run out of rows",
            "keep deletes <= inserts",
        ],
    );
    assert_no_store(&sb);
    // Deletes that only just outgrow inserts, on a large table, run out too in the end.
    rejects(
        &[
            "crud",
            "--param",
            "rows=100000",
            "--param",
            "inserts=10",
            "--param",
            "deletes=11",
            "--param",
            "duration=1s",
        ],
        &["error: --param deletes=11: with duration=1000ms", "(inserts=10)"],
    );
}

#[test]
fn crud_rounds_that_would_run_out_of_rows_in_count_mode() {
    let sb = rejects(
        &[
            "crud",
            "--param",
            "rows=0",
            "--param",
            "inserts=0",
            "--param",
            "updates=5",
            "--param",
            "deletes=0",
        ],
        &[
            "error: --param updates: there are no rows to update",
            "set rows or inserts above 0",
        ],
    );
    assert_no_store(&sb);
}

#[test]
fn crud_that_would_measure_nothing() {
    let sb = rejects(
        &[
            "crud",
            "--param",
            "inserts=0",
            "--param",
            "updates=0",
            "--param",
            "deletes=0",
            "--param",
            "duration=1s",
        ],
        &["error: --param inserts=0, updates=0, deletes=0: a trial would measure nothing"],
    );
    assert_no_store(&sb);
}

#[test]
fn crud_round_too_large_for_memory() {
    // Used to abort on a failed allocation of (inserts + updates) x value_size bytes.
    let sb = rejects(
        &[
            "crud",
            "--param",
            "rows=10",
            "--param",
            "inserts=100000000",
            "--param",
            "value_size=1000000",
        ],
        &[
            "error: --param value_size=1000000: a round's values",
            "lower inserts, updates or value_size",
        ],
    );
    assert_no_store(&sb);
}

#[test]
fn results_that_is_a_device() {
    // Used to try to create the store's tables in /dev/null, and to print the failing
    // statement over ten lines.
    let sb = Sandbox::new();
    let out = output(
        sb.run_in(&sb.scratch(), Path::new("/dev/null"), &["crud"])
            .args(TINY_PARAMS)
            .args(TINY_COUNTS),
    );
    assert_error_line(
        &out,
        &["error: --results /dev/null: not a regular file", "give a file path"],
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
    sb.assert_cwd_untouched();
}

#[test]
fn knob_values_that_make_too_many_configurations() {
    // 101 x 100 combinations: each would be a full set of trials.
    let list = |n: usize| (1..=n).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    let sb = rejects_tiny(
        &[
            "crud",
            "--knob",
            &format!("cache_size={}", list(101)),
            "--knob",
            &format!("busy_timeout={}", list(100)),
        ],
        &[
            "error: --knob: the values given make 10100 configurations",
            "at most 10000",
            "--vary-one",
        ],
    );
    assert_no_store(&sb);
}

/// The blob workload's bad values, and the `files` engine asked for anything but `blob`.
#[test]
fn blob_bad_values_and_files_outside_blob_are_refused() {
    let blob = |extra: &[&str], parts: &[&str]| {
        let mut args = vec!["blob", "--param", "measure_time=200ms", "--param", "warmup_time=0"];
        args.extend_from_slice(extra);
        rejects(&args, parts);
    };
    blob(
        &["--param", "size=0"],
        &[
            "error: --param size=0: invalid value",
            "a size from 1 to 1000000000 bytes",
        ],
    );
    blob(
        &["--param", "read_ratio=1.5"],
        &["error: --param read_ratio=1.5: invalid value", "a number from 0 to 1"],
    );
    blob(
        &["--param", "size=1000", "--param", "size_variance=1000"],
        &["error: --param size_variance=1000: must be smaller than size (1000)"],
    );
    blob(
        &["--engine", "files", "--knob", "durability=sometimes"],
        &[
            "error: --knob durability=sometimes: invalid value",
            "none, data, atomic",
        ],
    );
    blob(
        &["--knob", "blob_api=mmap"],
        &["error: --knob blob_api=mmap: invalid value", "sql, incremental"],
    );
    rejects_tiny(
        &["crud", "--engine", "files"],
        &["error: --engine files: cannot run workload crud"],
    );
}

/// Every kind of error the argument parser reports (an unknown flag or subcommand, a value out
/// of range or not among the valid ones, a missing argument or value, a conflict) is one line
/// that names what is wrong, like every other litebench error; clap alone prints several.
#[test]
fn argument_parser_errors_are_one_line_naming_the_flag() {
    let sb = Sandbox::new();
    let cases: &[(&[&str], &[&str])] = &[
        (&["nosuch"], &["'nosuch'", "`litebench --help`"]),
        (&["run"], &["missing workload", "crud"]),
        (&["run", "crud", "--bogus"], &["'--bogus'", "`litebench run --help`"]),
        (&["run", "crud", "--trials", "x"], &["--trials", "'x'"]),
        (&["run", "crud", "--trials"], &["--trials", "value"]),
        (
            &["run", "crud", "--format", "yaml"],
            &["--format", "'yaml'", "(valid values: table"],
        ),
        (&["show", "--format", "xml"], &["--format", "'xml'", "(valid values:"]),
        (&["list", "--format", "yaml"], &["--format", "'yaml'", "(valid values:"]),
        (&["compare", "1"], &["<B>", "`litebench compare --help`"]),
        (&["compare", "1", "2", "--noise", "x"], &["--noise", "'x'"]),
        (&["merge"], &["<OUT>", "`litebench merge --help`"]),
        (&["merge", "out.db"], &["<IN>", "`litebench merge --help`"]),
        (&["report", "--bogus"], &["'--bogus'", "`litebench report --help`"]),
        (&["reproduce", "nosuch"], &["nosuch"]),
        (&["ssb-gen"], &["required", "`litebench ssb-gen --help`"]),
        (&["tpch-gen"], &["required", "`litebench tpch-gen --help`"]),
        (&["verify-durability", "--bogus"], &["'--bogus'"]),
        (&["env", "--bogus"], &["'--bogus'"]),
    ];
    for (args, parts) in cases {
        let mut cmd = sb.litebench();
        cmd.args(*args);
        let out = output(&mut cmd);
        assert_clap_error(&out, parts);
    }
    sb.assert_cwd_untouched();
}
