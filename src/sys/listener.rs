//! Whether a process is the one listening on a TCP port: the listening sockets on the port
//! from `/proc/net/tcp` and `/proc/net/tcp6`, matched against the process's descriptors.
//!
//! A throwaway server's port is free when litebench draws it, but while the server starts, or
//! is stopped for a cold trial, another program may take it, and a client that connects then
//! reaches that program: another PostgreSQL accepts the same user, a program that never answers
//! hangs the handshake. Before connecting, litebench checks that the socket listening on the
//! port is its own server's.

use std::fs;

/// `st` of a listening socket in `/proc/net/tcp`.
const LISTEN: &str = "0A";

/// The inodes of the sockets listening on `port` (any address) in this network namespace.
pub fn listening_inodes(port: u16) -> Vec<u64> {
    let mut out = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = fs::read_to_string(table) else {
            continue;
        };
        out.extend(text.lines().skip(1).filter_map(|l| listening_inode(l, port)));
    }
    out
}

/// A row's inode when it is a socket listening on `port`.
fn listening_inode(row: &str, port: u16) -> Option<u64> {
    let f: Vec<&str> = row.split_whitespace().collect();
    let local_port = u16::from_str_radix(f.get(1)?.rsplit_once(':')?.1, 16).ok()?;
    (local_port == port && *f.get(3)? == LISTEN).then_some(())?;
    f.get(9)?.parse().ok()
}

/// Whether process `pid` holds one of the sockets `inodes` among its descriptors.
pub fn holds_socket(pid: u32, inodes: &[u64]) -> bool {
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(Result::ok).any(|fd| {
        fs::read_link(fd.path()).is_ok_and(|target| {
            let t = target.to_string_lossy();
            t.strip_prefix("socket:[")
                .and_then(|r| r.strip_suffix(']'))
                .and_then(|n| n.parse::<u64>().ok())
                .is_some_and(|inode| inodes.contains(&inode))
        })
    })
}

/// Whether process `pid` is listening on `port`.
pub fn listens(pid: u32, port: u16) -> bool {
    let inodes = listening_inodes(port);
    !inodes.is_empty() && holds_socket(pid, &inodes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn a_row_gives_its_inode_only_when_listening_on_the_port() {
        let listen = "   1: 0100007F:A1B2 00000000:0000 0A 00000000:00000000 00:00000000 00000000   108        0 424242 1 0000000000000000 100 0 0 10 0";
        let connected = "   2: 0100007F:A1B2 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 434343 1 0000000000000000 20 4 30 10 -1";
        assert_eq!(listening_inode(listen, 0xA1B2), Some(424242));
        assert_eq!(listening_inode(listen, 0xA1B3), None);
        assert_eq!(listening_inode(connected, 0xA1B2), None);
        assert_eq!(listening_inode("garbage", 1), None);
    }

    #[test]
    fn this_process_listens_where_it_bound_and_nowhere_else() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert!(listens(std::process::id(), port));
        // PID 1 is not this test.
        assert!(!listens(1, port));
        drop(l);
        assert!(!listens(std::process::id(), port));
    }
}
