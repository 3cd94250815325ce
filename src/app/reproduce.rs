//! `litebench reproduce TARGET`: the seed paper's reproduction ([`crate::reproduce::run`]), each
//! experiment's run reported as `run` reports it ([`crate::app::run::Reports`]).

use crate::base::Failure;
use crate::reproduce::run::ReproduceArgs;

/// Runs the `reproduce` subcommand.
pub fn run(args: &ReproduceArgs) -> Result<i32, Failure> {
    crate::reproduce::run::run(args, &mut crate::app::run::Reports::default())
}
