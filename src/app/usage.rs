//! Command-line usage errors as the one line litebench promises.
//!
//! clap renders a usage error over several lines: the error, an indented list (the missing
//! arguments), `[possible values: ...]`, a tip, a usage line and a pointer to `--help`. Every
//! other litebench error is one line naming the flag and how to fix it, and scripts read stderr
//! line by line, so the parser's errors are folded into that shape here: the error itself, the
//! list and the valid values on the same line, the tip after a semicolon, and which `--help`
//! lists the flags of the command that was given. Help and version output are not errors and
//! are printed as clap prints them.

/// The one line for a usage error of a command line whose first argument (after the program
/// name) is `first`.
pub fn error_line(e: &clap::Error, first: Option<&str>) -> String {
    let mut line = one_line(&e.render().to_string());
    if !line.contains("--help` lists") {
        let command = match first.and_then(subcommand) {
            Some(sub) => format!("litebench {sub}"),
            None => "litebench".to_string(),
        };
        line.push_str(&format!("; `{command} --help` lists the valid arguments"));
    }
    line
}

/// `word` when it names a subcommand.
fn subcommand(word: &str) -> Option<String> {
    use clap::CommandFactory;
    crate::app::cli::Cli::command()
        .get_subcommands()
        .find(|c| c.get_name() == word)
        .map(|c| c.get_name().to_string())
}

/// Folds clap's rendered error (`Error::render()` as plain text) into one line, without the
/// leading `error: `; the `--help` to read is named when clap's usage line says which.
pub fn one_line(rendered: &str) -> String {
    let mut line = String::new();
    let mut command = None;
    for raw in rendered.lines() {
        let text = raw.trim();
        if text.is_empty() || text.starts_with("For more information") {
            continue;
        }
        if let Some(usage) = text.strip_prefix("Usage:") {
            command = Some(command_path(usage));
            // What follows the usage line is the usage of further forms; nothing new.
            break;
        }
        if line.is_empty() {
            line.push_str(text.strip_prefix("error:").map_or(text, str::trim_start));
        } else if let Some(values) = text.strip_prefix("[possible values:") {
            line.push_str(" (valid values:");
            line.push_str(values.trim_end_matches(']'));
            line.push(')');
        } else if text.starts_with("tip:") {
            line.push_str("; ");
            line.push_str(text);
        } else if line.ends_with(':') {
            line.push(' ');
            line.push_str(text);
        } else {
            line.push_str(", ");
            line.push_str(text);
        }
    }
    if let Some(command) = command {
        line.push_str(&format!("; `{command} --help` lists the valid arguments"));
    }
    line
}

/// `litebench run` from a usage line `litebench run [OPTIONS] <WORKLOAD>`: the words before the
/// first placeholder or flag.
fn command_path(usage: &str) -> String {
    usage
        .split_whitespace()
        .take_while(|w| !w.starts_with(['[', '<', '-']))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::cli::Cli;
    use clap::Parser;

    fn folded(args: &[&str]) -> String {
        let e = Cli::try_parse_from(args).expect_err("a usage error");
        error_line(&e, args.get(1).copied())
    }

    #[test]
    fn clap_errors_fold_into_one_line_that_names_the_flag_and_the_help_to_read() {
        let cases: &[(&[&str], &[&str])] = &[
            (
                &["litebench", "show", "--format", "yaml"],
                &["'yaml'", "--format", "(valid values: ", "`litebench show --help`"],
            ),
            (
                &["litebench", "run", "crud", "--trials", "0"],
                &["--trials", "0", "`litebench run --help`"],
            ),
            (
                &["litebench", "run", "crud", "--no-such-flag"],
                &["--no-such-flag", "`litebench run --help`"],
            ),
            (&["litebench", "nosuch"], &["'nosuch'", "`litebench --help`"]),
            (
                &["litebench", "merge"],
                &["required", "<OUT>", "`litebench merge --help`"],
            ),
        ];
        for (args, parts) in cases {
            let line = folded(args);
            assert!(!line.contains('\n'), "{args:?}: {line}");
            assert!(!line.starts_with("error"), "{args:?}: {line}");
            for p in *parts {
                assert!(line.contains(p), "{args:?}: {line:?} lacks {p:?}");
            }
        }
    }

    #[test]
    fn a_rendered_error_is_folded_part_by_part() {
        let rendered = "error: the following required arguments were not provided:\n  <A>\n  <B>\n\n\
                        Usage: litebench x <A> <B>\n\nFor more information, try '--help'.\n";
        assert_eq!(
            one_line(rendered),
            "the following required arguments were not provided: <A>, <B>; `litebench x --help` lists the valid arguments"
        );
        let tip = "error: unexpected argument '-q' found\n\n  tip: to pass '-q' as a value, use '-- -q'\n";
        assert_eq!(
            one_line(tip),
            "unexpected argument '-q' found; tip: to pass '-q' as a value, use '-- -q'"
        );
    }
}
