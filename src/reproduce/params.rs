//! `reproduce --param NAME=VALUE`: a user's parameter overrides each experiment's own value of
//! it, applies to the experiments whose workloads have it, and is named in one warning for
//! those it does not apply to; a parameter no experiment's workload has is an error.
//!
//! Why: `--help` says the parameter is added to every experiment, yet appending it to an
//! experiment that already sets it failed with "--param rows is given twice", and one whose
//! workloads lack it failed with "none of this run's workloads has such a parameter", so
//! `reproduce apsys17 --param rows=1000` failed every experiment at once.

use crate::base::Failure;
use crate::bench::settings::RunArgs;
use crate::workload::preset;

/// The name of a `NAME=VALUE` argument.
fn name_of(arg: &str) -> &str {
    arg.split_once('=').map_or(arg, |(n, _)| n).trim()
}

/// The workloads an experiment's settings run: its workload, its presets' and their groups'.
fn workloads(s: &RunArgs) -> Vec<&'static dyn crate::workload::Workload> {
    let mut names: Vec<&str> = s.workload.iter().map(String::as_str).collect();
    for p in &s.presets {
        if let Some(p) = preset::find(p) {
            names.push(p.workload);
        } else if let Some(g) = preset::find_group(p) {
            names.extend(
                g.members
                    .iter()
                    .filter_map(|m| preset::find(m.preset))
                    .map(|p| p.workload),
            );
        }
    }
    names.into_iter().filter_map(crate::workload::find).collect()
}

/// True when one of the workloads `s` runs has parameter `name`.
pub fn applies(s: &RunArgs, name: &str) -> bool {
    workloads(s).iter().any(|w| w.params().iter().any(|p| p.name == name))
}

/// Sets the user's parameters on one experiment's settings: each replaces the experiment's own
/// value of that name where the experiment's workloads have it, and is left out where not.
pub fn apply(s: &mut RunArgs, user: &[String]) {
    for arg in user {
        let name = name_of(arg);
        if !arg.contains('=') || applies(s, name) {
            s.params.retain(|p| name_of(p) != name);
            s.params.push(arg.clone());
        }
    }
}

/// Before anything runs: every user parameter must apply to some experiment (`experiments`:
/// each one's id and settings); returns one warning per parameter naming the experiments it
/// does not apply to.
pub fn check(experiments: &[(&str, RunArgs)], user: &[String]) -> Result<Vec<String>, Failure> {
    let mut warnings = Vec::new();
    for arg in user.iter().filter(|a| a.contains('=')) {
        let name = name_of(arg);
        let (yes, no): (Vec<_>, Vec<_>) = experiments.iter().partition(|(_, s)| applies(s, name));
        if yes.is_empty() {
            return Err(Failure(format!(
                "--param {arg}: no experiment's workload has a parameter {name}; see litebench list for each workload's parameters"
            )));
        }
        if !no.is_empty() {
            let ids: Vec<&str> = no.iter().map(|(id, _)| *id).collect();
            warnings.push(format!(
                "warning: --param {arg} does not apply to {} (no workload of theirs has it); they run with their own parameters",
                ids.join(", ")
            ));
        }
    }
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(words: &[&str]) -> RunArgs {
        crate::bench::settings::from_words(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn a_users_parameter_replaces_the_experiments_own() {
        let mut s = settings(&["crud", "--param", "rows=100", "--param", "inserts=5"]);
        apply(&mut s, &["rows=1000".into()]);
        assert_eq!(s.params, ["inserts=5", "rows=1000"]);
    }

    #[test]
    fn a_parameter_goes_only_where_a_workload_has_it_and_nowhere_is_an_error() {
        let crud = settings(&["crud"]);
        let mut table1 = settings(&["--preset", "table1"]);
        apply(&mut table1, &["rows=1000".into()]);
        assert!(
            !table1.params.iter().any(|p| p.starts_with("rows=")),
            "{:?}",
            table1.params
        );
        let exps = [("fig1", crud), ("table1", table1)];
        let w = check(&exps, &["rows=1000".into()]).unwrap();
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("--param rows=1000 does not apply to table1"), "{}", w[0]);
        let e = check(&exps, &["nosuch=1".into()]).unwrap_err();
        assert!(
            e.0.starts_with("--param nosuch=1: no experiment's workload has"),
            "{}",
            e.0
        );
    }
}
