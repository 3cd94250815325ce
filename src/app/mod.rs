//! The command line: argument parsing ([`cli`]), one-line usage errors ([`usage`]) and one
//! module per subcommand, each turning its typed arguments into calls to the layers below.

pub mod advise;
pub mod bisect;
pub mod build_sqlite;
pub mod cleanup;
pub mod compare;
pub mod drivers;
pub mod dry_run;
pub mod env;
pub mod history;
pub mod list;
pub mod merge;
pub mod qualify;
pub mod report;
pub mod reproduce;
pub mod run;
pub mod show;
pub mod ssb_gen;
pub mod tbl_files;
pub mod tpch_answers;
pub mod tpch_gen;
pub mod verify_durability;

pub mod cli;
pub mod usage;

use clap::Parser;
use cli::{Cli, Command};

/// Parses the command line, runs the subcommand, and returns the exit code: 0, 1 (a check
/// failed), 2 (bad input or a failure, said in one line), 130 (stopped by a signal).
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version are printed as clap prints them; a usage error is one line.
        Err(e) if !e.use_stderr() || e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            e.exit()
        }
        Err(e) => {
            let first = std::env::args_os().nth(1);
            let line = crate::app::usage::error_line(&e, first.as_deref().and_then(|a| a.to_str()));
            crate::errln!("error: {line}");
            return 2;
        }
    };
    crate::base::terminal::set_wide(cli.wide);
    let result = match &cli.command {
        Command::Run(a) => run::run(a),
        Command::List(a) => list::run(a),
        Command::Env(a) => env::run(a),
        Command::Qualify(a) => qualify::run(a),
        Command::Show(a) => show::run(a),
        Command::Report(a) => report::run(a),
        Command::Reproduce(a) => reproduce::run(a),
        Command::Compare(a) => compare::run(a),
        Command::History(a) => history::run(a),
        Command::Bisect(a) => bisect::run(a),
        Command::SsbGen(a) => ssb_gen::run(a),
        Command::TpchGen(a) => tpch_gen::run(a),
        Command::TpchAnswers(a) => tpch_answers::run(a),
        Command::BuildSqlite(a) => build_sqlite::run(a),
        Command::Cleanup(a) => cleanup::run(a),
        Command::Drivers(a) => drivers::run(a),
        Command::Merge(a) => merge::run(a),
        Command::GuestInit(a) => crate::testbed::guest::init::main(&a.job),
        Command::VerifyDurability(a) => verify_durability::run(a),
        Command::Advise(a) => advise::run(a),
        Command::DurabilityChild(a) => verify_durability::child(a),
        Command::ClientProcess => crate::bench::client_process::child_main(),
        Command::QualifyPeer => Ok(crate::testbed::qualify::serve::serve()),
    };
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            crate::errln!("error: {}", e.line());
            2
        }
    };
    crate::base::out::finish(code)
}
