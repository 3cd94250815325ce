//! `/proc/self/mountinfo` parsing: which filesystem a directory lives on, how
//! it is mounted, and which device backs it. The same SQLite workload is a
//! different experiment on ext4 `data=journal`, on tmpfs and on an overlay,
//! so the mount is recorded under every number.
//!
//! Format (proc(5)), one mount per line:
//! `36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue`
//! — id, parent id, major:minor, root, mount point, mount options, zero or
//! more optional fields, a lone `-`, fs type, source, superblock options.
//! Paths escape space, tab, newline and backslash as `\ooo` octal.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

/// One parsed mountinfo line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MountEntry {
    pub major: u32,
    pub minor: u32,
    pub mount_point: PathBuf,
    pub mount_options: String,
    pub fs_type: String,
    pub source: String,
    pub super_options: String,
}

/// All well-formed lines of mountinfo text, in file order; malformed lines
/// are skipped.
pub(crate) fn parse_mountinfo(text: &str) -> Vec<MountEntry> {
    text.lines().filter_map(parse_line).collect()
}

/// One mountinfo line, or `None` if it is malformed.
pub(crate) fn parse_line(line: &str) -> Option<MountEntry> {
    // Split on single spaces: escaped fields never contain one, and an empty
    // source field must stay a field.
    let fields: Vec<&str> = line.trim_end_matches(['\n', '\r']).split(' ').collect();
    let sep = fields.iter().skip(6).position(|f| *f == "-")? + 6;
    let (major, minor) = fields[2].split_once(':')?;
    let after = &fields[sep + 1..];
    if after.len() < 2 || fields[4].is_empty() {
        return None;
    }
    Some(MountEntry {
        major: major.parse().ok()?,
        minor: minor.parse().ok()?,
        mount_point: PathBuf::from(OsString::from_vec(unescape(fields[4]))),
        mount_options: fields[5].to_owned(),
        fs_type: String::from_utf8_lossy(&unescape(after[0])).into_owned(),
        source: String::from_utf8_lossy(&unescape(after[1])).into_owned(),
        super_options: after.get(2).map(|s| (*s).to_owned()).unwrap_or_default(),
    })
}

