//! Which knob acts on which workload, and the refusal of a knob that would act on nothing.
//!
//! A knob the engine applies to the file or the connection and reads back (`journal_mode`,
//! `busy_timeout`, `threads` ...) acts on every workload run there: a durability knob on a
//! read-only workload still decides how its file is opened. A knob only a workload's own
//! statements read (`begin`, `blob_api`: [`ReadBy::Workload`]) acts only where that workload
//! reads it; accepted elsewhere, it was read back and printed as the configuration's label while
//! both configurations ran the same statements (`--knob begin=immediate` on crud's autocommit
//! statements), and the user concluded it made no difference. So such a pair is refused before
//! anything runs, in one line naming the knob, the workload and what to do. docs/knobs.md holds
//! the whole knob x workload table; a unit test walks the registries against it.

use crate::engines::kind::EngineKind;
use crate::model::knob::{find_spec, KnobSpec, ReadBy, Stage};
use crate::model::params::Params;
use crate::workload::Workload;

/// A knob given for a workload that never reads it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{given} {knob}: {why}, so it would change nothing {workload} runs; leave it out (docs/knobs.md lists which knob acts on which workload)")]
pub struct Unread {
    /// How the knob was given: `--knob`, or `--preset NAME's knob`.
    pub given: String,
    pub knob: String,
    pub workload: String,
    /// Why the workload does not read it (from [`Workload::reads_knob`]).
    pub why: String,
}

/// Whether knob `spec` acts on workload `w` run with `p`: `Err(why not)` where it would not.
pub fn reach(w: &dyn Workload, spec: &KnobSpec, p: &Params) -> Result<(), String> {
    match spec.read_by {
        // A knob set when the template is created is never set on a user's database file,
        // which every trial starts from a copy of.
        ReadBy::Engine if spec.stage == Stage::Create => match w.template_file(p) {
            Some(db) => Err(format!(
                "every trial of {} starts from a copy of --param db={}, whose {} is the file's own (set it in the file, or leave out --param db)",
                w.name(),
                db.display(),
                spec.name
            )),
            None => Ok(()),
        },
        ReadBy::Engine => Ok(()),
        ReadBy::Workload => w.reads_knob(spec.name, p),
    }
}

/// Refuses the first knob of `knobs` (each with how it was given) that an engine of `kinds` has
/// and workload `w` would not read.
pub fn check<'a>(
    w: &dyn Workload,
    p: &Params,
    kinds: &[&EngineKind],
    knobs: impl IntoIterator<Item = (&'a str, String)>,
) -> Result<(), Unread> {
    for (knob, given) in knobs {
        for kind in kinds {
            let Some(spec) = find_spec(kind.knobs, knob) else {
                continue;
            };
            if let Err(why) = reach(w, spec, p) {
                return Err(Unread {
                    given,
                    knob: knob.to_string(),
                    workload: w.name().to_string(),
                    why,
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
