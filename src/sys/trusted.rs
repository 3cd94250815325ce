//! Whether a file may be trusted with this process: loaded as code, or believed as a record.
//!
//! litebench runs as root (for `--fs`, `--cold`, schedulers) over a cache directory that may
//! also be a user's, a CI machine's, or one in a shared `/tmp`. Whoever can write any directory
//! on the way to a library in it can make root run their code, and the dynamic loader runs a
//! library's constructors before litebench could ask it anything. So, as ssh does for its key
//! files, a file in the cache is opened only when nobody but this user (or root) could have put
//! it there:
//!
//! - every directory above the cache is owned by this user or root, and is not writable by
//!   others unless it has the sticky bit (`/tmp`: others cannot rename what is not theirs);
//! - the cache directory and each directory below it down to the file are owned by this user or
//!   root and writable by neither group nor others (the sticky bit does not help there: others
//!   could still create the names litebench looks for);
//! - the file is a regular file (no symbolic link: litebench makes none in its cache) owned by
//!   this user or root and writable by neither group nor others.
//!
//! "This user" is the effective uid; root counts for everyone, as it can change anything
//! anyway, and so a cache that root filled (CI's) serves every user while root trusts only
//! root's files. The walk goes from `/` down one directory descriptor at a time (`openat` with
//! `O_NOFOLLOW`), so what is checked is what is opened: renaming a directory or a file after its
//! check changes nothing. What is opened stays open as a [`Checked`] file: its SHA-256 is read
//! from that descriptor, and the loader opens that very file through `/proc/self/fd/N`
//! ([`Checked::loader_path`]), so nothing can be swapped in between the check and the load.
//!
//! A path the user names (`sqlite:/path`, `duckdb:/path`, a cast file, a sidecar's program, a
//! source to compile) is their choice, but its content becomes code run as this user: the file
//! itself must be this user's or root's (as root, root's) and writable by nobody else, checked
//! on the descriptor that is then used ([`open_given`], one rule for every such file).

use rustix::fs::{Mode, OFlags};
use std::fmt;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Component, Path, PathBuf};

/// A user id as the refusal names it: `root` or `uid N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Uid(pub u32);

impl Uid {
    /// The effective uid of this process: whose files this process trusts (with root's).
    pub fn effective() -> Uid {
        Uid(rustix::process::geteuid().as_raw())
    }

    /// What `chown` takes for this user.
    fn chown_arg(self) -> String {
        if self.0 == 0 {
            "root".into()
        } else {
            self.0.to_string()
        }
    }

    fn trusts(self, owner: u32) -> bool {
        owner == self.0 || owner == 0
    }
}

impl fmt::Display for Uid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            write!(f, "root")
        } else {
            write!(f, "uid {}", self.0)
        }
    }
}

/// Permission bits as `ls -l` users read them in octal (`0775`, `1777`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileMode(pub u32);

impl FileMode {
    const GROUP_WRITE: u32 = 0o020;
    const OTHER_WRITE: u32 = 0o002;
    const STICKY: u32 = 0o1000;

    /// Who besides the owner may write, in words; `None` when nobody may.
    fn writers(self) -> Option<&'static str> {
        match (self.0 & Self::GROUP_WRITE != 0, self.0 & Self::OTHER_WRITE != 0) {
            (false, false) => None,
            (true, false) => Some("its group"),
            (false, true) => Some("everyone"),
            (true, true) => Some("its group and everyone"),
        }
    }

    fn sticky(self) -> bool {
        self.0 & Self::STICKY != 0
    }
}

impl fmt::Display for FileMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04o}", self.0 & 0o7777)
    }
}

