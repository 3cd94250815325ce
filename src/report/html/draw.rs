//! Draws a [`Figure`] with plotters, onto any backend: SVG text for the page and `--plots`,
//! a bitmap saved as PNG for `--plots`.
//!
//! Both axes are plain `f64` coordinates with key points litebench chooses (group centres,
//! a knob's values, decades of a log scale, percentiles on a nines scale), so one drawing
//! routine serves every chart. Legends are drawn under the plot rather than over it, so they
//! never hide data. Bars are filled at opacity 0.85 and lines stroked at 0.9, values nothing
//! else in a chart uses, so a rendered page's bars and lines can be counted (the Chromium test).

use super::data::{BarChart, Chart, Figure, LineChart, XAxis, OPERATION_COLORS};
use super::font::FAMILY;
use super::timeline::{CheckpointEnd, Timeline};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Chart size in pixels, without the legend (compact charts: [`COMPACT_WIDTH`] by
/// [`COMPACT_PLOT_HEIGHT`]).
pub const WIDTH: u32 = 960;
pub const PLOT_HEIGHT: u32 = 400;
pub const COMPACT_WIDTH: u32 = 420;
pub const COMPACT_PLOT_HEIGHT: u32 = 300;
/// Height of one legend line.
const LEGEND_LINE: u32 = 20;

/// Opacity of bar fills and of data lines (see the module docs).
pub const BAR_OPACITY: f64 = 0.85;
pub const LINE_OPACITY: f64 = 0.9;

/// Tableau's twenty colours (ten hues, dark then light), so SSB's 13 queries get distinct lines.
const PALETTE: [(u8, u8, u8); 20] = [
    (78, 121, 167),
    (242, 142, 43),
    (225, 87, 89),
    (118, 183, 178),
    (89, 161, 79),
    (237, 201, 72),
    (176, 122, 161),
    (255, 157, 167),
    (156, 117, 95),
    (186, 176, 172),
    (160, 203, 232),
    (255, 190, 125),
    (255, 157, 154),
    (134, 188, 182),
    (140, 209, 125),
    (241, 206, 99),
    (212, 166, 200),
    (250, 191, 210),
    (215, 181, 166),
    (121, 112, 110),
];

/// The colour of series `i`.
pub fn color(i: usize) -> RGBColor {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    RGBColor(r, g, b)
}

/// A drawing failure, as text (plotters' errors are generic over the backend).
#[derive(Debug, thiserror::Error)]
#[error("drawing chart {figure}: {message}")]
pub struct DrawError {
    pub figure: String,
    pub message: String,
}

/// The legend's entries.
fn legend(fig: &Figure) -> Vec<String> {
    match &fig.chart {
        Chart::Bars(b) => b.series.clone(),
        Chart::Lines(l) => l.lines.iter().map(|l| l.name.clone()).collect(),
        Chart::Timeline(t) => timeline_legend(t).into_iter().map(|(_, name)| name).collect(),
    }
}

fn plot_height(fig: &Figure) -> u32 {
    match &fig.chart {
        _ if fig.compact => COMPACT_PLOT_HEIGHT,
        Chart::Timeline(t) => panels(t).iter().map(|p| p.height()).sum(),
        Chart::Bars(b) if horizontal(b) => {
            let per_group = BAR_PX * b.series.len().max(1) as u32 + GROUP_GAP_PX;
            (per_group * b.groups.len() as u32 + 90).max(PLOT_HEIGHT)
        }
        _ => PLOT_HEIGHT,
    }
}

/// Width of the picture for `fig`.
pub fn width(fig: &Figure) -> u32 {
    if fig.compact {
        COMPACT_WIDTH
    } else {
        WIDTH
    }
}

/// Height of the whole picture for `fig`.
pub fn height(fig: &Figure) -> u32 {
    plot_height(fig) + 10 + LEGEND_LINE * legend(fig).len() as u32
}

/// Evenly spaced round tick values from 0 (or `low`) up to at least `high`.
fn nice_ticks(low: f64, high: f64) -> Vec<f64> {
    let span = (high - low).max(f64::MIN_POSITIVE);
    let raw = span / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 7.0)
        .unwrap_or(10.0 * mag);
    let first = (low / step).floor() * step;
    let mut v = Vec::new();
    let mut x = first;
    while x <= high + step * 1e-9 {
        v.push(x);
        x += step;
    }
    if v.last().is_some_and(|l| *l < high) {
        v.push(x);
    }
    v
}

/// A log axis over positive values from `low` to `high`: the range in log10 units, from a
/// whole decade under `low` (far enough under it that the smallest bar still shows) to a whole
/// decade over `high`, and its ticks: decades, with 2x and 5x when there are few.
fn log_axis(low: f64, high: f64) -> (std::ops::Range<f64>, Vec<f64>) {
    let low = if low > 0.0 && low.is_finite() { low } else { 1e-9 };
    let lo = (low.log10() - 0.1).floor();
    let hi = high.max(low).log10().ceil().max(lo + 1.0);
    let mut t = Vec::new();
    for d in lo as i32..=hi as i32 {
        for m in [1.0, 2.0, 5.0] {
            let v = (10f64.powi(d) * m).log10();
            if v <= hi + 1e-9 && (m == 1.0 || hi - lo <= 3.0) {
                t.push(v);
            }
        }
    }
    (lo..hi, t)
}

