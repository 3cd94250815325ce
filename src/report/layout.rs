//! Laying out a table: aligned columns for the terminal, pipes for Markdown.
//!
//! A table wider than the terminal ([`crate::base::terminal::width`]) is fitted to it as
//! tables of wide data are printed elsewhere (R, pandas): the leading columns that say what a
//! row is repeat on the left, and the other columns flow into as many stacked tables as the
//! width needs, headers wrapped at their words and any cell too wide for a line wrapped too.
//! Wrapping every cell into the width instead (comfy-table's dynamic arrangement) leaves a
//! 15-column summary four characters per column on 80 columns, its numbers broken across
//! lines. Full width (pipes, files, `--wide`) is laid out exactly as before.
//!
//! Every cell and header is cut to [`MAX_CELL`] characters (an ellipsis where cut) and loses
//! its control characters first: a stored run may hold any string (a role name of 70,000
//! characters, a cast of thousands of roles described in one cell), and a width past 65,535
//! makes Rust's padding panic, while an escape sequence would act on the terminal.

use crate::base::terminal;
use std::borrow::Cow;

/// The most characters of a cell (or header) a table prints; a longer one ends in `…`.
/// Wider than any figure, configuration or path a table means to show whole, and far below
/// the 65,535 that `format!`'s padding takes.
pub const MAX_CELL: usize = 1024;

/// `s` as a cell prints it: without control characters, cut to [`MAX_CELL`] characters with
/// an ellipsis (borrowed when it needs neither).
pub fn cell_text(s: &str) -> Cow<'_, str> {
    let clean = crate::base::control_chars::strip(s);
    if clean.len() <= MAX_CELL || clean.chars().nth(MAX_CELL).is_none() {
        return clean;
    }
    let mut cut: String = clean.chars().take(MAX_CELL - 1).collect();
    cut.push('…');
    Cow::Owned(cut)
}

/// The most characters of one line of a text report: the prose around the tables (a heading
/// that describes a cast, an answer naming roles) is cut there with an ellipsis, as a cell is
/// at [`MAX_CELL`]; a table's lines, of cells so cut, stay within it.
pub const MAX_LINE: usize = 4000;

/// `text` with no control character but its line breaks and no line longer than
/// [`MAX_LINE`] characters (unchanged where it has neither): what a stored run, whatever it
/// holds, prints.
pub fn bounded(text: String) -> String {
    let clean = |c: char| c == '\n' || !crate::base::control_chars::is_control(c);
    if text.chars().all(clean)
        && text
            .lines()
            .all(|l| l.len() <= MAX_LINE || l.chars().count() <= MAX_LINE)
    {
        return text;
    }
    let mut out = String::with_capacity(text.len().min(1 << 20));
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        let kept: String = body.chars().filter(|&c| clean(c)).collect();
        if kept.chars().nth(MAX_LINE).is_some() {
            out.extend(kept.chars().take(MAX_LINE - 1));
            out.push('…');
        } else {
            out += &kept;
        }
        out += end;
    }
    out
}

/// `headers` and `rows` with every cell as [`cell_text`] prints it; borrowed where none needs
/// a change (the common case: a scan, no copy).
fn fitted_cells<'a>(headers: &[&'a str], rows: &'a [Vec<String>]) -> (Vec<Cow<'a, str>>, Cow<'a, [Vec<String>]>) {
    let headers = headers.iter().map(|h| cell_text(h)).collect();
    let fits = |c: &String| matches!(cell_text(c), Cow::Borrowed(_));
    let rows = if rows.iter().flatten().all(fits) {
        Cow::Borrowed(rows)
    } else {
        Cow::Owned(
            rows.iter()
                .map(|r| r.iter().map(|c| cell_text(c).into_owned()).collect())
                .collect(),
        )
    };
    (headers, rows)
}

/// Lays out `rows` under `headers`: fitted to the terminal's width when there is one.
pub fn table(headers: &[&str], rows: &[Vec<String>], markdown: bool) -> String {
    match terminal::width() {
        Some(w) if !markdown => table_within(headers, rows, w),
        _ => full_table(headers, rows, markdown),
    }
}

/// The leading columns that say what a row is take at most this share of the width.
const KEY_SHARE: f64 = 0.6;

/// Columns of a table apart.
const GAP: usize = 2;

