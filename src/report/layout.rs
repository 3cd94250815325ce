//! Laying out a table: aligned columns for the terminal, pipes for Markdown.

/// Lays out `rows` under `headers`.
pub fn table(headers: &[&str], rows: &[Vec<String>], markdown: bool) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| -> String {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
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
