use clap::Parser;
use litebench::cli::{Cli, Command};
use litebench::commands;

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version are printed as clap prints them; a usage error is one line.
        Err(e) if !e.use_stderr() || e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            e.exit()
        }
        Err(e) => {
            let first = std::env::args_os().nth(1);
            let line = litebench::usage::error_line(&e, first.as_deref().and_then(|a| a.to_str()));
            litebench::errln!("error: {line}");
            std::process::exit(2);
        }
    };
    let result = match &cli.command {
        Command::Run(a) => commands::run::run(a),
        Command::List(a) => commands::list::run(a),
        Command::Env(a) => commands::env::run(a),
        Command::Show(a) => commands::show::run(a),
        Command::Report(a) => commands::report::run(a),
        Command::Reproduce(a) => commands::reproduce::run(a),
        Command::Compare(a) => commands::compare::run(a),
        Command::SsbGen(a) => commands::ssb_gen::run(a),
        Command::BuildSqlite(a) => commands::build_sqlite::run(a),
        Command::Cleanup(a) => commands::cleanup::run(a),
        Command::Merge(a) => commands::merge::run(a),
        Command::GuestInit(a) => litebench::guest::init::main(&a.job),
        Command::VerifyDurability(a) => commands::verify_durability::run(a),
        Command::Advise(a) => commands::advise::run(a),
        Command::DurabilityChild(a) => commands::verify_durability::child(a),
    };
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            litebench::errln!("error: {}", e.line());
            2
        }
    };
    std::process::exit(litebench::out::finish(code));
}
