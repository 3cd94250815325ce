//! `litebench merge OUT IN...`: copies the runs of other results stores into one.
//!
//! An input may also be a side file a run left when its store could not take its trials
//! ([`crate::store::unsaved`]): its run is imported (completed, if OUT already holds part of
//! it), and the file is left as it is, like every input.

use super::Failure;
use crate::cli::MergeArgs;
use crate::report::layout::table;
use crate::report::Format;
use crate::store::unsaved::{self, Unsaved};
use crate::store::Store;

/// One input: a results store, or a side file.
enum Input {
    Store(Store),
    Side(Box<Unsaved>),
}

/// Runs the `merge` subcommand.
pub fn run(args: &MergeArgs) -> Result<i32, Failure> {
    let out_real = args.out.canonicalize().ok();
    for input in &args.inputs {
        if !input.is_file() {
            return Err(Failure(format!(
                "merge {}: no such results store; give the path of a store another litebench wrote",
                input.display()
            )));
        }
        if out_real.is_some() && input.canonicalize().ok() == out_real {
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
            Input::Store(Store::open_read(input)?)
        };
        inputs.push((input, opened));
    }
    crate::store::check_path(&args.out, true)?;
    let mut out = Store::open(&args.out, true)?;
    let mut rows = Vec::new();
    let mut json = Vec::new();
    for (path, input) in &mut inputs {
        let m = match input {
            Input::Store(store) => out.merge_from(store)?,
            Input::Side(side) => {
                let i = out.import_unsaved(&side.run)?;
                crate::store::merge::Merged {
                    runs_added: usize::from(i.added),
                    runs_present: usize::from(!i.added),
                    trials_added: i.trials_added,
                    verdicts_added: 0,
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
        json.push(serde_json::json!({"input": path.display().to_string(), "merged": m}));
    }
    match args.format {
        Format::Json => crate::outln!("{}", crate::report::json::value(&json)),
        f => crate::out!(
            "{}",
            table(
                &[
                    "input",
                    "runs added",
                    "runs already there",
                    "trials added",
                    "verdicts added"
                ],
                &rows,
                f == Format::Markdown
            )
        ),
    }
    Ok(0)
}
