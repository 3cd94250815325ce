//! A look at a shared library's ELF headers before the dynamic loader maps it.
//!
//! `dlopen` trusts the file: a library cut short (an interrupted copy or download) is mapped
//! past its end, and the first touch of the missing part kills the process with SIGBUS instead
//! of returning an error. Checking that the headers and every loadable segment lie inside the
//! file turns that into a one-line error naming what is wrong. It reads only the headers.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// `e_machine` of the architecture litebench runs on (`None`: not checked).
const MACHINE: Option<u16> = if cfg!(target_arch = "x86_64") {
    Some(62)
} else if cfg!(target_arch = "aarch64") {
    Some(183)
} else {
    None
};

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Checks that `path` is a whole 64-bit little-endian ELF shared object for this machine;
/// `Err` says what is wrong, in a few words.
pub fn check_shared_object(path: &Path) -> Result<(), String> {
    let mut f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let len = f.metadata().map_err(|e| e.to_string())?.len();
    let mut head = [0u8; 64];
    let n = f.read(&mut head).map_err(|e| e.to_string())?;
    if n < 4 || head[..4] != *b"\x7fELF" {
        return Err("not an ELF shared library".into());
    }
    if n < 64 {
        return Err(format!("truncated: {len} bytes, shorter than an ELF header"));
    }
    if head[4] != 2 || head[5] != 1 {
        return Err("not a 64-bit little-endian ELF file".into());
    }
    if u16_at(&head, 16) != 3 {
        return Err("an ELF file, but not a shared library".into());
    }
    if let Some(m) = MACHINE {
        if u16_at(&head, 18) != m {
            return Err(format!(
                "a shared library for another machine (ELF machine {})",
                u16_at(&head, 18)
            ));
        }
    }
    let (phoff, phentsize, phnum) = (
        u64_at(&head, 32),
        u64::from(u16_at(&head, 54)),
        u64::from(u16_at(&head, 56)),
    );
    let table_end = phoff.saturating_add(phentsize.saturating_mul(phnum));
    if phentsize < 56 || table_end > len {
        return Err(format!(
            "truncated: {len} bytes, its program headers end at byte {table_end}"
        ));
    }
    let mut table = vec![0u8; (table_end - phoff) as usize];
    f.seek(SeekFrom::Start(phoff)).map_err(|e| e.to_string())?;
    f.read_exact(&mut table).map_err(|e| e.to_string())?;
    for entry in table.chunks_exact(phentsize as usize) {
        // PT_LOAD: mapped from the file.
        if u32_at(entry, 0) == 1 {
            let end = u64_at(entry, 8).saturating_add(u64_at(entry, 32));
            if end > len {
                return Err(format!(
                    "truncated: {len} bytes, but a segment to load ends at byte {end}"
                ));
            }
        }
    }
    Ok(())
}

/// The size in bytes of the `.text` section of the 64-bit little-endian ELF file `path`; `Err`
/// says in a few words why it has none (not ELF, cut short, no section headers, no `.text`).
pub fn text_size(path: &Path) -> Result<u64, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    text_size_of(&bytes)
}

/// [`text_size`] of an ELF file's bytes.
pub fn text_size_of(b: &[u8]) -> Result<u64, String> {
    if b.len() < 64 || b[..4] != *b"\x7fELF" {
        return Err("not an ELF file".into());
    }
    if b[4] != 2 || b[5] != 1 {
        return Err("not a 64-bit little-endian ELF file".into());
    }
    let (shoff, shentsize, shnum, shstrndx) = (
        u64_at(b, 0x28),
        usize::from(u16_at(b, 0x3a)),
        usize::from(u16_at(b, 0x3c)),
        usize::from(u16_at(b, 0x3e)),
    );
    let header = |i: usize| -> Option<&[u8]> {
        let at = usize::try_from(shoff).ok()?.checked_add(i.checked_mul(shentsize)?)?;
        b.get(at..at.checked_add(64)?)
    };
    if shnum == 0 || shentsize < 64 || header(shnum - 1).is_none() {
        return Err("no section headers (stripped of them, or cut short)".into());
    }
    let strtab = header(shstrndx).ok_or("no section names")?;
    let names = usize::try_from(u64_at(strtab, 24)).map_err(|e| e.to_string())?;
    for i in 0..shnum {
        let h = header(i).expect("checked above");
        let name = names.checked_add(u32_at(h, 0) as usize).and_then(|at| b.get(at..));
        if name.is_some_and(|n| n.starts_with(b".text\0")) {
            return Ok(u64_at(h, 32));
        }
    }
    Err("no .text section".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_libraries_pass_and_cut_ones_do_not() {
        let zlib = Path::new("/usr/lib/x86_64-linux-gnu/libz.so.1");
        if !zlib.exists() || MACHINE != Some(62) {
            return;
        }
        assert_eq!(check_shared_object(zlib), Ok(()));
        let t = tempfile::tempdir().unwrap();
        let bytes = std::fs::read(zlib).unwrap();
        let cut = t.path().join("cut.so");
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        let e = check_shared_object(&cut).unwrap_err();
        assert!(e.starts_with("truncated: "), "{e}");
        std::fs::write(&cut, &bytes[..40]).unwrap();
        assert!(check_shared_object(&cut)
            .unwrap_err()
            .contains("shorter than an ELF header"));
        std::fs::write(&cut, "text\n").unwrap();
        assert_eq!(check_shared_object(&cut).unwrap_err(), "not an ELF shared library");
        // An executable is not a shared library... unless it is position-independent (ET_DYN
        // too), which the loader refuses by itself.
    }

    /// `.text`'s size as `readelf -S` prints it (hex), where binutils is installed.
    fn readelf_text(path: &Path) -> Option<u64> {
        let out = std::process::Command::new("readelf")
            .args(["-S", "-W"])
            .arg(path)
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text.lines().find(|l| l.contains(" .text "))?;
        // `[14] .text PROGBITS 0000000000002010 002010 00b8a2 00 AX 0 0 16`: the size follows
        // the address and offset.
        let after = line.split(" .text ").nth(1)?;
        let fields: Vec<&str> = after.split_whitespace().collect();
        u64::from_str_radix(fields.get(3)?, 16).ok()
    }

    #[test]
    fn text_size_is_readelfs() {
        let libc = Path::new("/usr/lib/x86_64-linux-gnu/libc.so.6");
        if !libc.exists() || MACHINE != Some(62) {
            return;
        }
        let expected = readelf_text(libc).expect("readelf -S (binutils) reads libc's .text");
        assert!(expected > 0);
        assert_eq!(text_size(libc), Ok(expected));
        // What has no .text says so in words.
        let t = tempfile::tempdir().unwrap();
        let cut = t.path().join("cut.so");
        let bytes = std::fs::read(libc).unwrap();
        std::fs::write(&cut, &bytes[..4096]).unwrap();
        assert!(text_size(&cut).unwrap_err().starts_with("no section headers"));
        std::fs::write(&cut, "text\n").unwrap();
        assert_eq!(text_size(&cut).unwrap_err(), "not an ELF file");
    }
}