/// Why a file or directory is not trusted; each is one line naming the path and the way out.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("{path} is owned by {owner}, not {me}: litebench loads nothing from a cache another user can change; run `chown -R {} {root}` or set LITEBENCH_CACHE to a directory only {me} can write", me.chown_arg(), root = root.display(), path = path.display())]
    Owner {
        path: PathBuf,
        owner: Uid,
        me: Uid,
        root: PathBuf,
    },
    #[error("{path} is writable by {whom} (mode {mode}): litebench loads nothing from a cache another user can change; run `chmod -R go-w {root}` or set LITEBENCH_CACHE to a directory only {me} can write", root = root.display(), path = path.display())]
    Writable {
        path: PathBuf,
        whom: &'static str,
        mode: FileMode,
        me: Uid,
        root: PathBuf,
    },
    #[error("{path}, above the cache {root}, {why}, so another user can replace the cache: set LITEBENCH_CACHE to a directory only {me} can write", root = root.display(), path = path.display())]
    Above {
        path: PathBuf,
        why: String,
        me: Uid,
        root: PathBuf,
    },
    #[error("{path} is a symbolic link in the cache, which litebench never makes nor follows: remove it, or set LITEBENCH_CACHE to a directory only {me} can write", path = path.display())]
    Symlink { path: PathBuf, me: Uid },
    #[error("{path} is not a {want}; litebench made none there: remove it", path = path.display())]
    Kind { path: PathBuf, want: &'static str },
    #[error("{path} is owned by {owner}, not {me}: {me} runs no {what} another user can change; run `chown {} {path}`, or run it as {owner}", me.chown_arg(), what = what.noun(), path = path.display())]
    GivenOwner {
        path: PathBuf,
        owner: Uid,
        me: Uid,
        what: Becomes,
    },
    #[error("{path} is writable by {whom} (mode {mode}): litebench runs no {what} another user can change; run `chmod go-w {path}`", what = what.noun(), path = path.display())]
    GivenWritable {
        path: PathBuf,
        whom: &'static str,
        mode: FileMode,
        what: Becomes,
    },
    #[error("{path}: {source}", path = path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl TrustError {
    fn io(path: &Path) -> impl FnOnce(rustix::io::Errno) -> TrustError + '_ {
        move |e| TrustError::Io {
            path: path.to_path_buf(),
            source: e.into(),
        }
    }

    /// The file or directory simply is not there (nothing was refused).
    pub fn is_missing(&self) -> bool {
        matches!(self, TrustError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
    }
}

/// A file opened once and checked on its descriptor; whatever is read or loaded from it is
/// the file that was checked.
#[derive(Debug)]
pub struct Checked {
    file: File,
    path: PathBuf,
}

impl Checked {
    /// The path it was opened by (canonical for a file in the cache).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// SHA-256 of its bytes, read from the descriptor, as lowercase hex.
    pub fn sha256_hex(&self) -> io::Result<String> {
        use sha2::Digest;
        let mut hasher = sha2::Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut at = 0u64;
        loop {
            let n = self.file.read_at(&mut buf, at)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            at += n as u64;
        }
        Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Its whole content, read from the descriptor (for a record such as `build.json`).
    pub fn read_all(&self) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; 64 << 10];
        loop {
            let n = self.file.read_at(&mut buf, out.len() as u64)?;
            if n == 0 {
                return Ok(out);
            }
            out.extend_from_slice(&buf[..n]);
        }
    }

    /// The open file (to read from, or to keep open across an exec).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The name through which the dynamic loader opens exactly this file: `/proc/self/fd/N`.
    /// Valid while `self` lives; after a successful load call [`Checked::keep_open`].
    pub fn loader_path(&self) -> PathBuf {
        PathBuf::from(format!("/proc/self/fd/{}", self.file.as_raw_fd()))
    }

    /// Keeps the descriptor open for the life of the process, as the library loaded from it
    /// stays loaded: the loader knows the library by the name `/proc/self/fd/N`, and a later
    /// file opened under the same number would otherwise be taken for it.
    pub fn keep_open(self) {
        std::mem::forget(self.file);
    }
}

