//! The one font the charts are laid out and rasterised with, found at run time.
//!
//! plotters needs font metrics to lay out axis labels (SVG too) and glyphs to draw text into a
//! PNG. Rather than whatever fontconfig happens to pick (a different font, so different chart
//! layouts, on every machine), litebench loads one file: `$LITEBENCH_FONT` when set, else
//! DejaVu Sans from Debian's `fonts-dejavu-core` package. A missing font is one error line
//! naming the package, never a chart without text.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where Debian's `fonts-dejavu-core` installs DejaVu Sans (and other distributions' places).
const CANDIDATES: [&str; 3] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
];

/// The family name charts ask plotters for.
pub const FAMILY: &str = "sans-serif";

/// Why the charts have no font.
#[derive(Debug, Clone, thiserror::Error)]
pub enum FontError {
    #[error("charts need the DejaVu Sans font: install Debian's fonts-dejavu-core (apt-get install fonts-dejavu-core) or set LITEBENCH_FONT to a .ttf file")]
    Missing,
    #[error("LITEBENCH_FONT={path}: {reason}; give a TrueType/OpenType font file")]
    Unusable { path: String, reason: String },
}

/// The font file that would be used.
pub fn locate() -> Result<PathBuf, FontError> {
    if let Some(p) = std::env::var_os("LITEBENCH_FONT").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        if !p.is_file() {
            return Err(FontError::Unusable {
                path: p.display().to_string(),
                reason: "no such file".into(),
            });
        }
        return Ok(p);
    }
    CANDIDATES
        .iter()
        .map(Path::new)
        .find(|p| p.is_file())
        .map(Path::to_path_buf)
        .ok_or(FontError::Missing)
}

static REGISTERED: OnceLock<Result<PathBuf, FontError>> = OnceLock::new();

/// Loads the font once per process and hands it to plotters as [`FAMILY`].
pub fn ensure() -> Result<(), FontError> {
    REGISTERED
        .get_or_init(|| {
            let path = locate()?;
            let unusable = |reason: String| FontError::Unusable {
                path: path.display().to_string(),
                reason,
            };
            let bytes = std::fs::read(&path).map_err(|e| unusable(e.to_string()))?;
            // plotters keeps fonts for the life of the process; this is loaded once.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            plotters::style::register_font(FAMILY, plotters::style::FontStyle::Normal, bytes)
                .map_err(|_| unusable("not a font plotters can read".into()))?;
            Ok(path)
        })
        .as_ref()
        .map(|_| ())
        .map_err(Clone::clone)
}
