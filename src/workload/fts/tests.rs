//! The workload on the bundled SQLite: a trial of each tokenizer runs and passes its answer
//! check, the check fails where the scan and the index disagree, and the refusals.

use super::*;
use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::model::knob::KnobSetting;
use crate::model::params::resolve;
use crate::workload::Connector;
use std::sync::atomic::AtomicBool;

fn params(args: &[&str]) -> Params {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    resolve("fts", PARAMS, &args).expect("valid parameters")
}

fn knobs(tokenizer: &str, detail: &str) -> KnobSet {
    KnobSet(vec![
        KnobSetting {
            name: TOKENIZER_KNOB.into(),
            value: tokenizer.into(),
        },
        KnobSetting {
            name: DETAIL_KNOB.into(),
            value: detail.into(),
        },
    ])
}

struct OneConnection;

impl Connector for OneConnection {
    fn open(&self) -> Result<Box<dyn Connection>, WorkloadError> {
        panic!("one client uses the trial's connection")
    }
}

fn populated(p: &Params, k: &KnobSet) -> SqliteConn {
    let mut conn = SqliteConn::open_memory(Api::bundled(), "sqlite").expect("in-memory SQLite");
    let mut pop = Population::plain(p, 5);
    pop.knobs = k.clone();
    let rows = Fts.populate(&mut conn, &pop).expect("populate");
    assert_eq!(rows, p.count("documents"));
    conn
}

#[test]
fn a_trial_of_each_tokenizer_runs_every_operation_and_passes_its_check() {
    for (tokenizer, detail, extra) in [
        ("unicode61", "full", ""),
        ("porter", "full", ""),
        ("unicode61", "column", "phrase=0"),
        ("porter", "none", "phrase=0"),
        ("trigram", "full", "prefix=0"),
    ] {
        let mut args = vec![
            "documents=300",
            "vocabulary=400",
            "length=20",
            "operations=700",
            "check=40",
        ];
        if !extra.is_empty() {
            args.push(extra);
        }
        let p = params(&args);
        let k = knobs(tokenizer, detail);
        assert_eq!(refused(&p, &k), Ok(()));
        let mut conn = populated(&p, &k);
        assert_eq!(
            crate::engines::sqlite::fts5::declared(&mut conn, TOKENIZER_KNOB)
                .unwrap()
                .as_deref(),
            Some(tokenizer)
        );
        let stop = AtomicBool::new(false);
        let trial = Trial::plain(&p, 9, &stop, &OneConnection);
        let mut rec = Recorder::new(&OPS, None);
        Fts.run(&mut conn, &trial, &mut rec).expect("trial");
        Fts.verify(&mut conn, &p).expect("the answers check");
        let (ops, _) = rec.finish();
        assert_eq!(ops.iter().map(|o| o.ops).sum::<u64>(), 700, "{tokenizer} {detail}");
        for o in &ops {
            let weight = p.real(&o.name);
            assert_eq!(
                o.ops > 0,
                weight > 0.0,
                "{tokenizer} {detail}: {} ran {} times",
                o.name,
                o.ops
            );
            assert_eq!(
                o.succeeded.unwrap_or(o.ops),
                o.ops,
                "{tokenizer} {detail}: every {} succeeds",
                o.name
            );
        }
    }
}

/// What makes the word matching of the scan hold for `porter`: SQLite's own stemmer leaves
/// every word of the corpus as it is.
#[test]
fn porter_keeps_every_word_of_the_corpus_as_it_is() {
    let p = params(&["documents=400", "vocabulary=3000", "length=30"]);
    let mut conn = populated(&p, &knobs("porter", "full"));
    conn.execute_batch("CREATE VIRTUAL TABLE v USING fts5vocab(docs, row)")
        .unwrap();
    let terms = conn.query("SELECT term FROM v").unwrap();
    let corpus = Corpus::new(shape(&p), 5);
    let words: std::collections::HashSet<&str> = corpus.vocabulary().iter().map(String::as_str).collect();
    assert!(terms.len() > 500, "{} terms", terms.len());
    for t in terms {
        let t = t[0].clone().unwrap();
        assert!(words.contains(t.as_str()), "porter made {t}, not a word of the corpus");
    }
}

/// The check can fail: scanned as substrings (trigram's way), a word index answers otherwise,
/// and the failure names the query.
#[test]
fn the_check_fails_naming_the_query_where_the_scan_and_the_index_differ() {
    // Words of one syllable are all 3 letters, none inside another: 5000 words have longer
    // ones, which hold shorter ones ("bakak" holds "bak").
    let p = params(&["documents=300", "vocabulary=5000", "length=20"]);
    let mut conn = populated(&p, &knobs("unicode61", "full"));
    let wrong = Options {
        tokenizer: "trigram",
        detail: "full",
    };
    let e = check::check(&mut conn, wrong, 300, 60, 10).unwrap_err().to_string();
    assert!(e.contains("query \"") && e.contains("the index answers"), "{e}");
    let right = Options::DEFAULT;
    check::check(&mut conn, right, 300, 60, 10).expect("the right options pass");
    // A populated document gone is found too.
    conn.execute_batch("DELETE FROM docs WHERE rowid = 7").unwrap();
    let e = check::check(&mut conn, right, 300, 5, 10).unwrap_err().to_string();
    assert!(e.contains("299 documents after the trial"), "{e}");
}

#[test]
fn combinations_fts5_refuses_are_refused_in_one_line() {
    let p = params(&[]);
    let e = refused(&p, &knobs("unicode61", "column")).unwrap_err();
    assert!(
        e.starts_with("--knob fts_detail=column: FTS5 answers phrase queries only with detail=full"),
        "{e}"
    );
    let e = refused(&params(&["phrase=0"]), &knobs("trigram", "full")).unwrap_err();
    assert!(e.contains("give --param prefix=0"), "{e}");
    let e = refused(&params(&["phrase=0", "prefix=0"]), &knobs("trigram", "none")).unwrap_err();
    assert!(
        e.starts_with("--knob fts_tokenizer=trigram with fts_detail=none"),
        "{e}"
    );
    assert_eq!(refused(&params(&["phrase=0"]), &knobs("porter", "none")), Ok(()));
    assert_eq!(refused(&p, &KnobSet::default()), Ok(()));
    let zero = [
        "and=0", "or=0", "phrase=0", "prefix=0", "insert=0", "update=0", "delete=0",
    ];
    assert!(Fts
        .check(&params(&zero))
        .unwrap_err()
        .contains("every operation's weight is 0"));
    assert!(Fts.reads_knob("begin", &p).is_err());
    assert!(Fts.reads_knob(DETAIL_KNOB, &p).is_ok());
}

/// What the plan asks of a configuration of `fts` on SQLite with one client.
fn refused(p: &Params, k: &KnobSet) -> Result<(), String> {
    Fts.check_configuration(p, &crate::engines::sqlite::KIND, k, 1)
}