/// Which rule a directory on the way to a file is held to.
#[derive(Clone, Copy)]
enum Rule {
    /// Above the cache: this user's or root's, and writable by others only with the sticky bit.
    Above,
    /// The cache directory and below: this user's or root's, writable by nobody else.
    Inside,
}

/// The cache's root, canonical (its symbolic links resolved once; the walk then follows none),
/// and `target` as a path inside it. `target` must be `root` or lie below it.
fn split(root: &Path, target: &Path) -> Result<(PathBuf, PathBuf), TrustError> {
    let canonical = std::fs::canonicalize(root).map_err(|source| TrustError::Io {
        path: root.to_path_buf(),
        source,
    })?;
    let rel = target.strip_prefix(root).map_err(|_| TrustError::Kind {
        path: target.to_path_buf(),
        want: "path inside the cache",
    })?;
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err(TrustError::Kind {
            path: target.to_path_buf(),
            want: "plain path inside the cache",
        });
    }
    Ok((canonical, rel.to_path_buf()))
}

/// Opens `name` in `dir` (a directory descriptor) without following a symbolic link.
fn open_at(dir: &OwnedFd, name: &std::ffi::OsStr, flags: OFlags, path: &Path) -> Result<OwnedFd, TrustError> {
    rustix::fs::openat(dir, name, flags | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty())
        .map_err(TrustError::io(path))
}

/// Checks one directory (opened `O_PATH`) against `rule`.
fn check_dir_fd(fd: &OwnedFd, path: &Path, rule: Rule, me: Uid, root: &Path) -> Result<(), TrustError> {
    let st = rustix::fs::fstat(fd).map_err(TrustError::io(path))?;
    let kind = rustix::fs::FileType::from_raw_mode(st.st_mode);
    if kind == rustix::fs::FileType::Symlink {
        return Err(match rule {
            Rule::Inside => TrustError::Symlink {
                path: path.to_path_buf(),
                me,
            },
            // The canonical root has none above it; one appearing now is someone's doing.
            Rule::Above => TrustError::Above {
                path: path.to_path_buf(),
                why: "became a symbolic link".into(),
                me,
                root: root.to_path_buf(),
            },
        });
    }
    if kind != rustix::fs::FileType::Directory {
        return Err(TrustError::Kind {
            path: path.to_path_buf(),
            want: "directory",
        });
    }
    let (owner, mode) = (st.st_uid, FileMode(st.st_mode));
    match rule {
        Rule::Above if !me.trusts(owner) => Err(TrustError::Above {
            path: path.to_path_buf(),
            why: format!("is owned by {}", Uid(owner)),
            me,
            root: root.to_path_buf(),
        }),
        Rule::Above => match mode.writers() {
            Some(whom) if !mode.sticky() => Err(TrustError::Above {
                path: path.to_path_buf(),
                why: format!("is writable by {whom} without the sticky bit (mode {mode})"),
                me,
                root: root.to_path_buf(),
            }),
            _ => Ok(()),
        },
        Rule::Inside => inside_owner_and_mode(path, owner, mode, me, root),
    }
}

fn inside_owner_and_mode(path: &Path, owner: u32, mode: FileMode, me: Uid, root: &Path) -> Result<(), TrustError> {
    if !me.trusts(owner) {
        return Err(TrustError::Owner {
            path: path.to_path_buf(),
            owner: Uid(owner),
            me,
            root: root.to_path_buf(),
        });
    }
    if let Some(whom) = mode.writers() {
        return Err(TrustError::Writable {
            path: path.to_path_buf(),
            whom,
            mode,
            me,
            root: root.to_path_buf(),
        });
    }
    Ok(())
}

