//! The `tatp` workload against its specification: the population of a seeded 1,000-subscriber
//! database, the transaction mix over a long run, determinism of the transaction sequence, and
//! the `litebench run tatp` command line (journal modes, several clients, bad input).

mod cli;
mod common;
mod mix;
mod population;
