//! `litebench list`: workloads, engines and knobs with their valid values and defaults.

use super::Failure;
use crate::cli::ListArgs;
use crate::knob::SQLITE_KNOBS;
use crate::registry::ENGINES;
use crate::render::{table, Format};
use crate::workload::{self, params};

/// Prints the lists.
pub fn run(args: &ListArgs) -> Result<i32, Failure> {
    if args.format == Format::Json {
        let v = serde_json::json!({
            "workloads": workload::all().iter().map(|w| serde_json::json!({
                "name": w.name(), "about": w.about(), "source": w.source(),
                "params": w.params().iter().map(|p| serde_json::json!({"name": p.name, "default": p.default, "valid": params::describe(p), "help": p.help})).collect::<Vec<_>>(),
                "operations": w.operations(),
            })).collect::<Vec<_>>(),
            "engines": ENGINES.iter().map(|(n, h)| serde_json::json!({"name": n, "about": h})).collect::<Vec<_>>(),
            "knobs": SQLITE_KNOBS.iter().map(|k| serde_json::json!({"name": k.name, "valid": k.kind.describe(), "default": k.default, "stage": k.stage, "help": k.help})).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v).expect("json"));
        return Ok(0);
    }
    let md = args.format == Format::Markdown;
    println!("workloads\n");
    for w in workload::all() {
        println!("{} — {}\n  source: {}", w.name(), w.about(), w.source());
        let rows: Vec<Vec<String>> = w
            .params()
            .iter()
            .map(|p| {
                vec![
                    p.name.to_string(),
                    p.default.to_string(),
                    params::describe(p),
                    p.help.to_string(),
                ]
            })
            .collect();
        println!("{}", table(&["param", "default", "valid", "meaning"], &rows, md));
    }
    println!("engines\n");
    let rows: Vec<Vec<String>> = ENGINES
        .iter()
        .map(|(n, h)| vec![n.to_string(), h.to_string()])
        .collect();
    println!("{}", table(&["engine", "what"], &rows, md));
    println!("knobs (--knob NAME=V1,V2; pragma.NAME=VALUE passes any other pragma through)\n");
    let rows: Vec<Vec<String>> = SQLITE_KNOBS
        .iter()
        .map(|k| {
            vec![
                k.name.to_string(),
                k.kind.describe(),
                k.default.to_string(),
                k.help.to_string(),
            ]
        })
        .collect();
    print!(
        "{}",
        table(&["knob", "valid values", "SQLite default", "meaning"], &rows, md)
    );
    Ok(0)
}