/// Walks from `/` to the directory `root.join(rel_dir)`, checking each directory; returns the
/// last one's descriptor and path.
fn walk_dirs(root: &Path, rel_dir: &Path, me: Uid) -> Result<(OwnedFd, PathBuf), TrustError> {
    let top = Path::new("/");
    let flags = OFlags::PATH;
    let mut fd: OwnedFd = rustix::fs::open(top, flags | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
        .map_err(TrustError::io(top))?;
    let mut path = top.to_path_buf();
    let above: Vec<_> = root
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .collect();
    check_dir_fd(
        &fd,
        &path,
        if above.is_empty() { Rule::Inside } else { Rule::Above },
        me,
        root,
    )?;
    for (i, c) in above.iter().enumerate() {
        path.push(c);
        fd = open_at(&fd, c.as_os_str(), flags, &path)?;
        let rule = if i + 1 == above.len() {
            Rule::Inside
        } else {
            Rule::Above
        };
        check_dir_fd(&fd, &path, rule, me, root)?;
    }
    for c in rel_dir.components() {
        path.push(c);
        fd = open_at(&fd, c.as_os_str(), flags, &path)?;
        check_dir_fd(&fd, &path, Rule::Inside, me, root)?;
    }
    Ok((fd, path))
}

/// Checks the directory `dir` in the cache `root` (or `root` itself), and every directory on
/// the way to it.
pub fn check_dir(root: &Path, dir: &Path) -> Result<(), TrustError> {
    let (root, rel) = split(root, dir)?;
    walk_dirs(&root, &rel, Uid::effective()).map(|_| ())
}

/// Opens the file `file` in the cache `root`, checking every directory on the way and the
/// file itself on its descriptor.
pub fn open_in_cache(root: &Path, file: &Path) -> Result<Checked, TrustError> {
    let me = Uid::effective();
    let (root, rel) = split(root, file)?;
    let (Some(name), Some(rel_dir)) = (rel.file_name(), rel.parent()) else {
        return Err(TrustError::Kind {
            path: file.to_path_buf(),
            want: "file inside the cache",
        });
    };
    let (dir, mut path) = walk_dirs(&root, rel_dir, me)?;
    path.push(name);
    // O_NONBLOCK: a FIFO planted under the name must not block the open.
    let fd = open_at(&dir, name, OFlags::RDONLY | OFlags::NOCTTY | OFlags::NONBLOCK, &path).map_err(|e| match e {
        TrustError::Io { source, .. } if source.raw_os_error() == Some(libc::ELOOP) => {
            TrustError::Symlink { path: path.clone(), me }
        }
        other => other,
    })?;
    let file = File::from(fd);
    let meta = file.metadata().map_err(|source| TrustError::Io {
        path: path.clone(),
        source,
    })?;
    if !meta.file_type().is_file() {
        return Err(TrustError::Kind {
            path,
            want: "regular file",
        });
    }
    inside_owner_and_mode(&path, meta.uid(), FileMode(meta.mode()), me, &root)?;
    Ok(Checked { file, path })
}

/// What a file the user named becomes in this process: code it loads or compiles, or commands
/// it starts. Its contents then run with this process's rights, so whoever could write the file
/// could act as this user (as root, as anyone): [`open_given`] holds every such file to one rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Becomes {
    /// A shared library loaded into the process (`sqlite:/path`, `duckdb:/path`).
    Library,
    /// A cast file, whose sidecar roles name commands to start.
    Cast,
    /// A program started as a sidecar.
    Program,
    /// A SQLite source compiled and loaded (`build-sqlite SRC`).
    Source,
    /// A loadable SQLite extension.
    Extension,
}

impl Becomes {
    /// What the refusal calls it.
    pub fn noun(self) -> &'static str {
        match self {
            Becomes::Library => "library",
            Becomes::Cast => "cast file (its sidecars are commands it starts)",
            Becomes::Program => "program",
            Becomes::Source => "source it compiles",
            Becomes::Extension => "extension",
        }
    }
}