/// A tick label: integers without decimals, small numbers with a few significant digits.
pub fn tick(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 100.0 || (v.fract() == 0.0) {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The percentile at `x` nines (`x` = -log10(1 - q)) as a label: 0 -> 0%, 1 -> 90%, 3 -> 99.9%.
pub fn nines_label(x: f64) -> String {
    let q = (1.0 - 10f64.powf(-x)) * 100.0;
    let digits = (x - 2.0).ceil().max(0.0) as usize;
    format!("{q:.digits$}%")
}

/// A linear `f64` axis whose ticks are exactly the given values.
struct Axis {
    inner: RangedCoordf64,
    ticks: Vec<f64>,
}

impl Axis {
    fn new(range: std::ops::Range<f64>, ticks: Vec<f64>) -> Axis {
        Axis {
            inner: range.into(),
            ticks,
        }
    }
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<H: KeyPointHint>(&self, _hint: H) -> Vec<f64> {
        self.ticks.clone()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }
}

fn err<E: std::fmt::Display>(fig: &Figure) -> impl Fn(E) -> DrawError + '_ {
    move |e| DrawError {
        figure: fig.id.clone(),
        message: e.to_string(),
    }
}

/// Draws `fig` onto `root` (of [`width`] x [`height`]).
pub fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, fig: &Figure) -> Result<(), DrawError>
where
    DB::ErrorType: 'static,
{
    draw_with(root, fig, true).map(|_| ())
}

/// Draws `fig`; a timeline's checkpoint markers too when `markers` (else they are returned
/// for the caller to draw: the SVG gives each a tooltip, which plotters cannot).
fn draw_with<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    fig: &Figure,
    markers: bool,
) -> Result<Vec<Marker>, DrawError>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(err(fig))?;
    let (plot, legend_area) = root.split_vertically(plot_height(fig));
    let mut placed = Vec::new();
    match &fig.chart {
        Chart::Bars(b) => bars(&plot, fig, b)?,
        Chart::Lines(l) => lines(&plot, fig, l)?,
        Chart::Timeline(t) => placed = timeline(&plot, fig, t)?,
    }
    if markers {
        let screen = root.use_screen_coord();
        for m in &placed {
            for c in marker_shapes(m.x, m.y, m.end) {
                screen.draw(&c).map_err(err(fig))?;
            }
            if let Some(l) = &m.label {
                let at = (m.x + MARKER_RADIUS + 2, m.y - MARKER_RADIUS - 13);
                screen
                    .draw(&Text::new(l.clone(), at, label_style()))
                    .map_err(err(fig))?;
            }
        }
    }
    let style = TextStyle::from((FAMILY, 14).into_font()).color(&BLACK);
    if let Chart::Timeline(t) = &fig.chart {
        // The legend: lines' and bands' swatches at full opacity (never counted as data),
        // the two kinds of checkpoint as the markers are drawn.
        for (i, (swatch, name)) in timeline_legend(t).into_iter().enumerate() {
            let y = 6 + (i as u32 * LEGEND_LINE) as i32;
            match swatch {
                Swatch::Fill(c) => legend_area
                    .draw(&Rectangle::new([(80, y + 3), (96, y + 15)], c.filled()))
                    .map_err(err(fig))?,
                Swatch::Checkpoint(end) => {
                    for c in marker_shapes(88, y + 9, end) {
                        legend_area.draw(&c).map_err(err(fig))?;
                    }
                }
            }
            legend_area
                .draw(&Text::new(name, (104, y + 2), style.clone()))
                .map_err(err(fig))?;
        }
        root.present().map_err(err(fig))?;
        return Ok(placed);
    }
    // The legend: a swatch (full opacity, so it is never counted as data) and the name.
    let offset = match &fig.chart {
        Chart::Lines(l) => l.color_offset,
        Chart::Bars(_) | Chart::Timeline(_) => 0,
    };
    for (i, name) in legend(fig).iter().enumerate() {
        let y = 6 + (i as u32 * LEGEND_LINE) as i32;
        legend_area
            .draw(&Rectangle::new(
                [
                    (if fig.compact { 20 } else { 80 }, y + 3),
                    (if fig.compact { 36 } else { 96 }, y + 15),
                ],
                color(offset + i).filled(),
            ))
            .map_err(err(fig))?;
        legend_area
            .draw(&Text::new(
                name.clone(),
                (if fig.compact { 44 } else { 104 }, y + 2),
                style.clone(),
            ))
            .map_err(err(fig))?;
    }
    root.present().map_err(err(fig))?;
    Ok(placed)
}

/// Opacity of a hold's band: light enough that the lines under it read through, and a value no
/// other chart element uses, so bands can be counted.
pub const BAND_OPACITY: f64 = 0.16;
/// A checkpoint marker's radius, pixels, the dot inside a partial one's, and the least distance
/// between two markers' labels.
const MARKER_RADIUS: i32 = 5;
const PARTIAL_DOT: i32 = 2;
const LABEL_PX: i32 = 70;
/// Colours of the timeline's own elements: the holds' bands (per holding role, from the
/// palette's greys and browns), the checkpoints, the WAL and the main file's syncs.
const BAND_COLORS: [usize; 3] = [9, 8, 6];
const CHECKPOINT_COLOR: RGBColor = RGBColor(176, 122, 161);
const WAL_COLOR: usize = 0;
const SYNC_COLOR: usize = 2;

