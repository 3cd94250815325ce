//! The `vector` workload: sqlite-vec and vectorlite in one run, recall@k against the brute-force
//! answer, the answer's verdicts, client processes that each load the extension, and the
//! refusals. Tiny sizes: a few hundred vectors of 8 dimensions.

use crate::cli::common::*;
use crate::cli::extension::{require_extension, SQLITE_VEC};
use litebench::engines::sqlite::extension::PINNED;

const TINY: &[&str] = &[
    "vector",
    "--param",
    "count=300",
    "--param",
    "dimension=8",
    "--param",
    "queries=40",
    "--trials",
    "1",
    "--warmup",
    "0",
];

/// The `knn` and `knn found` operations of configuration `config`'s first trial: (queries,
/// queries with k rows, neighbours found per query on average).
fn knn(v: &serde_json::Value, config: u64) -> (u64, u64, f64) {
    let t = v["trials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["config"] == config)
        .expect("a trial of the configuration");
    let op = |name: &str| {
        t["ops"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {t:#}"))
    };
    let (q, found) = (op("knn"), op("knn found"));
    (
        q["ops"].as_u64().unwrap(),
        q["succeeded"].as_u64().unwrap(),
        found["latency"]["mean_ns"].as_f64().unwrap(),
    )
}

/// sqlite-vec (exact: every query finds its 10 nearest) and a deliberately poor vectorlite
/// index (M=2, ef_construction=1) in one run: the answer ranks vec0 and gives vectorlite's
/// shortfall as its verdict, with the recall it measured.
#[test]
fn sqlite_vec_and_vectorlite_compare_in_one_run_and_a_poor_index_is_a_verdict() {
    if !PINNED.iter().all(require_extension) {
        return;
    }
    let sb = Sandbox::new();
    let mut args = TINY.to_vec();
    args.extend([
        "--knob",
        "extension=sqlite-vec@0.1.9,vectorlite@0.2.0",
        "--knob",
        "hnsw_m=2",
        "--knob",
        "hnsw_ef_construction=1",
        "--param",
        "recall_floor=0.95",
    ]);
    let out = output(sb.run(&args).env("COLUMNS", "80"));
    assert_success(&out);
    let text = stdout(&out);
    let answer: String = text
        .lines()
        .skip_while(|l| !l.starts_with("answer:"))
        .take_while(|l| !l.is_empty())
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        answer.contains("#0 (extension=sqlite-vec@0.1.9) has the lowest p99 of those with recall@10 >= 0.95")
            && answer.contains("recall@10 1.000"),
        "{text}"
    );
    assert!(
        answer.contains("#1 (extension=vectorlite@0.2.0 hnsw_m=2 hnsw_ef_construction=1): not ranked:"),
        "{text}"
    );
    assert!(text.contains("vectorlite HNSW (approximate)"), "{text}");
    let v = sb.show_json();
    let (queries, full, found) = knn(&v, 0);
    assert_eq!((queries, full), (40, 40));
    assert_eq!(found, 10.0, "vec0 is exact: all 10 nearest, every query");
    let (queries, _, found) = knn(&v, 1);
    assert_eq!(queries, 40);
    assert!(
        found < 10.0 * 0.95,
        "M=2 and ef_construction=1 miss neighbours: {found}"
    );
    for t in v["trials"].as_array().unwrap() {
        let build = t["ops"].as_array().unwrap().iter().find(|o| o["name"] == "index build");
        assert_eq!(build.map(|b| &b["ops"]), Some(&serde_json::json!(1)), "{t:#}");
        // The index's size, once per trial: at least its 300 vectors of 8 float32s (9.4 KiB),
        // in the file's pages for vec0, on the heap for vectorlite.
        let size = t["ops"].as_array().unwrap().iter().find(|o| o["name"] == "index KiB");
        let kib = size.and_then(|s| s["latency"]["mean_ns"].as_f64()).unwrap_or(0.0);
        assert!(kib >= 300.0 * 8.0 * 4.0 / 1024.0, "{t:#}");
    }
    assert!(text.contains("KiB file ") && text.contains("iB heap "), "{text}");
    // Counts recorded in the latency's place are no statement's latency.
    assert!(!text.contains("knn found") && !text.contains("index KiB"), "{text}");
}

/// Two client processes: each opens its own connection with the extension loaded (its queries
/// would fail on `vec_f32` otherwise), and inserts land beside the queries.
#[test]
fn two_client_processes_each_load_sqlite_vec() {
    if !require_extension(SQLITE_VEC) {
        return;
    }
    let sb = Sandbox::new();
    let mut args = TINY.to_vec();
    args.extend([
        "--knob",
        "extension=sqlite-vec@0.1.9",
        "--clients",
        "2",
        "--client-mode",
        "processes",
        "--param",
        "insert_share=0.2",
    ]);
    let out = output(&mut sb.run(&args));
    assert_success(&out);
    let v = sb.show_json();
    let t = &v["trials"][0];
    let ops = |name: &str| {
        t["ops"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == name)
            .map_or(0, |o| o["ops"].as_u64().unwrap())
    };
    assert_eq!(ops("knn") + ops("insert"), 40, "{t:#}");
    assert!(ops("insert") > 0 && ops("knn") > 0, "{t:#}");
    let (_, _, found) = knn(&v, 0);
    assert_eq!(found, 10.0, "exact with the other client's inserts counted: {t:#}");
}

/// Refused by the plan, before anything runs: nothing is stored (no failed run without trials).
#[test]
fn sqlite_without_a_vector_extension_is_refused() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run(TINY));
    assert_error_line(
        &out,
        &[
            "--engine sqlite: the vector workload needs a vector index",
            "--knob extension=sqlite-vec@0.1.9",
            "--engine duckdb",
        ],
    );
    assert!(!sb.results().exists(), "a refused plan stores nothing");
    let mut args = TINY.to_vec();
    args.extend(["--engine", "duckdb", "--param", "element=int8"]);
    // Before any extension is fetched or any engine started: DuckDB's scan has no int8.
    let out = output(&mut sb.run(&args));
    assert_error_line(&out, &["--param element=int8", "int8 runs on sqlite-vec"]);
}

