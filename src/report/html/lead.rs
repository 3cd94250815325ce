//! What a page of several runs shows before the runs themselves: the table a preset group
//! reproduces, the paper's values beside this machine's (as `reproduce` leads with its
//! figures), and the comparison of the runs, the same verdict table `compare` prints.
//!
//! A reader of a page of several runs came with a question about them together (is WAL faster
//! than it was last week; does Table 1 hold here); each run's own answer comes after.

use super::page::{esc, table};
use crate::model::record::Manifest;
use crate::report::compare::{compare, Side};
use crate::report::format::{Document, Part};
use crate::report::presets::{comparison_tables, lead_title, PresetRun, StoredPresets, TitledTable};
use crate::report::stats::Statistics;
use crate::report::summary::SummaryRow;
use crate::report::{operations_of, RunWorkload};
use crate::store::StoredRun;

/// A document of the text formats (`compare`'s) as HTML: headings, prose lines, tables.
pub fn document_html(doc: &Document) -> String {
    let mut o = String::new();
    for p in &doc.parts {
        match p {
            Part::Heading(s) => o += &format!("<h3>{}</h3>\n", esc(s)),
            Part::Text(s) => {
                for line in s.lines().filter(|l| !l.trim().is_empty()) {
                    let class = if line.starts_with("warning:") { "bad" } else { "meta" };
                    o += &format!("<p class=\"{class}\">{}</p>\n", esc(line));
                }
            }
            Part::Table(t) => o += &table(&t.headers, &t.rows),
        }
    }
    o
}

/// The preset comparison's tables, each group's paper table (APSys'17 Table 1) first.
pub fn presets(tables: &[TitledTable]) -> String {
    let mut ordered: Vec<&TitledTable> = tables.iter().skip(1).collect();
    ordered.extend(tables.first());
    let mut o = String::new();
    for t in ordered {
        o += &format!("<h3>{}</h3>\n", esc(&t.title));
        o += &table(&t.headers, &t.rows);
        if let Some(n) = &t.note {
            o += &format!("<p class=\"meta\">{}</p>\n", esc(n));
        }
    }
    o
}

/// What leads a page of stored runs whose session compared presets: its title and the
/// comparison's tables, the group's paper table first, read from what the runs recorded (so
/// `run --report` and a later `report` of the same runs show the same Table 1). `summaries`:
/// each run's summary rows, as its page shows them.
pub fn stored_presets(runs: &[&StoredRun], summaries: &[Vec<SummaryRow>]) -> Option<(String, String)> {
    let manifests: Vec<&Manifest> = runs.iter().map(|r| &r.manifest).collect();
    let stored = StoredPresets::of(&manifests)?;
    let ends: Vec<PresetRun<'_>> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| PresetRun {
            run_id: r.id,
            manifest: &r.manifest,
            summary: &summaries[i],
            presets: &stored.picks[i],
            preset_names: &stored.names[i],
        })
        .collect();
    let tables = comparison_tables(&ends, &stored.groups);
    (!tables.is_empty()).then(|| (lead_title(&stored.groups), presets(&tables)))
}

/// Each run after the first against the first (A, the baseline), as `compare A B` prints it;
/// a run of another workload or other parameters is named as not comparable (`name_others`;
/// a reproduction's experiments differ by design and are not named). `None` when no two runs
/// compare (fewer than two, or all of different workloads: `--preset table1`'s tools).
pub fn runs_comparison(runs: &[&StoredRun], noise: Option<f64>, name_others: bool) -> Option<String> {
    let (a, rest) = runs.split_first()?;
    if rest.is_empty() {
        return None;
    }
    fn side(r: &StoredRun) -> Side<'_> {
        Side {
            run: r.id,
            name: r.name.clone(),
            status: r.status.clone(),
            config: None,
            manifest: &r.manifest,
            trials: &r.trials,
        }
    }
    let mut o = String::new();
    let mut compared = 0;
    for b in rest {
        let (ma, mb) = (&a.manifest, &b.manifest);
        if ma.workload != mb.workload || ma.params != mb.params {
            if !name_others {
                continue;
            }
            o += &format!(
                "<p class=\"meta\">run {} ({}) and run {} ({}) ran different workloads or parameters: not compared (<code>litebench compare --force</code> compares anyway).</p>\n",
                a.id,
                esc(&ma.workload),
                b.id,
                esc(&mb.workload)
            );
            continue;
        }
        let mut ops = operations_of(ma, RunWorkload::of(ma), &a.trials);
        for op in operations_of(mb, RunWorkload::of(mb), &b.trials) {
            if !ops.contains(&op) {
                ops.push(op);
            }
        }
        let c = compare(
            side(a),
            side(b),
            crate::report::compare::metric_for(ma, mb, None),
            Statistics::of(ma, noise),
            &ops,
        );
        compared += 1;
        o += &format!("<div class=\"comparison\" id=\"compare-{}-{}\">\n", a.id, b.id);
        o += &document_html(&c.document());
        o += "</div>\n";
    }
    (compared > 0).then_some(o)
}