/// A checkpoint marker placed on the picture, in the backend's pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    pub x: i32,
    pub y: i32,
    pub end: CheckpointEnd,
    pub title: String,
    /// Frames copied of frames in the WAL, written beside it (only where it did not copy all,
    /// and not where it would overlap the label before it).
    pub label: Option<String>,
}

/// Finished checkpoints filled, the others hollow (a partial one gets a dot inside).
fn checkpoint_style(end: CheckpointEnd) -> ShapeStyle {
    if end == CheckpointEnd::Finished {
        CHECKPOINT_COLOR.filled()
    } else {
        CHECKPOINT_COLOR.stroke_width(2)
    }
}

/// A marker's circle and, for a partial checkpoint, the dot inside it, at `(x, y)`.
fn marker_shapes(x: i32, y: i32, end: CheckpointEnd) -> Vec<Circle<(i32, i32), i32>> {
    let mut v = vec![Circle::new((x, y), MARKER_RADIUS, checkpoint_style(end))];
    if end == CheckpointEnd::Partial {
        v.push(Circle::new((x, y), PARTIAL_DOT, CHECKPOINT_COLOR.filled()));
    }
    v
}

/// The label's text style: small, in the checkpoints' colour.
fn label_style() -> TextStyle<'static> {
    TextStyle::from((FAMILY, 11).into_font()).color(&CHECKPOINT_COLOR)
}

/// A marker as an SVG element with its tooltip (`class` says which kind, for tests), and its
/// label beside it.
fn marker_svg(m: &Marker) -> String {
    let RGBColor(r, g, b) = CHECKPOINT_COLOR;
    let c = format!("#{r:02X}{g:02X}{b:02X}");
    let dot = if m.end == CheckpointEnd::Partial {
        format!(
            "<circle cx=\"{}\" cy=\"{}\" r=\"{PARTIAL_DOT}\" fill=\"{c}\"/>",
            m.x, m.y
        )
    } else {
        String::new()
    };
    let label = m.label.as_deref().map_or(String::new(), |l| {
        format!(
            "<text class=\"checkpoint-frames\" x=\"{}\" y=\"{}\" font-family=\"{FAMILY}\" font-size=\"11\" fill=\"{c}\">{}</text>",
            m.x + MARKER_RADIUS + 2,
            m.y - MARKER_RADIUS - 2,
            super::page::esc(l)
        )
    });
    format!(
        "<g class=\"checkpoint {}\"><circle cx=\"{}\" cy=\"{}\" r=\"{MARKER_RADIUS}\" fill=\"{}\" stroke=\"{c}\" stroke-width=\"2\"/>{dot}<title>{}</title></g>{label}\n",
        m.end.word(),
        m.x,
        m.y,
        if m.end == CheckpointEnd::Finished { c.as_str() } else { "white" },
        super::page::esc(&m.title)
    )
}

/// Drops the labels that would overlap the one before them (closer than [`LABEL_PX`]).
fn spaced(mut placed: Vec<Marker>) -> Vec<Marker> {
    let mut last: Option<i32> = None;
    for m in &mut placed {
        if m.label.is_none() {
            continue;
        }
        if last.is_some_and(|x| m.x - x < LABEL_PX) {
            m.label = None;
        } else {
            last = Some(m.x);
        }
    }
    placed
}

/// A hold's band colour, and its colour on white at [`BAND_OPACITY`] (the legend's swatch).
fn band_color(i: usize) -> RGBColor {
    color(BAND_COLORS[i % BAND_COLORS.len()])
}

fn on_white(c: RGBColor, a: f64) -> RGBColor {
    let mix = |v: u8| (f64::from(v) * a + 255.0 * (1.0 - a)).round() as u8;
    RGBColor(mix(c.0), mix(c.1), mix(c.2))
}

/// What a legend entry's swatch is.
enum Swatch {
    Fill(RGBColor),
    Checkpoint(CheckpointEnd),
}

fn timeline_legend(t: &Timeline) -> Vec<(Swatch, String)> {
    let mut o = Vec::new();
    if !t.wal.is_empty() {
        o.push((Swatch::Fill(color(WAL_COLOR)), "WAL size (MiB)".to_string()));
    }
    for (i, l) in t.roles.iter().enumerate() {
        o.push((
            Swatch::Fill(color(OPERATION_COLORS + i)),
            format!("{}: transactions per second", l.name),
        ));
    }
    if !t.syncs.is_empty() {
        o.push((Swatch::Fill(color(SYNC_COLOR)), "main database file syncs".to_string()));
    }
    for (i, (role, kind)) in t.band_roles().into_iter().enumerate() {
        let what = if kind == "hold" {
            "holds its snapshot".to_string()
        } else {
            format!("runs its {kind}")
        };
        o.push((
            Swatch::Fill(on_white(band_color(i), BAND_OPACITY * 2.0)),
            format!("{role} {what}"),
        ));
    }
    let any = |end: CheckpointEnd| t.checkpoints.iter().any(|k| k.end == end);
    if any(CheckpointEnd::Finished) {
        o.push((
            Swatch::Checkpoint(CheckpointEnd::Finished),
            "checkpoint finished: every frame copied".to_string(),
        ));
    }
    if any(CheckpointEnd::Partial) {
        o.push((
            Swatch::Checkpoint(CheckpointEnd::Partial),
            "checkpoint partial: frames copied/frames in the WAL".to_string(),
        ));
    }
    if any(CheckpointEnd::Busy) {
        o.push((Swatch::Checkpoint(CheckpointEnd::Busy), "checkpoint busy".to_string()));
    }
    o
}

