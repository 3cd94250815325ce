//! The floor every other folder stands on: the one-line error (long values in it cut short), wall-clock time, byte sizes, counts with their thousands grouped, and
//! output (the terminal's lines and width, and files written whole, never replacing anything). Nothing
//! here knows what a benchmark is.

pub mod bytesize;
pub mod clip;
pub mod control_chars;
pub mod error;
pub mod out;
pub mod outfile;
pub mod terminal;
pub mod thousands;
pub mod time;

pub use error::Failure;