/// `rows` under `headers` in at most `width` columns where the cells allow (see the module
/// docs); a table that fits already is the full layout, unchanged.
pub fn table_within(headers: &[&str], rows: &[Vec<String>], width: usize) -> String {
    let (headers, rows) = fitted_cells(headers, rows);
    let headers: Vec<&str> = headers.iter().map(|h| h.as_ref()).collect();
    let (headers, rows) = (&headers[..], &rows[..]);
    let full = full_table(headers, rows, false);
    if full.lines().all(|l| l.chars().count() <= width) {
        return full;
    }
    let chars = |s: &str| s.chars().count();
    let n = headers.len();
    let longest_word = |s: &str| s.split_whitespace().map(chars).max().unwrap_or(0);
    // Each column as wide as its widest cell, or its header's longest word, within the width.
    let mut widths: Vec<usize> = (0..n)
        .map(|i| {
            let cells = rows
                .iter()
                .filter_map(|r| r.get(i))
                .map(|c| chars(c))
                .max()
                .unwrap_or(0);
            cells.max(longest_word(headers[i])).max(1)
        })
        .collect();
    // The key: leading columns within KEY_SHARE of the width (at least the first); the last of
    // them may be narrowed to that share, its cells wrapped, when its words fit.
    let share = (width as f64 * KEY_SHARE) as usize;
    let mut keys = 1;
    let mut key_width = widths[0];
    while keys < n {
        let left = share.saturating_sub(key_width + GAP);
        if widths[keys] <= left {
            key_width += GAP + widths[keys];
            keys += 1;
            continue;
        }
        let words = rows
            .iter()
            .filter_map(|r| r.get(keys))
            .map(|c| longest_word(c))
            .chain([longest_word(headers[keys])])
            .max()
            .unwrap_or(0);
        if words <= left && left > 0 {
            widths[keys] = left;
            key_width += GAP + left;
            keys += 1;
        }
        break;
    }
    widths[0] = widths[0].min(width);
    let room = width.saturating_sub(key_width + GAP).max(terminal::MIN_COLUMNS / 2);
    for w in widths.iter_mut().skip(keys) {
        *w = (*w).min(room);
    }
    // The other columns, in order, into chunks that fit beside the key.
    let mut chunks: Vec<Vec<usize>> = Vec::new();
    let mut used = 0;
    for (i, &w) in widths.iter().enumerate().skip(keys) {
        match chunks.last_mut() {
            Some(c) if used + GAP + w <= room => {
                c.push(i);
                used += GAP + w;
            }
            _ => {
                chunks.push(vec![i]);
                used = w;
            }
        }
    }
    if chunks.is_empty() {
        chunks.push(Vec::new());
    }
    let mut parts = Vec::new();
    for chunk in chunks {
        let cols: Vec<usize> = (0..keys).chain(chunk).collect();
        let cell = |text: &str, i: usize| wrap(text, widths[i]);
        let mut out = lines_of(
            &cols.iter().map(|&i| cell(headers[i], i)).collect::<Vec<_>>(),
            &cols,
            &widths,
        );
        out.push(
            cols.iter()
                .map(|&i| "-".repeat(widths[i]))
                .collect::<Vec<_>>()
                .join("  "),
        );
        for r in rows {
            let cells: Vec<Vec<String>> = cols
                .iter()
                .map(|&i| cell(r.get(i).map_or("", String::as_str), i))
                .collect();
            out.extend(lines_of(&cells, &cols, &widths));
        }
        parts.push(out.join("\n") + "\n");
    }
    parts.join("\n")
}

/// `text` with every line longer than the terminal's width wrapped at spaces, continuation
/// lines indented by two: the prose around fitted tables (warnings, the statistics line).
/// Unchanged at full width.
pub fn fit_prose(text: String) -> String {
    match terminal::width() {
        Some(w) => prose_within(&text, w),
        None => text,
    }
}

/// [`fit_prose`] at `width`.
pub fn prose_within(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        if body.chars().count() <= width {
            out += line;
            continue;
        }
        let indent = body.len() - body.trim_start().len();
        // Words are never cut here: a path or a hash cut in two cannot be copied.
        let first = wrap_words(body.trim_start(), width.saturating_sub(indent), false);
        let (head, rest) = first.split_first().expect("wrap gives a line");
        out += &" ".repeat(indent);
        out += head;
        out += "\n";
        let more = rest.join(" ");
        for l in wrap_words(&more, width.saturating_sub(indent + 2), false) {
            out += &" ".repeat(indent + 2);
            out += &l;
            out += "\n";
        }
        if !line.ends_with('\n') {
            out.pop();
        }
    }
    out
}