/// The timeline's panels, top to bottom, each with the data it has.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Panel {
    Wal,
    Roles,
    Syncs,
}

impl Panel {
    fn height(self) -> u32 {
        30 + match self {
            Panel::Wal => 240,
            Panel::Roles => 200,
            Panel::Syncs => 150,
        }
    }
}

fn panels(t: &Timeline) -> Vec<Panel> {
    let mut p = Vec::new();
    if !t.wal.is_empty() {
        p.push(Panel::Wal);
    }
    if !t.roles.is_empty() {
        p.push(Panel::Roles);
    }
    if !t.syncs.is_empty() {
        p.push(Panel::Syncs);
    }
    p
}

/// A panel's y axis: its range and ticks (log for the roles' rates when they span more than
/// 10x), whether it is log, and its label.
fn panel_axis(k: Panel, t: &Timeline) -> (std::ops::Range<f64>, Vec<f64>, bool, String) {
    let values: Vec<f64> = match k {
        Panel::Wal => t.wal.iter().map(|p| p.1).collect(),
        Panel::Roles => t.roles.iter().flat_map(|l| l.points.iter().map(|p| p.1)).collect(),
        Panel::Syncs => t.syncs.iter().map(|p| p.1).collect(),
    };
    let hi = values.iter().copied().fold(0.0, f64::max);
    let log = k == Panel::Roles && t.roles_log;
    let (y_range, y_ticks) = if log {
        log_axis(
            values
                .iter()
                .copied()
                .filter(|v| *v > 0.0)
                .fold(f64::INFINITY, f64::min),
            hi,
        )
    } else {
        let ticks = nice_ticks(0.0, if hi > 0.0 { hi * 1.05 } else { 1.0 });
        (0.0..*ticks.last().unwrap_or(&1.0), ticks)
    };
    let y_label = match k {
        Panel::Wal => "WAL size (MiB)".to_string(),
        Panel::Roles => t.roles_label(),
        Panel::Syncs => "main file syncs".to_string(),
    };
    (y_range, y_ticks, log, y_label)
}

/// `points` in runs without a gap wider than `gap` between neighbours (none: one run): a
/// line is drawn through each run, and not across the gaps, where there is no data.
pub fn segments(points: &[(f64, f64)], gap: Option<f64>) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    for &p in points {
        match out.last_mut() {
            Some(run) if gap.is_none_or(|g| run.last().is_some_and(|q| p.0 - q.0 <= g)) => run.push(p),
            _ => out.push(vec![p]),
        }
    }
    out
}

/// A panel's lines: the WAL's size, each role's rate, or the main-file syncs.
fn draw_lines<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<Axis, Axis>>,
    k: Panel,
    log: bool,
    t: &Timeline,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB::ErrorType: 'static,
{
    let (lines, offset): (Vec<Vec<(f64, f64)>>, Vec<usize>) = match k {
        Panel::Wal => (vec![t.wal.clone()], vec![WAL_COLOR]),
        Panel::Syncs => (vec![t.syncs.clone()], vec![SYNC_COLOR]),
        Panel::Roles => (
            t.roles.iter().map(|l| l.points.clone()).collect(),
            (0..t.roles.len()).map(|i| OPERATION_COLORS + i).collect(),
        ),
    };
    for (pts, c) in lines.into_iter().zip(offset) {
        let pts: Vec<(f64, f64)> = pts
            .into_iter()
            .map(|(x, y)| {
                (
                    x,
                    if log {
                        y.max(1e-9).log10().max(chart.y_range().start)
                    } else {
                        y
                    },
                )
            })
            .collect();
        let style = color(c).mix(LINE_OPACITY).stroke_width(2);
        chart.draw_series(
            segments(&pts, Some(t.interval_s * 1.5))
                .into_iter()
                .map(|run| PathElement::new(run, style)),
        )?;
    }
    Ok(())
}

