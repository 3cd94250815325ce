//! The flags many subcommands share, each declared once: `--dir`, `--results`, `--format` and
//! `--noise`.
//!
//! A subcommand takes one with `#[command(flatten)]`, so the flag's name, value, parser and
//! default are written here only and read the same in every subcommand. Their help says what
//! most subcommands mean by them; a subcommand that means more (what `advise --results` also
//! writes, where `env --dir` points) rewords only the help, with
//! `#[command(mut_arg("results", |a| a.help("...")))]` on its own arguments. They live in
//! `bench`, the lowest layer with a subcommand's arguments (`run`'s, which `reproduce` builds).

use crate::report::Format;
use clap::Args;
use std::path::PathBuf;

/// `--dir PATH`; `None` when not given: the scratch directory's default base (`env`: the
/// current directory, whose storage it describes).
#[derive(Debug, Clone, Default, Args)]
pub struct DirArg {
    /// Directory under which litebench makes its scratch directory (default ./litebench-scratch).
    #[arg(id = "dir", long = "dir", value_name = "PATH")]
    pub value: Option<PathBuf>,
}

/// `--results PATH`; `None` when not given: $LITEBENCH_RESULTS or
/// ~/.local/share/litebench/results.db ([`crate::store::default_path`]).
#[derive(Debug, Clone, Default, Args)]
pub struct ResultsArg {
    /// Results store to read.
    #[arg(id = "results", long = "results", value_name = "PATH")]
    pub value: Option<PathBuf>,
}

/// `--format FORMAT`.
#[derive(Debug, Clone, Copy, Args)]
pub struct FormatArg {
    /// Output format.
    #[arg(id = "format", long = "format", value_name = "FORMAT", value_enum, default_value_t = Format::Table)]
    pub value: Format,
}

/// `--noise PCT`, as a fraction (`--noise 2` is 0.02); `None` when not given: the run's
/// recorded threshold, or [`crate::model::metric::DEFAULT_NOISE`].
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct NoiseArg {
    /// Noise threshold in percent: a ratio within this of 1 is "no significant difference"
    /// even when its interval excludes 1.
    #[arg(id = "noise", long = "noise", value_name = "PCT", value_parser = parse_noise)]
    pub value: Option<f64>,
}

/// Parses `--noise PCT` (a percentage, e.g. `2` or `0.5`) into a fraction.
pub fn parse_noise(s: &str) -> Result<f64, String> {
    let pct: f64 = s
        .trim()
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("--noise {s}: not a number; give a percentage such as 2 or 0.5"))?;
    if !(0.0..100.0).contains(&pct) {
        return Err(format!("--noise {s}: must be at least 0 and below 100 (percent)"));
    }
    Ok(pct / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_flag() {
        assert_eq!(parse_noise("2"), Ok(0.02));
        assert_eq!(parse_noise("0.5%"), Ok(0.005));
        assert!(parse_noise("-1").unwrap_err().contains("--noise -1"));
        assert!(parse_noise("abc").unwrap_err().contains("percentage"));
        assert!(parse_noise("100").is_err());
    }
}