#[test]
fn vectorlite_with_two_clients_is_refused() {
    if !require_extension(&PINNED[1]) {
        return;
    }
    let sb = Sandbox::new();
    let mut args = TINY.to_vec();
    args.extend(["--knob", "extension=vectorlite@0.2.0", "--clients", "2"]);
    let out = output(&mut sb.run(&args));
    assert_error_line(
        &out,
        &["--clients 2: vectorlite's HNSW index lives in the memory of the connection that built it"],
    );
    assert!(!sb.results().exists(), "a refused plan stores nothing");
}

/// The engine peer in the same run: DuckDB's `array_distance` scan beside sqlite-vec, both
/// exact (the trial would fail otherwise), the extension knob loaded on SQLite's configuration
/// only.
#[test]
fn duckdb_array_distance_is_the_exact_peer_beside_sqlite_vec() {
    if !require_extension(SQLITE_VEC) || !crate::support::require_duckdb(crate::support::DUCKDB) {
        return;
    }
    let sb = Sandbox::new();
    let mut args = TINY.to_vec();
    args.extend([
        "--engine",
        "sqlite",
        "--engine",
        "duckdb",
        "--knob",
        "extension=sqlite-vec@0.1.9",
    ]);
    let out = output(&mut sb.run(&args));
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("DuckDB array_distance (exact scan)"), "{text}");
    let v = sb.show_json();
    for config in [0, 1] {
        let (queries, full, found) = knn(&v, config);
        assert_eq!((queries, full, found), (40, 40, 10.0), "config {config}");
    }
    assert!(
        v["manifest"]["configs"][1]["extension"].is_null(),
        "DuckDB loads no SQLite extension"
    );
}

/// vectorlite's knobs beside sqlite-vec change nothing: sqlite-vec runs once, not once per
/// `hnsw_ef_search` value under labels that name a knob it never read; a `--knob` that acts
/// in no configuration at all is refused. Both are the plan's (`--dry-run`: nothing fetched).
#[test]
fn hnsw_knobs_multiply_only_vectorlite_and_alone_are_refused() {
    let sb = Sandbox::new();
    let mut args = TINY.to_vec();
    args.extend([
        "--knob",
        "extension=sqlite-vec@0.1.9,vectorlite@0.2.0",
        "--knob",
        "hnsw_ef_search=10,64",
        "--dry-run",
    ]);
    let out = output(&mut sb.run(&args));
    assert_success(&out);
    let text = stdout(&out).split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "workload vector, 3 configurations",
        "#0 engine sqlite, knobs busy_timeout=5000 (workload vector default) extension=sqlite-vec@0.1.9 #1 engine",
        "extension=vectorlite@0.2.0 hnsw_ef_search=10",
        "extension=vectorlite@0.2.0 hnsw_ef_search=64",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    let mut args = TINY.to_vec();
    args.extend(["--knob", "extension=sqlite-vec@0.1.9", "--knob", "hnsw_m=4"]);
    let out = output(&mut sb.run(&args));
    assert_error_line(
        &out,
        &["--knob hnsw_m: changes nothing in any configuration of this vector run"],
    );
}