/// Stacked panels over one time axis: meshes first, then the holds' bands across every panel,
/// then the lines, then the bands' labels; returns where the checkpoint markers go (on the WAL
/// line, or along the top panel's floor without one).
fn timeline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    fig: &Figure,
    t: &Timeline,
) -> Result<Vec<Marker>, DrawError>
where
    DB::ErrorType: 'static,
{
    let kinds = panels(t);
    let x_max = t
        .end_s
        .max(t.wal.iter().chain(&t.syncs).map(|p| p.0).fold(0.0, f64::max))
        .max(t.holds.iter().chain(&t.runs).map(|h| h.end_s).fold(0.0, f64::max))
        .max(1.0);
    let x_ticks = nice_ticks(0.0, x_max);
    let mut areas = Vec::new();
    let mut rest = area.clone();
    for k in &kinds {
        let (top, bottom) = rest.split_vertically(k.height());
        areas.push(top);
        rest = bottom;
    }
    let mut charts = Vec::new();
    for (i, (k, a)) in kinds.iter().zip(&areas).enumerate() {
        let last = i + 1 == kinds.len();
        let (y_range, y_ticks, log, y_label) = panel_axis(*k, t);
        let mut chart = ChartBuilder::on(a)
            .margin(8)
            .x_label_area_size(if last { 50 } else { 24 })
            .y_label_area_size(80)
            .build_cartesian_2d(Axis::new(0.0..x_max, x_ticks.clone()), Axis::new(y_range, y_ticks))
            .map_err(err(fig))?;
        let y_fmt = |v: &f64| if log { tick(10f64.powf(*v)) } else { tick(*v) };
        let mut mesh = chart.configure_mesh();
        mesh.light_line_style(WHITE)
            .bold_line_style(BLACK.mix(0.12))
            .x_label_style((FAMILY, 13))
            .y_label_style((FAMILY, 13))
            .axis_desc_style((FAMILY, 14))
            .x_label_formatter(&|v: &f64| tick(*v))
            .y_label_formatter(&y_fmt)
            .y_desc(y_label);
        if last {
            mesh.x_desc("seconds since the measured start");
        }
        mesh.draw().map_err(err(fig))?;
        charts.push((*k, log, chart));
    }
    let screen = area.use_screen_coord();
    let (Some((_, _, first)), Some((_, _, bottom))) = (charts.first(), charts.last()) else {
        return Ok(Vec::new());
    };
    let top_px = first.plotting_area().get_pixel_range().1.start;
    let bottom_px = bottom.plotting_area().get_pixel_range().1.end;
    let roles = t.band_roles();
    let band_index = |role: &str| roles.iter().position(|r| r.0 == role).unwrap_or(0);
    let x_px = |x: f64| first.backend_coord(&(x, first.y_range().start)).0;
    let bands: Vec<(i32, i32, &str)> = t
        .holds
        .iter()
        .chain(&t.runs)
        .map(|h| (x_px(h.start_s), x_px(h.end_s).max(x_px(h.start_s) + 1), h.role.as_str()))
        .collect();
    for (x0, x1, role) in &bands {
        let c = band_color(band_index(role));
        screen
            .draw(&Rectangle::new(
                [(*x0, top_px), (*x1, bottom_px)],
                c.mix(BAND_OPACITY).filled(),
            ))
            .map_err(err(fig))?;
    }
    let mut placed = Vec::new();
    for (k, log, chart) in &mut charts {
        draw_lines(chart, *k, *log, t).map_err(err(fig))?;
        if *k == Panel::Wal || (placed.is_empty() && !kinds.contains(&Panel::Wal)) {
            for m in &t.checkpoints {
                let at = if *k == Panel::Wal {
                    chart.backend_coord(&(m.t_s, t.wal_at(m.t_s).unwrap_or(0.0)))
                } else {
                    let (x, y) = chart.backend_coord(&(m.t_s, chart.y_range().start));
                    (x, y - MARKER_RADIUS - 2)
                };
                placed.push(Marker {
                    x: at.0,
                    y: at.1,
                    end: m.end,
                    title: m.title.clone(),
                    label: m.label.clone(),
                });
            }
        }
    }
    let label = TextStyle::from((FAMILY, 12).into_font()).color(&RGBColor(64, 64, 64));
    for (x0, _, role) in &bands {
        screen
            .draw(&Text::new(role.to_string(), (x0 + 3, top_px + 2), label.clone()))
            .map_err(err(fig))?;
    }
    Ok(spaced(placed))
}

/// Whether a bar chart is drawn with horizontal bars: many or long group names (a suite's
/// tests, SSB's queries) then read left to right beside their bars instead of crowding or
/// overlapping under them.
pub fn horizontal(b: &BarChart) -> bool {
    let longest = b.groups.iter().map(|g| g.chars().count()).max().unwrap_or(0);
    b.groups.len() > 6 || longest * b.groups.len() > 90
}

/// Pixels per bar of a horizontal chart, and per group gap.
const BAR_PX: u32 = 16;
const GROUP_GAP_PX: u32 = 12;

fn bars<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, fig: &Figure, b: &BarChart) -> Result<(), DrawError>
where
    DB::ErrorType: 'static,
{
    let at = BarPlaces::new(b);
    if at.across {
        bars_across(area, fig, &at)
    } else {
        bars_up(area, fig, &at)
    }
}

/// Where a bar chart's bars go, the same whichever way they point: the value axis, and each
/// group's and series' place along the category axis.
struct BarPlaces<'b> {
    b: &'b BarChart,
    across: bool,
    groups: usize,
    v_range: std::ops::Range<f64>,
    vt: Vec<f64>,
}

impl<'b> BarPlaces<'b> {
    /// The value axis from the bars and their intervals, and which way the bars point.
    fn new(b: &'b BarChart) -> Self {
        let top = b
            .bars
            .iter()
            .map(|bar| bar.interval.map_or(bar.value, |(_, hi)| hi.max(bar.value)))
            .fold(0.0, f64::max);
        // On a log axis values are drawn as log10(v), and bars rise from the axis' lowest decade.
        let (v_range, vt) = if b.y_log {
            let bottom = b
                .bars
                .iter()
                .flat_map(|bar| std::iter::once(bar.value).chain(bar.interval.map(|(lo, _)| lo)))
                .filter(|v| *v > 0.0)
                .fold(f64::INFINITY, f64::min);
            log_axis(bottom, top)
        } else {
            let vt = nice_ticks(0.0, if top > 0.0 { top * 1.05 } else { 1.0 });
            (0.0..*vt.last().unwrap_or(&1.0), vt)
        };
        let (across, groups) = (horizontal(b), b.groups.len().max(1));
        BarPlaces {
            b,
            across,
            groups,
            v_range,
            vt,
        }
    }

