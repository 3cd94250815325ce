//! `litebench run`: the session ([`crate::bench::session`]) with the command line's settings.

use crate::base::Failure;
use crate::bench::settings::RunArgs;

/// Runs the `run` subcommand.
pub fn run(args: &RunArgs) -> Result<i32, Failure> {
    crate::base::terminal::set_all(args.all);
    crate::bench::session::run(args).result
}