/// Decodes the kernel's `\ooo` octal escapes; anything else is kept verbatim.
pub(crate) fn unescape(field: &str) -> Vec<u8> {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            if let Some(byte) = b.get(i + 1..i + 4).and_then(octal_byte) {
                out.push(byte);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

/// Three octal digits as one byte (`None` if not octal or above `\377`).
fn octal_byte(digits: &[u8]) -> Option<u8> {
    digits.iter().try_fold(0u8, |acc, &c| {
        if (b'0'..=b'7').contains(&c) {
            acc.checked_mul(8)?.checked_add(c - b'0')
        } else {
            None
        }
    })
}

/// The mount `dir` lives on: the longest mount point that is a
/// path-component prefix of `dir` (`/mnt/data` does not contain
/// `/mnt/database`). On ties the later line wins, because it is mounted on
/// top of the earlier one.
pub(crate) fn mount_for<'a>(mounts: &'a [MountEntry], dir: &Path) -> Option<&'a MountEntry> {
    let mut best: Option<(&MountEntry, usize)> = None;
    for m in mounts {
        if !dir.starts_with(&m.mount_point) {
            continue;
        }
        let depth = m.mount_point.components().count();
        if best.is_none_or(|(_, d)| depth >= d) {
            best = Some((m, depth));
        }
    }
    best.map(|(m, _)| m)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = "\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard,data=ordered
25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684084k
30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=100k
40 27 8:17 / /mnt/data rw,noatime shared:5 master:2 propagate_from:3 - xfs /dev/sdb1 rw,attr2,inode64
41 27 7:3 /sub /mnt/my\\040disk rw - ext4 /dev/loop3 rw,data=journal
42 27 0:50 / /var/lib/docker/overlay2/x/merged rw,relatime - overlay overlay rw,lowerdir=/a,upperdir=/b,workdir=/c
";

    #[test]
    fn parses_plain_line() {
        let m = parse_line("22 27 0:21 / /proc rw,relatime - proc proc rw").unwrap();
        assert_eq!(m.major, 0);
        assert_eq!(m.minor, 21);
        assert_eq!(m.mount_point, PathBuf::from("/proc"));
        assert_eq!(m.mount_options, "rw,relatime");
        assert_eq!(m.fs_type, "proc");
        assert_eq!(m.source, "proc");
        assert_eq!(m.super_options, "rw");
    }

    #[test]
    fn parses_optional_fields_before_separator() {
        let all = parse_mountinfo(FIXTURE);
        assert_eq!(all.len(), 7);
        let data = &all[4];
        assert_eq!((data.major, data.minor), (8, 17));
        assert_eq!(data.mount_point, PathBuf::from("/mnt/data"));
        assert_eq!(data.mount_options, "rw,noatime");
        assert_eq!(data.fs_type, "xfs");
        assert_eq!(data.source, "/dev/sdb1");
        assert_eq!(data.super_options, "rw,attr2,inode64");
        assert_eq!(all[1].super_options, "rw,discard,data=ordered");
    }

    #[test]
    fn decodes_octal_escapes() {
        let all = parse_mountinfo(FIXTURE);
        assert_eq!(all[5].mount_point, PathBuf::from("/mnt/my disk"));
        assert_eq!(unescape(r"a\040b\011c\012d\134e"), b"a b\tc\nd\\e");
        // Not an escape: too short, non-octal digits, or out of byte range.
        assert_eq!(unescape(r"x\04"), br"x\04");
        assert_eq!(unescape(r"x\089"), br"x\089");
        assert_eq!(unescape(r"x\777"), br"x\777");
        assert_eq!(unescape("\\"), b"\\");
    }

    #[test]
    fn empty_source_is_kept_as_a_field() {
        let m = parse_line("50 1 0:60 / /mnt/e rw - fuse.x  rw,user_id=0").unwrap();
        assert_eq!(m.fs_type, "fuse.x");
        assert_eq!(m.source, "");
        assert_eq!(m.super_options, "rw,user_id=0");
    }

    #[test]
    fn malformed_lines_are_skipped() {
        assert_eq!(parse_line(""), None);
        assert_eq!(parse_line("22 27 0:21 / /proc rw,relatime proc proc rw"), None);
        assert_eq!(parse_line("22 27 021 / /proc rw - proc proc rw"), None);
        assert_eq!(parse_line("22 27 0:21 / /proc rw -"), None);
        assert_eq!(parse_line("22 27 x:21 / /proc rw - proc proc rw"), None);
        let all = parse_mountinfo("garbage\n22 27 0:21 / /proc rw - proc proc rw\n");
        assert_eq!(all.len(), 1);
    }

    #[test]
    fn longest_component_prefix_wins() {
        let all = parse_mountinfo(FIXTURE);
        let at = |p: &str| mount_for(&all, Path::new(p)).map(|m| m.mount_point.clone());
        assert_eq!(at("/mnt/data/db"), Some(PathBuf::from("/mnt/data")));
        assert_eq!(at("/mnt/data"), Some(PathBuf::from("/mnt/data")));
        // Same string prefix, different component: belongs to /.
        assert_eq!(at("/mnt/database"), Some(PathBuf::from("/")));
        assert_eq!(at("/mnt/my disk/x"), Some(PathBuf::from("/mnt/my disk")));
        assert_eq!(at("/"), Some(PathBuf::from("/")));
        assert_eq!(at("/procfoo"), Some(PathBuf::from("/")));
    }

    #[test]
    fn later_mount_on_same_point_wins() {
        let all = parse_mountinfo(FIXTURE);
        let m = mount_for(&all, Path::new("/dev/shm/x")).unwrap();
        assert_eq!(m.minor, 27);
        assert_eq!(m.super_options, "rw,size=100k");
    }

    #[test]
    fn no_mounts_means_none() {
        assert_eq!(mount_for(&[], Path::new("/")), None);
    }
}