    /// Where the bars rise from: the value axis' bottom.
    fn base(&self) -> f64 {
        self.v_range.start
    }

    /// A value as drawn: its log10 on a log axis, never below the axis.
    fn map(&self, v: f64) -> f64 {
        if self.b.y_log {
            v.max(1e-9).log10().max(self.base())
        } else {
            v
        }
    }

    /// A value tick's label, the value itself on a log axis.
    fn v_fmt(&self, v: &f64) -> String {
        if self.b.y_log {
            tick(10f64.powf(*v))
        } else {
            tick(*v)
        }
    }

    /// The value axis, ticked.
    fn values(&self) -> Axis {
        Axis::new(self.v_range.clone(), self.vt.clone())
    }

    /// The category axis: group g occupies [g, g + 1), ticked at its centre.
    fn categories(&self) -> Axis {
        let centres = (0..self.groups).map(|g| g as f64 + 0.5).collect();
        Axis::new(0f64..self.groups as f64, centres)
    }

    /// The group named at a place on the category axis; horizontally, group 0 is on top.
    fn name_of(&self, v: &f64) -> String {
        let g = v.floor() as usize;
        let g = if self.across {
            self.groups.saturating_sub(1 + g)
        } else {
            g
        };
        self.b.groups.get(g).cloned().unwrap_or_default()
    }

    /// A bar's span along the category axis; horizontally, series 0 is the top bar of its group.
    fn slot(&self, bar: &super::data::Bar) -> (f64, f64) {
        let n = self.b.series.len().max(1) as f64;
        let width = 0.8 / n;
        let g = if self.across {
            self.groups - 1 - bar.group
        } else {
            bar.group
        } as f64;
        let s = if self.across {
            n - 1.0 - bar.series as f64
        } else {
            bar.series as f64
        };
        let c0 = g + 0.1 + s * width;
        (c0, c0 + width * 0.92)
    }
}

/// The whiskers of a bar's interval.
fn whisker() -> ShapeStyle {
    BLACK.mix(0.8).stroke_width(1)
}

/// Bars pointing right, groups down the side: for many groups or long names.
fn bars_across<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, fig: &Figure, at: &BarPlaces) -> Result<(), DrawError>
where
    DB::ErrorType: 'static,
{
    let b = at.b;
    let longest = b.groups.iter().map(|g| g.chars().count()).max().unwrap_or(0) as u32;
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size((longest * 8).clamp(60, 320))
        .build_cartesian_2d(at.values(), at.categories())
        .map_err(err(fig))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .light_line_style(WHITE)
        .bold_line_style(BLACK.mix(0.12))
        .x_label_style((FAMILY, 13))
        .y_label_style((FAMILY, 13))
        .axis_desc_style((FAMILY, 14))
        .y_label_formatter(&|v| at.name_of(v))
        .x_label_formatter(&|v| at.v_fmt(v))
        .x_desc(b.y_label.as_str())
        .draw()
        .map_err(err(fig))?;
    let (base, map) = (at.base(), |v| at.map(v));
    for bar in &b.bars {
        let (c0, c1) = at.slot(bar);
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(base, c0), (map(bar.value), c1)],
                color(bar.series).mix(BAR_OPACITY).filled(),
            )))
            .map_err(err(fig))?;
        if let Some((lo, hi)) = bar.interval {
            let (lo, mid, hi) = (map(lo), map(bar.value), map(hi));
            let bar = ErrorBar::new_horizontal((c0 + c1) / 2.0, lo, mid, hi, whisker(), 6);
            chart.draw_series(std::iter::once(bar)).map_err(err(fig))?;
        }
    }
    Ok(())
}

/// Bars pointing up, groups along the bottom.
fn bars_up<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, fig: &Figure, at: &BarPlaces) -> Result<(), DrawError>
where
    DB::ErrorType: 'static,
{
    let b = at.b;
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(at.categories(), at.values())
        .map_err(err(fig))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .bold_line_style(BLACK.mix(0.12))
        .x_label_style((FAMILY, 13))
        .y_label_style((FAMILY, 13))
        .axis_desc_style((FAMILY, 14))
        .x_label_formatter(&|v| at.name_of(v))
        .y_label_formatter(&|v| at.v_fmt(v))
        .y_desc(b.y_label.as_str())
        .draw()
        .map_err(err(fig))?;
    let (base, map) = (at.base(), |v| at.map(v));
    for bar in &b.bars {
        let (x0, x1) = at.slot(bar);
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x0, base), (x1, map(bar.value))],
                color(bar.series).mix(BAR_OPACITY).filled(),
            )))
            .map_err(err(fig))?;
        if let Some((lo, hi)) = bar.interval {
            let (lo, mid, hi) = (map(lo), map(bar.value), map(hi));
            let bar = ErrorBar::new_vertical((x0 + x1) / 2.0, lo, mid, hi, whisker(), 8);
            chart.draw_series(std::iter::once(bar)).map_err(err(fig))?;
        }
    }
    Ok(())
}