/// The lines of one row of wrapped cells, each cell padded to its column's width.
fn lines_of(cells: &[Vec<String>], cols: &[usize], widths: &[usize]) -> Vec<String> {
    let height = cells.iter().map(Vec::len).max().unwrap_or(1);
    (0..height)
        .map(|k| {
            cells
                .iter()
                .zip(cols)
                .map(|(c, &i)| format!("{:<w$}", c.get(k).map_or("", String::as_str), w = widths[i]))
                .collect::<Vec<_>>()
                .join("  ")
                .trim_end()
                .to_string()
        })
        .collect()
}

/// `text` in lines of at most `width` characters, broken at spaces (a longer word is cut).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    wrap_words(text, width, true)
}

/// [`wrap`], cutting words longer than `width` or (`cut` false) giving each a line of its own.
fn wrap_words(text: &str, width: usize, cut: bool) -> Vec<String> {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        while cut && word.len() > width {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            lines.push(word.drain(..width).collect());
        }
        let word: String = word.into_iter().collect();
        if word.is_empty() {
            continue;
        }
        if line.is_empty() {
            line = word;
        } else if line.chars().count() + 1 + word.chars().count() <= width {
            line.push(' ');
            line.push_str(&word);
        } else {
            lines.push(std::mem::replace(&mut line, word));
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Lays out `rows` under `headers` at their full width.
pub fn full_table(headers: &[&str], rows: &[Vec<String>], markdown: bool) -> String {
    let (headers, rows) = fitted_cells(headers, rows);
    let headers: Vec<&str> = headers.iter().map(|h| h.as_ref()).collect();
    let (headers, rows) = (&headers[..], &rows[..]);
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| -> String {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths.get(i).copied().unwrap_or(0)))
            .collect();
        if markdown {
            format!("| {} |", padded.join(" | "))
        } else {
            padded.join("  ").trim_end().to_string()
        }
    };
    let mut out = vec![line(headers.iter().map(|h| h.to_string()).collect())];
    out.push(if markdown {
        format!(
            "|{}|",
            widths.iter().map(|w| "-".repeat(w + 2)).collect::<Vec<_>>().join("|")
        )
    } else {
        widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("  ")
    });
    for r in rows {
        out.push(line(r.clone()));
    }
    out.join("\n") + "\n"
}

/// A section heading.
pub fn heading(s: &str, markdown: bool) -> String {
    if markdown {
        format!("## {s}\n\n")
    } else {
        format!("{s}\n")
    }
}

/// A warning line.
pub fn warning(s: &str, markdown: bool) -> String {
    format!("{}warning: {s}\n", if markdown { "- " } else { "" })
}