/// Opens a file the user named whose content becomes code or commands (`what`): a regular
/// file, owned by this user or root (as root: by root), writable by neither its group nor
/// others, checked on the descriptor that is then read, hashed, loaded, compiled or executed
/// (through [`Checked::loader_path`]), so nothing can be swapped in after the check. Its
/// symbolic links are followed: the path is the user's choice, and the file it leads to is what
/// is checked. A FIFO does not block the open.
pub fn open_given(path: &Path, what: Becomes) -> Result<Checked, TrustError> {
    let io = |source| TrustError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
            .open(path)
            .map_err(io)?
    };
    let meta = file.metadata().map_err(io)?;
    if !meta.file_type().is_file() {
        return Err(io(io::Error::other("it is not a regular file")));
    }
    let me = Uid::effective();
    // Root trusts only root's files; another user, their own and root's.
    if meta.uid() != 0 && meta.uid() != me.0 {
        return Err(TrustError::GivenOwner {
            path: path.to_path_buf(),
            owner: Uid(meta.uid()),
            me,
            what,
        });
    }
    let mode = FileMode(meta.mode());
    if let Some(whom) = mode.writers() {
        return Err(TrustError::GivenWritable {
            path: path.to_path_buf(),
            whom,
            mode,
            what,
        });
    }
    // The reads go through the descriptor's offset-free `read_at`; a blocking descriptor for
    // them (O_NONBLOCK only kept a FIFO from blocking the open).
    // SAFETY: fcntl on an open descriptor with integer flags.
    unsafe {
        let fd = file.as_raw_fd();
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
    }
    Ok(Checked {
        file,
        path: path.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{chown, PermissionsExt};

    fn is_root() -> bool {
        Uid::effective().0 == 0
    }

    /// A cache `root/c` with `c/duckdb/1.0/lib.so` in it, all this user's and 0755/0644.
    fn cache() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("c");
        let dir = root.join("duckdb").join("1.0");
        std::fs::create_dir_all(&dir).unwrap();
        for d in [&root, &root.join("duckdb"), &dir] {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let lib = dir.join("lib.so");
        std::fs::write(&lib, b"abc").unwrap();
        std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o644)).unwrap();
        (t, root, lib)
    }

    fn chmod(p: &Path, mode: u32) {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_cache_of_ones_own_opens_and_hashes_from_the_descriptor() {
        let (_t, root, lib) = cache();
        let f = open_in_cache(&root, &lib).unwrap();
        // SHA-256 of "abc" (FIPS 180-2's example).
        assert_eq!(
            f.sha256_hex().unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(f.read_all().unwrap(), b"abc");
        // The descriptor is the file checked, whatever the name comes to mean afterwards.
        std::fs::rename(&lib, lib.with_extension("old")).unwrap();
        std::fs::write(&lib, b"planted").unwrap();
        assert_eq!(std::fs::read(f.loader_path()).unwrap(), b"abc");
        assert!(check_dir(&root, &root.join("duckdb")).is_ok());
    }

    #[test]
    fn writable_directories_and_files_are_refused_with_the_way_out() {
        let (_t, root, lib) = cache();
        chmod(&root, 0o777);
        let e = open_in_cache(&root, &lib).unwrap_err().to_string();
        let canonical = std::fs::canonicalize(&root).unwrap();
        assert!(
            e.contains(&format!(
                "{} is writable by its group and everyone (mode 0777)",
                canonical.display()
            )),
            "{e}"
        );
        assert!(
            e.contains("chmod -R go-w") && e.contains("LITEBENCH_CACHE") && !e.contains('\n'),
            "{e}"
        );
        // The sticky bit does not make the cache itself safe.
        chmod(&root, 0o1777);
        assert!(open_in_cache(&root, &lib).is_err());
        chmod(&root, 0o755);
        chmod(&lib, 0o664);
        let e = open_in_cache(&root, &lib).unwrap_err().to_string();
        assert!(e.contains("lib.so is writable by its group (mode 0664)"), "{e}");
        chmod(&lib, 0o644);
        chmod(lib.parent().unwrap(), 0o757);
        let e = check_dir(&root, lib.parent().unwrap()).unwrap_err().to_string();
        assert!(e.contains("1.0 is writable by everyone (mode 0757)"), "{e}");
    }

    #[test]
    fn an_ancestor_others_can_write_is_refused_unless_sticky() {
        let (t, root, lib) = cache();
        chmod(t.path(), 0o777);
        let e = open_in_cache(&root, &lib).unwrap_err().to_string();
        assert!(
            e.contains("above the cache") && e.contains("without the sticky bit (mode 0777)"),
            "{e}"
        );
        chmod(t.path(), 0o1777);
        assert!(
            open_in_cache(&root, &lib).is_ok(),
            "a sticky /tmp-like directory is fine"
        );
    }

    #[test]
    fn symbolic_links_and_other_kinds_in_the_cache_are_refused() {
        let (t, root, lib) = cache();
        let elsewhere = t.path().join("elsewhere.so");
        std::fs::write(&elsewhere, b"x").unwrap();
        std::fs::remove_file(&lib).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &lib).unwrap();
        let e = open_in_cache(&root, &lib).unwrap_err().to_string();
        assert!(e.contains("lib.so is a symbolic link in the cache"), "{e}");
        std::fs::remove_file(&lib).unwrap();
        rustix::fs::mkfifoat(rustix::fs::CWD, &lib, Mode::from_raw_mode(0o644)).unwrap();
        let e = open_in_cache(&root, &lib).unwrap_err().to_string();
        assert!(e.contains("is not a regular file"), "{e}");
        std::fs::remove_file(&lib).unwrap();
        assert!(open_in_cache(&root, &lib).unwrap_err().is_missing());
        assert!(open_in_cache(&root, &root.join("../x")).is_err());
        assert!(open_in_cache(&root, Path::new("/etc/passwd")).is_err());
    }

    /// As root: anything owned by another user is refused, in the cache and where given.
    #[test]
    fn files_of_another_user_are_refused_as_root() {
        if !is_root() {
            eprintln!("skipping: needs root to give files away");
            return;
        }
        let nobody = Some(65534);
        let (_t, root, lib) = cache();
        chown(&lib, nobody, None).unwrap();
        let e = open_in_cache(&root, &lib).unwrap_err().to_string();
        assert!(e.contains("lib.so is owned by uid 65534, not root"), "{e}");
        assert!(e.contains("run `chown -R root "), "{e}");
        let e = open_given(&lib, Becomes::Library).unwrap_err().to_string();
        assert!(
            e.contains("is owned by uid 65534, not root: root runs no library another user can change"),
            "{e}"
        );
        let e = open_given(&lib, Becomes::Cast).unwrap_err().to_string();
        assert!(e.contains("root runs no cast file"), "{e}");
        chown(&lib, Some(0), None).unwrap();
        chown(&root, nobody, None).unwrap();
        let e = check_dir(&root, &root).unwrap_err().to_string();
        assert!(e.contains("is owned by uid 65534, not root"), "{e}");
        chown(&root, Some(0), None).unwrap();
        chown(root.parent().unwrap(), nobody, None).unwrap();
        let e = check_dir(&root, &root).unwrap_err().to_string();
        assert!(
            e.contains("above the cache") && e.contains("is owned by uid 65534"),
            "{e}"
        );
        chown(root.parent().unwrap(), Some(0), None).unwrap();
        assert!(open_given(&lib, Becomes::Program).is_ok());
        chmod(&lib, 0o646);
        let e = open_given(&lib, Becomes::Program).unwrap_err().to_string();
        assert!(
            e.contains("is writable by everyone (mode 0646): litebench runs no program"),
            "{e}"
        );
        chmod(&lib, 0o664);
        let e = open_given(&lib, Becomes::Source).unwrap_err().to_string();
        assert!(e.contains("is writable by its group (mode 0664)"), "{e}");
    }
}
