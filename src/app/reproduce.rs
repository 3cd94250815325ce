//! `litebench reproduce TARGET`: the seed paper's reproduction ([`crate::reproduce::run`]).

use crate::base::Failure;
use crate::reproduce::run::ReproduceArgs;

/// Runs the `reproduce` subcommand.
pub fn run(args: &ReproduceArgs) -> Result<i32, Failure> {
    crate::reproduce::run::run(args)
}