/// A document's parts as text (the table and Markdown formats): headings, prose as it is, and
/// laid-out tables.
pub fn parts(parts: &[super::format::Part], markdown: bool) -> String {
    use super::format::Part;
    let mut out = String::new();
    for p in parts {
        match p {
            Part::Heading(s) => out += &heading(s, markdown),
            Part::Text(s) => out += s,
            Part::Table(t) => {
                let headers: Vec<&str> = t.headers.iter().map(String::as_str).collect();
                out += &table(&headers, &t.rows, markdown);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary_like() -> (Vec<&'static str>, Vec<Vec<String>>) {
        let headers = vec![
            "#",
            "configuration",
            "op",
            "tx/s median",
            "95% CI",
            "speed against #0 [95% CI] verdict",
            "p50 us",
            "p99 us",
            "syncs/tx",
            "device KiB w/tx",
        ];
        let row = |i: usize, cfg: &str, op: &str| {
            vec![
                i.to_string(),
                cfg.to_string(),
                op.to_string(),
                "38922".to_string(),
                "[38000, 39500]".to_string(),
                if i == 0 {
                    "baseline".into()
                } else {
                    "128.46x [120.1x, 131.0x] faster".to_string()
                },
                "25".into(),
                "1971".into(),
                "4.00".into(),
                "49.9".into(),
            ]
        };
        let rows = vec![
            row(0, "journal_mode=delete synchronous=full", "all"),
            row(0, "journal_mode=delete synchronous=full", "insert"),
            row(1, "journal_mode=wal synchronous=off", "all"),
        ];
        (headers, rows)
    }

    #[test]
    fn a_wide_table_fits_the_width_with_its_key_repeated_and_no_cell_lost() {
        let (h, rows) = summary_like();
        let full = full_table(&h, &rows, false);
        let widest = full.lines().map(|l| l.chars().count()).max().unwrap();
        for width in [60, 80, 100] {
            assert!(widest > width, "the test table must not fit {width} columns already");
            let fitted = table_within(&h, &rows, width);
            for l in fitted.lines() {
                assert!(l.chars().count() <= width, "{width}: {l:?}\n{fitted}");
            }
            // Every cell is still there (long cells may be wrapped onto more lines at spaces).
            let words: Vec<&str> = fitted.split_whitespace().collect();
            for cell in rows
                .iter()
                .flatten()
                .chain(h.iter().map(|s| s.to_string()).collect::<Vec<_>>().iter())
            {
                for w in cell.split_whitespace() {
                    assert!(words.contains(&w), "{width}: {w:?} lost\n{fitted}");
                }
            }
            // Each stacked table starts with the key: the configuration of every row.
            let tables: Vec<&str> = fitted.split("\n\n").collect();
            assert!(tables.len() > 1, "{fitted}");
            for t in &tables {
                assert!(t.starts_with('#'), "{t}");
                assert_eq!(t.matches("journal_mode=delete").count(), 2, "{t}");
            }
        }
    }

    #[test]
    fn a_table_that_fits_is_laid_out_as_at_full_width() {
        let (h, rows) = summary_like();
        let full = full_table(&h, &rows, false);
        let widest = full.lines().map(|l| l.chars().count()).max().unwrap();
        assert_eq!(table_within(&h, &rows, widest), full);
        assert_eq!(table_within(&h, &rows, widest + 40), full);
    }

    #[test]
    fn long_prose_lines_wrap_with_a_hanging_indent_and_short_ones_stay() {
        let text = "short\nwarning: #1 journal_mode=wal: throughput CV 52.1% exceeds 5%: add trials\n";
        let fitted = prose_within(text, 30);
        assert!(
            fitted.starts_with("short\nwarning: #1 journal_mode=wal:\n  throughput"),
            "{fitted}"
        );
        assert!(fitted.lines().all(|l| l.chars().count() <= 30), "{fitted}");
        assert_eq!(
            fitted.split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
        assert_eq!(prose_within(text, 200), text);
    }

    /// Issue 45, item 8: a cell of 100,000 characters (a stored run's role name, a cast's
    /// description) made `format!`'s padding panic past 65,535, and control characters went to
    /// the terminal raw. Every layout cuts such a cell to [`MAX_CELL`] with an ellipsis.
    #[test]
    fn absurd_cells_are_cut_and_cleaned_in_every_layout_and_never_panic() {
        let huge = "r".repeat(100_000);
        let spaced = "word ".repeat(20_000);
        let escape = format!("a\u{1b}[31mred\u{9b}2J{}", "x".repeat(70_000));
        let headers = ["#", "operation", &huge, "p99 us"];
        let rows = vec![
            vec!["0".to_string(), huge.clone(), spaced.clone(), escape.clone()],
            vec![escape.clone(), "all".into(), "1".into(), huge.clone()],
            // A row longer than the headers is laid out too, its extra cell at its own width.
            vec!["1".into(), "x".into(), "y".into(), "z".into(), huge.clone()],
        ];
        let bound = (headers.len() + 1) * (MAX_CELL + 3) + 4;
        let layouts = [
            full_table(&headers, &rows, false),
            full_table(&headers, &rows, true),
            table_within(&headers, &rows, 80),
            table_within(&headers, &rows, 20),
        ];
        for out in &layouts {
            assert!(out.lines().count() > 3, "{out}");
            for l in out.lines() {
                assert!(l.chars().count() <= bound, "{} characters", l.chars().count());
                assert!(!l.chars().any(char::is_control), "{l:?}");
            }
            assert!(out.contains('…'), "a cut cell says so");
            assert!(
                out.contains("a[31mred2J"),
                "the escape's text stays, without its control characters"
            );
        }
        assert_eq!(cell_text(&huge).chars().count(), MAX_CELL);
        // The prose around tables too: a line cut at MAX_LINE, control characters gone.
        let prose = format!("cast {escape}: 1 client\nshort\n");
        let b = bounded(prose);
        assert_eq!(b.lines().count(), 2);
        assert_eq!(b.lines().next().unwrap().chars().count(), MAX_LINE);
        assert!(
            !b.chars().any(|c| c != '\n' && c.is_control()) && b.ends_with("…\nshort\n"),
            "{}",
            &b[..80]
        );
        assert_eq!(bounded("as it is\n".into()), "as it is\n");
        assert!(matches!(cell_text("all"), Cow::Borrowed("all")));
        assert_eq!(cell_text(&"é".repeat(MAX_CELL)).chars().count(), MAX_CELL);
    }

    #[test]
    fn wrapping_breaks_at_spaces_and_cuts_only_longer_words() {
        assert_eq!(
            wrap("speed against #0 [95% CI] verdict", 10),
            ["speed", "against #0", "[95% CI]", "verdict"]
        );
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), [""]);
    }
}
