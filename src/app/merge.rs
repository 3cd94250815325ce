//! `litebench merge OUT IN...`: copies the runs of other results stores into one.
//!
//! A new OUT appears only complete ([`crate::base::outfile`]); an existing OUT takes each run in one
//! transaction. OUT is never one of the inputs, by any name.
//!
//! An input may also be a side file a run left when its store could not take its trials
//! ([`crate::store::unsaved`]): its run is imported (completed, if OUT already holds part of
//! it), and the file is left as it is, like every input. It is refused, and nothing is merged,
//! when its records do not add up ([`crate::store::unsaved::read`]).

use crate::app::cli::MergeArgs;
use crate::base::outfile::{self, OutFile};
use crate::base::Failure;
use crate::report::format::{render, Document};
use crate::store::unsaved::{self, Unsaved};
use crate::store::Store;
use std::path::PathBuf;

/// One input: a results store, or a side file (each boxed: both are large).
enum Input {
    Store(Box<Store>),
    Side(Box<Unsaved>),
}

/// Each input's row of the table, each run's row of the mapping table, and the JSON.
type Rows = (Vec<Vec<String>>, Vec<Vec<String>>, Vec<serde_json::Value>);

/// Copies each input into `out`.
fn merge_all(out: &mut Store, inputs: &mut [(&PathBuf, Input)]) -> Result<Rows, Failure> {
    let mut rows = Vec::new();
    let mut mapping = Vec::new();
    let mut json = Vec::new();
    for (path, input) in inputs {
        let m = match input {
            Input::Store(store) => out.merge_from(store)?,
            Input::Side(side) => {
                let i = out.import_unsaved(&side.run)?;
                crate::store::merge::Merged {
                    runs_added: usize::from(i.added),
                    runs_present: usize::from(!i.added),
                    trials_added: i.trials_added,
                    verdicts_added: 0,
                    runs: vec![crate::store::merge::Mapped {
                        from: None,
                        to: i.run_id,
                        added: i.added,
                        renamed_from: side.run.name.clone().filter(|n| i.added && Some(n) != i.name.as_ref()),
                        name: i.name,
                    }],
                }
            }
        };
        rows.push(vec![
            path.display().to_string(),
            m.runs_added.to_string(),
            m.runs_present.to_string(),
            m.trials_added.to_string(),
            m.verdicts_added.to_string(),
        ]);
        for r in &m.runs {
            mapping.push(vec![
                path.display().to_string(),
                r.from.map_or_else(|| "side file".to_string(), |id| id.to_string()),
                r.to.to_string(),
                if r.added { "added" } else { "already there" }.to_string(),
                match (&r.name, &r.renamed_from) {
                    (Some(n), Some(was)) => format!("{n} (was {was}; the name is taken)"),
                    (Some(n), None) => n.clone(),
                    _ => "-".to_string(),
                },
            ]);
        }
        json.push(serde_json::json!({"input": path.display().to_string(), "merged": m}));
    }
    Ok((rows, mapping, json))
}

/// Runs the `merge` subcommand.
pub fn run(args: &MergeArgs) -> Result<i32, Failure> {
    for input in &args.inputs {
        if !input.is_file() {
            return Err(Failure(format!(
                "merge {}: no such results store; give the path of a store another litebench wrote",
                input.display()
            )));
        }
        // The same file by any name: a hard link or a symbolic link too.
        if outfile::same_file(input, &args.out) {
            return Err(Failure(format!(
                "merge {}: it is also OUT; merging a store into itself adds nothing",
                input.display()
            )));
        }
    }
    // Every input is opened (and checked) before OUT is created or changed.
    let mut inputs = Vec::new();
    for input in &args.inputs {
        let opened = if unsaved::is_side_file(input) {
            Input::Side(Box::new(unsaved::read(input)?))
        } else {
            Input::Store(Box::new(Store::open_read(input)?))
        };
        inputs.push((input, opened));
    }
    let found = args.out.symlink_metadata();
    if found.as_ref().is_ok_and(|m| m.file_type().is_symlink()) {
        // Dangling, SQLite would create a store wherever it points.
        return Err(outfile::OutputError::Symlink {
            flag: "merge OUT".into(),
            path: args.out.clone(),
        }
        .into());
    }
    let (rows, mapping, json) = if found.is_ok() {
        // An existing store (refused when damaged or newer): each run goes in with one
        // transaction, as a run stores itself.
        crate::store::check_path(&args.out, true)?;
        merge_all(&mut Store::open(&args.out, true)?, &mut inputs)?
    } else {
        // A new store is built in a temporary file beside OUT and appears only when complete:
        // a corrupt input or a full disk leaves no OUT.
        outfile::check("merge OUT", &args.out)?;
        let out_error = |e: std::io::Error| outfile::OutputError::from_io("merge OUT", &args.out, e);
        let mut temp = OutFile::create(&args.out).map_err(out_error)?;
        temp.companions(&["-journal", "-wal", "-shm"]);
        // SQLite alone holds the file open: closing another descriptor of it would drop
        // SQLite's locks.
        temp.close();
        let merged = {
            let mut out = Store::create_merged(temp.temp_path(), &args.out)?;
            merge_all(&mut out, &mut inputs)?
        };
        temp.commit().map_err(out_error)?;
        merged
    };
    let doc = Document::new(&json).table(
        "merged",
        &[
            "input",
            "runs added",
            "runs already there",
            "trials added",
            "verdicts added",
        ],
        rows,
    );
    // Ids are local to a store: where each input's run is now.
    let doc = if mapping.is_empty() {
        doc
    } else {
        doc.text("\nruns (id in the input -> id in OUT):\n").table(
            "runs",
            &["input", "run", "run in OUT", "merged", "name"],
            mapping,
        )
    };
    crate::out!("{}", render(&doc, args.format.value));
    Ok(0)
}
