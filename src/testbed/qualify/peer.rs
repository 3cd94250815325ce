//! The second process of `qualify`: locks, mappings and SQLite transactions seen from another
//! process, which is the only place they can be seen from.
//!
//! A POSIX lock never conflicts with its own process, and a mapping always agrees with itself,
//! so each probe asks `litebench qualify-peer`, started once per qualification, to do the same
//! thing on the same file. The two talk in lines: a request is words separated by tabs on the
//! peer's standard input, the answer one line on its standard output. The peer keeps what it
//! opened (locked files, mappings, SQLite connections) until `release`, so that a lock it was
//! granted stays held and a connection keeps its view of the `-shm` index between requests; it
//! exits at the end of its input, when the parent is gone. This file is the parent's side;
//! [`super::serve`] the peer's.

use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// The peer's subcommand name.
pub const SUBCOMMAND: &str = "qualify-peer";

/// Why the second process could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum PeerError {
    #[error("cannot start a second litebench process ({program}): {source}")]
    Start { program: String, source: io::Error },
    #[error("the second litebench process stopped answering ({0})")]
    Gone(String),
}

/// The parent's side: the started peer.
pub struct Peer {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Peer {
    /// Starts `program qualify-peer` (`program`: this litebench's executable).
    pub fn start(program: &Path) -> Result<Peer, PeerError> {
        let mut child = Command::new(program)
            .arg(SUBCOMMAND)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|source| PeerError::Start {
                program: program.display().to_string(),
                source,
            })?;
        let input = child.stdin.take().expect("piped");
        let output = BufReader::new(child.stdout.take().expect("piped"));
        Ok(Peer { child, input, output })
    }

    /// Sends one request and returns the answer line.
    pub fn ask(&mut self, words: &[&str]) -> Result<String, PeerError> {
        self.send(words)?;
        self.answer(words)
    }

    /// Sends one request without waiting for its answer ([`Peer::answer`]): for what this
    /// process does while the peer works (renames while it reads).
    pub fn send(&mut self, words: &[&str]) -> Result<(), PeerError> {
        let gone = |e: io::Error| PeerError::Gone(e.to_string());
        writeln!(self.input, "{}", words.join("\t")).map_err(gone)?;
        self.input.flush().map_err(gone)
    }

    /// The answer to the request `words` sent last.
    pub fn answer(&mut self, words: &[&str]) -> Result<String, PeerError> {
        let mut line = String::new();
        let read = self
            .output
            .read_line(&mut line)
            .map_err(|e| PeerError::Gone(e.to_string()))?;
        if read == 0 {
            return Err(PeerError::Gone(format!("no answer to `{}`", words.join(" "))));
        }
        Ok(line.trim_end().to_string())
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        // Closing its input ends it; kill it anyway should it be stuck in a lock wait.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