fn lines<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, fig: &Figure, l: &LineChart) -> Result<(), DrawError>
where
    DB::ErrorType: 'static,
{
    let ys = l.lines.iter().flat_map(|line| line.points.iter().map(|p| p.1));
    let xs = l.lines.iter().flat_map(|line| line.points.iter().map(|p| p.0));
    let (x_min, x_max) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    // A log axis plots log10(y); its ticks are whole decades (and 2x, 5x when few decades).
    let map = |v: f64| if l.y_log { v.max(1e-9).log10() } else { v };
    let (y_lo, y_hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if !x_min.is_finite() || !y_lo.is_finite() {
        return Ok(());
    }
    let (y_range, y_ticks) = if l.y_log {
        let positive = l
            .lines
            .iter()
            .flat_map(|line| line.points.iter().map(|p| p.1))
            .filter(|v| *v > 0.0);
        log_axis(positive.fold(f64::INFINITY, f64::min), y_hi)
    } else {
        let t = nice_ticks(0.0, if y_hi > 0.0 { y_hi * 1.05 } else { 1.0 });
        (0.0..*t.last().unwrap_or(&1.0), t)
    };
    let (x_range, x_ticks): (std::ops::Range<f64>, Vec<f64>) = match &l.x {
        XAxis::Categories(_, values) => (
            -0.3..(values.len().max(1) - 1) as f64 + 0.3,
            (0..values.len()).map(|i| i as f64).collect(),
        ),
        XAxis::Nines => (
            0.0..x_max.max(1.0),
            (0..=x_max.floor() as usize).map(|i| i as f64).collect(),
        ),
        XAxis::Linear(_) => {
            let t = nice_ticks(x_min.min(0.0), x_max.max(1.0));
            (t[0]..x_max.max(1.0) + 0.5, t)
        }
        XAxis::Years(_) => {
            let (lo, hi) = (x_min.floor(), x_max.ceil().max(x_min.floor() + 1.0));
            let t: Vec<f64> = nice_ticks(lo, hi)
                .into_iter()
                .filter(|v| *v >= lo && *v <= hi)
                .collect();
            (lo..hi, t)
        }
    };
    let x = Axis::new(x_range, x_ticks);
    let y = Axis::new(y_range, y_ticks);
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(x, y)
        .map_err(err(fig))?;
    let x_desc = match &l.x {
        XAxis::Categories(name, _) => name.clone(),
        XAxis::Nines => "percentile".into(),
        XAxis::Linear(name) | XAxis::Years(name) => name.clone(),
    };
    let x_fmt = |v: &f64| match &l.x {
        XAxis::Categories(_, values) => values.get(v.round() as usize).cloned().unwrap_or_default(),
        XAxis::Nines => nines_label(*v),
        XAxis::Linear(_) => tick(*v),
        XAxis::Years(_) => format!("{v:.0}"),
    };
    let y_fmt = |v: &f64| if l.y_log { tick(10f64.powf(*v)) } else { tick(*v) };
    chart
        .configure_mesh()
        .light_line_style(WHITE)
        .bold_line_style(BLACK.mix(0.12))
        .x_label_style((FAMILY, 13))
        .y_label_style((FAMILY, 13))
        .axis_desc_style((FAMILY, 14))
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .x_desc(x_desc)
        .y_desc(l.y_label.as_str())
        .draw()
        .map_err(err(fig))?;
    for (i, line) in l.lines.iter().enumerate() {
        let c = color(l.color_offset + i);
        let pts: Vec<(f64, f64)> = line.points.iter().map(|&(x, y)| (x, map(y))).collect();
        let style = c.mix(LINE_OPACITY).stroke_width(2);
        chart
            .draw_series(
                segments(&pts, l.gap_s)
                    .into_iter()
                    .map(|run| PathElement::new(run, style)),
            )
            .map_err(err(fig))?;
        if l.markers {
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))
                .map_err(err(fig))?;
        }
    }
    Ok(())
}

/// `fig` as an SVG document.
pub fn svg(fig: &Figure) -> Result<String, DrawError> {
    let mut out = String::new();
    let markers;
    {
        let root = SVGBackend::with_string(&mut out, (width(fig), height(fig))).into_drawing_area();
        markers = draw_with(&root, fig, false)?;
    }
    // A timeline's checkpoints on top, each with its tooltip.
    if !markers.is_empty() {
        let end = out.rfind("</svg>").unwrap_or(out.len());
        let drawn: String = markers.iter().map(marker_svg).collect();
        out.insert_str(end, &drawn);
    }
    Ok(out)
}

