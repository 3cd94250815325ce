//! Reading official `.tbl` files as the same chunks the generator yields.
//!
//! The file is read in blocks cut at line ends, so memory stays flat however large the file.
//! A last line without its `\n` is still a line. Errors carry the file and the line number so a
//! loader can print "FILE line N column NAME: why".

use crate::chunks::Chunk;
use crate::parse::LineError;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Bytes read per chunk.
const READ_BYTES: usize = 1 << 20;

/// A `.tbl` file that cannot be read, or a line of it that is malformed.
#[derive(Debug, thiserror::Error)]
pub enum TblError {
    #[error("{}: cannot open: {source}", file.display())]
    Open { file: PathBuf, source: std::io::Error },
    #[error("{} line {line}: cannot read: {source}", file.display())]
    Read {
        file: PathBuf,
        line: u64,
        source: std::io::Error,
    },
    #[error("{} line {line} {source}", file.display())]
    Line {
        file: PathBuf,
        line: u64,
        source: LineError,
    },
}

impl TblError {
    /// A malformed line `line` (1-based) of `file`.
    pub fn line(file: &Path, line: u64, source: LineError) -> TblError {
        TblError::Line {
            file: file.to_path_buf(),
            line,
            source,
        }
    }
}

/// Opens `path` for reading as chunks of whole lines.
pub fn read_tbl(path: &Path) -> Result<TblChunks, TblError> {
    let file = File::open(path).map_err(|source| TblError::Open {
        file: path.to_path_buf(),
        source,
    })?;
    Ok(TblChunks {
        path: path.to_path_buf(),
        file,
        carry: Vec::new(),
        next_line: 1,
        done: false,
    })
}

/// The chunks of a `.tbl` file; see [`read_tbl`].
pub struct TblChunks {
    path: PathBuf,
    file: File,
    /// The start of a line whose end is not read yet.
    carry: Vec<u8>,
    next_line: u64,
    done: bool,
}

impl TblChunks {
    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn chunk(&mut self, bytes: Vec<u8>) -> Chunk {
        let lines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        let chunk = Chunk {
            first_line: self.next_line,
            lines,
            bytes,
        };
        self.next_line += lines;
        chunk
    }
}

impl Iterator for TblChunks {
    type Item = Result<Chunk, TblError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let mut buf = std::mem::take(&mut self.carry);
            let start = buf.len();
            buf.resize(start + READ_BYTES, 0);
            let n = loop {
                match self.file.read(&mut buf[start..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(source) => {
                        self.done = true;
                        return Some(Err(TblError::Read {
                            file: self.path.clone(),
                            line: self.next_line,
                            source,
                        }));
                    }
                }
            };
            buf.truncate(start + n);
            if n == 0 {
                self.done = true;
                if buf.is_empty() {
                    return None;
                }
                buf.push(b'\n');
                return Some(Ok(self.chunk(buf)));
            }
            match buf.iter().rposition(|&b| b == b'\n') {
                Some(end) => {
                    self.carry = buf[end + 1..].to_vec();
                    buf.truncate(end + 1);
                    return Some(Ok(self.chunk(buf)));
                }
                None => self.carry = buf, // A line longer than one read: read on.
            }
        }
        None
    }
}
