//! Opening a file the user names as data to read (a database to copy): only a regular file.
//!
//! A FIFO blocks `open` until a writer comes, possibly for ever, and a device or a socket is
//! no database. So the file is opened without blocking (`O_NONBLOCK`, which a regular file
//! ignores) and its kind is taken from the descriptor (`fstat`), not from the path: what is
//! checked is what is then read, even if the path is replaced in between.

use std::fs::File;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Why a file was not opened.
#[derive(Debug, thiserror::Error)]
pub enum RegularFileError {
    #[error("{path}: cannot read it: {source}")]
    Open { path: PathBuf, source: std::io::Error },
    #[error("{path}: {kind}, not a regular file; name a file")]
    NotRegular { path: PathBuf, kind: &'static str },
}

/// What a file that is not a regular one is, in words.
fn kind_of(t: std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading if it is a regular file (a symbolic link to one is followed),
/// never blocking on what it is.
pub fn open(path: &Path) -> Result<File, RegularFileError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|source| RegularFileError::Open {
            path: path.to_path_buf(),
            source,
        })?;
    let meta = file.metadata().map_err(|source| RegularFileError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    if !meta.file_type().is_file() {
        return Err(RegularFileError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_of(meta.file_type()),
        });
    }
    Ok(file)
}

/// The SHA-256 of regular file `path`, in hex, read in blocks (a database may be large).
pub fn sha256_hex(path: &Path) -> Result<String, RegularFileError> {
    use sha2::Digest;
    use std::io::Read;
    let mut file = open(path)?;
    let mut hash = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(|source| RegularFileError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        if n == 0 {
            break;
        }
        hash.update(&buf[..n]);
    }
    Ok(hash.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_a_directory_and_a_device_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for (p, kind) in [
            (fifo.as_path(), "a FIFO"),
            (dir.path(), "a directory"),
            (Path::new("/dev/null"), "a character device"),
        ] {
            let e = open(p).expect_err("refused").to_string();
            assert!(e.contains(kind) && e.contains("not a regular file"), "{e}");
        }
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        assert!(open(&file).is_ok());
    }
}