/// `fig` as a PNG file's bytes (drawn in memory, so that the file is written only by
/// [`crate::base::outfile`], never opened by path here).
pub fn png(fig: &Figure) -> Result<Vec<u8>, DrawError> {
    use image::ImageEncoder;
    let (w, h) = (width(fig), height(fig));
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        draw(&root, fig)?;
    }
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(&rgb, w, h, image::ColorType::Rgb8)
        .map_err(err(fig))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::html::data::{Bar, LOG_LABEL, LOG_SPREAD};

    /// A bar chart of one group, one bar per value, chosen its scale as the report does.
    fn bar_figure(values: &[f64]) -> Figure {
        Figure {
            id: "t".into(),
            title: "t".into(),
            note: String::new(),
            chart: Chart::Bars(
                BarChart {
                    y_label: "transactions per second".into(),
                    groups: vec!["all".into()],
                    series: (0..values.len()).map(|i| format!("#{i}")).collect(),
                    bars: values
                        .iter()
                        .enumerate()
                        .map(|(series, &value)| Bar {
                            group: 0,
                            series,
                            value,
                            interval: None,
                        })
                        .collect(),
                    y_log: false,
                }
                .scaled(),
            ),
            compact: false,
        }
    }

    /// The drawn picture's text labels with their y, and its bars' heights, read from the SVG.
    fn picture(svg: &str) -> (Vec<(f64, String)>, Vec<f64>) {
        let num = |tag: &str, name: &str| -> f64 {
            let key = format!(" {name}=\"");
            let i = tag.find(&key).unwrap_or_else(|| panic!("{name} in {tag}")) + key.len();
            tag[i..].split('"').next().unwrap().parse().unwrap()
        };
        let labels = svg
            .split("<text ")
            .skip(1)
            .map(|t| {
                let (tag, rest) = t.split_once('>').unwrap();
                (num(tag, "y"), rest.split("</text>").next().unwrap().trim().to_string())
            })
            .collect();
        let heights = svg
            .split("<rect ")
            .skip(1)
            .map(|r| &r[..r.find('>').unwrap()])
            .filter(|r| r.contains(&format!("opacity=\"{BAR_OPACITY}\"")))
            .map(|r| num(r, "height"))
            .collect();
        (labels, heights)
    }

    #[test]
    fn a_spread_of_500x_is_drawn_on_a_log_axis_that_says_so() {
        let (low, high) = (80.0, 80.0 * 500.0);
        let fig = bar_figure(&[high, low, 2.0 * low]);
        assert!(fig.y_log(), "a spread of 500x is beyond {LOG_SPREAD}x");
        let (labels, heights) = picture(&svg(&fig).unwrap());
        assert!(
            labels.iter().any(|(_, l)| l.ends_with(LOG_LABEL.trim())),
            "the axis says it is logarithmic: {labels:?}"
        );
        // Decades are evenly spaced up the axis.
        let at = |l: &str| {
            labels
                .iter()
                .find(|(_, t)| t == l)
                .unwrap_or_else(|| panic!("{l} in {labels:?}"))
                .0
        };
        let steps: Vec<f64> = ["10", "100", "1000", "10k", "100k"]
            .windows(2)
            .map(|w| at(w[0]) - at(w[1]))
            .collect();
        assert!(
            steps.iter().all(|s| (s - steps[0]).abs() <= 1.0 && *s > 20.0),
            "{steps:?}"
        );
        // Bars are as tall as their values' logarithms: twice the value is log10(2) of a
        // decade taller, and the smallest is still a bar (on a linear axis, 1/500 of the tallest).
        assert_eq!(heights.len(), 3);
        let [tallest, smallest, double] = [heights[0], heights[1], heights[2]];
        assert!(
            tallest > double && double > smallest && smallest > tallest / 5.0,
            "{heights:?}"
        );
        assert!(
            (double - smallest - steps[0] * 2f64.log10()).abs() <= 2.0,
            "{heights:?} {steps:?}"
        );
    }

    #[test]
    fn a_spread_within_10x_stays_linear() {
        let fig = bar_figure(&[100.0, 100.0 * LOG_SPREAD * 0.9]);
        assert!(!fig.y_log());
        let (labels, heights) = picture(&svg(&fig).unwrap());
        assert!(labels.iter().all(|(_, l)| !l.contains("log")), "{labels:?}");
        assert!(labels.iter().any(|(_, l)| l == "0"), "a linear axis starts at 0");
        // Heights are proportional to values.
        let ratio = heights[1] / heights[0];
        assert!((ratio - LOG_SPREAD * 0.9).abs() < 0.2, "{heights:?}");
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        let t = nice_ticks(0.0, 1234.0);
        assert_eq!(t.first(), Some(&0.0));
        assert!(*t.last().unwrap() >= 1234.0);
        assert_eq!(t[1] - t[0], 200.0, "{t:?}");
        assert_eq!(tick(25_000.0), "25k");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(nines_label(0.0), "0%");
        assert_eq!(nines_label(1.0), "90%");
        assert_eq!(nines_label(3.0), "99.9%");
    }

    /// A line over time with no readings from 2 s to 8 s (a stall) is drawn as two lines, not
    /// one straight across the gap; without a gap it stays one line.
    #[test]
    fn a_line_breaks_across_a_gap_with_no_data() {
        let pts = [(0.0, 5.0), (1.0, 5.0), (2.0, 6.0), (8.0, 1.0), (9.0, 2.0)];
        assert_eq!(segments(&pts, Some(1.5)).len(), 2);
        assert_eq!(segments(&pts, None).len(), 1);
        assert_eq!(segments(&pts[..3], Some(1.5)).len(), 1);
        let figure = |gap_s: Option<f64>| Figure {
            id: "t".into(),
            title: "t".into(),
            note: String::new(),
            chart: Chart::Lines(LineChart {
                x: XAxis::Linear("seconds into the trial".into()),
                y_label: "tx/s".into(),
                y_log: false,
                markers: false,
                gap_s,
                color_offset: 0,
                lines: vec![crate::report::html::data::Line {
                    name: "#0".into(),
                    points: pts.to_vec(),
                }],
            }),
            compact: false,
        };
        let paths = |svg: String| {
            svg.matches(&format!("polyline fill=\"none\" opacity=\"{LINE_OPACITY}\""))
                .count()
        };
        assert_eq!(paths(svg(&figure(Some(1.5))).unwrap()), 2);
        assert_eq!(paths(svg(&figure(None)).unwrap()), 1);
    }
}
