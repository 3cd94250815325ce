//! A blocking PostgreSQL client over `postgres-protocol`'s message encoding: one socket
//! (TCP with `TCP_NODELAY`, or a Unix socket), one reused write buffer and one read buffer, and
//! no runtime. The `postgres` crate runs a tokio runtime under every call (its channel, wakers and
//! framing cost litebench about twice pgbench's client CPU per transaction, docs/servers.md);
//! this client writes a statement's Bind/Execute/Sync in one `write` and reads the answer in
//! the same thread, as pgbench does.
//!
//! What it speaks: startup with trust, cleartext password, md5 or SCRAM-SHA-256 (no TLS, as the
//! `postgres` crate was used before: `NoTls`); the extended protocol for prepared statements
//! (Parse/Describe once, Bind/Execute/Sync per call, parameters and results in the binary
//! format); the simple protocol for batches and text queries; `COPY ... FROM STDIN`; the cancel
//! request. URLs are still parsed by `postgres::Config`.

use bytes::BytesMut;
use fallible_iterator::FallibleIterator;
use postgres::config::Host;
use postgres::Config;
use postgres_protocol::authentication::sasl::{ChannelBinding, ScramSha256, SCRAM_SHA_256};
use postgres_protocol::message::{backend::Message, frontend};
use postgres_protocol::Oid;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// What a call to the server can end in besides success.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// The server's `ErrorResponse`.
    #[error("{}", .0.message)]
    Db(Box<DbError>),
    /// The socket failed or closed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The server sent what the protocol does not allow here, or asked for what this client
    /// does not speak.
    #[error("{0}")]
    Protocol(String),
}

/// An `ErrorResponse`'s fields that litebench reports.
#[derive(Debug, Clone, Default)]
pub struct DbError {
    pub code: String,
    pub message: String,
    pub detail: Option<String>,
}

impl WireError {
    /// The socket is gone (as `postgres::Error::is_closed`).
    pub fn is_closed(&self) -> bool {
        matches!(self, WireError::Io(_))
    }

    pub fn as_db_error(&self) -> Option<&DbError> {
        match self {
            WireError::Db(d) => Some(d),
            _ => None,
        }
    }
}

fn protocol(what: impl Into<String>) -> WireError {
    WireError::Protocol(what.into())
}

enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            Stream::Tcp(s) => s.write_all(buf),
            Stream::Unix(s) => s.write_all(buf),
        }
    }

    fn set_read_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_read_timeout(t),
            Stream::Unix(s) => s.set_read_timeout(t),
        }
    }
}

/// Where a connection goes, kept for the cancel request.
#[derive(Debug, Clone)]
enum Addr {
    Tcp(String, u16),
    Unix(std::path::PathBuf),
}

fn open(addr: &Addr, timeout: Option<Duration>) -> std::io::Result<Stream> {
    match addr {
        Addr::Tcp(host, port) => {
            use std::net::ToSocketAddrs;
            let mut last = None;
            for a in (host.as_str(), *port).to_socket_addrs()? {
                let s = match timeout {
                    Some(t) => TcpStream::connect_timeout(&a, t),
                    None => TcpStream::connect(a),
                };
                match s {
                    Ok(s) => {
                        s.set_nodelay(true)?;
                        return Ok(Stream::Tcp(s));
                    }
                    Err(e) => last = Some(e),
                }
            }
            Err(last.unwrap_or_else(|| std::io::Error::other(format!("{host} resolves to no address"))))
        }
        Addr::Unix(path) => Ok(Stream::Unix(UnixStream::connect(path)?)),
    }
}

/// The answer to a `Describe` of a prepared statement.
pub struct Prepared {
    name: String,
    pub params: Vec<Oid>,
    pub columns: Vec<Oid>,
    /// The result columns' names, as the RowDescription gives them.
    pub names: Vec<String>,
}

/// A cancel request's destination and key, to send from another thread.
#[derive(Clone)]
pub struct CancelKey {
    addr: Addr,
    process_id: i32,
    secret: i32,
}

impl CancelKey {
    pub fn cancel(&self) -> Result<(), WireError> {
        let mut stream = open(&self.addr, Some(Duration::from_secs(5)))?;
        let mut buf = BytesMut::new();
        frontend::cancel_request(self.process_id, self.secret, &mut buf);
        stream.write_all(&buf)?;
        // The server closes the connection once it has read the request.
        let _ = stream.read(&mut [0u8; 1]);
        Ok(())
    }
}

/// One blocking connection.
pub struct WireConn {
    stream: Stream,
    out: BytesMut,
    /// Bytes read and not yet parsed into messages.
    input: BytesMut,
    /// What each `read` fills before it is appended to `input`.
    chunk: Box<[u8]>,
    cancel: CancelKey,
    prepared: usize,
}

/// A result row: the `DataRow` body and each value's range in it (binary or text format, as
/// asked), NULL as `None`.
pub type RowValues<'a> = &'a mut dyn FnMut(&[u8], &[Option<std::ops::Range<usize>>]) -> Result<(), WireError>;

impl WireConn {
    /// Connects as `config` says (its first host, port, user, password, database, application
    /// name, connect timeout).
    pub fn connect(config: &Config) -> Result<WireConn, WireError> {
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let addr = match config.get_hosts().first() {
            None => Addr::Tcp("localhost".into(), port),
            Some(Host::Tcp(h)) => Addr::Tcp(h.clone(), port),
            Some(Host::Unix(dir)) => Addr::Unix(dir.join(format!(".s.PGSQL.{port}"))),
        };
        let timeout = config.get_connect_timeout().copied();
        let stream = open(&addr, timeout)?;
        // As libpq's connect_timeout: the whole start, not only the TCP connect, so that a
        // program that accepts on the port but never answers is given up on.
        stream.set_read_timeout(timeout)?;
        let mut conn = WireConn {
            stream,
            out: BytesMut::with_capacity(1024),
            input: BytesMut::with_capacity(16 * 1024),
            chunk: vec![0; 16 * 1024].into_boxed_slice(),
            cancel: CancelKey {
                addr,
                process_id: 0,
                secret: 0,
            },
            prepared: 0,
        };
        conn.startup(config)?;
        conn.stream.set_read_timeout(None)?;
        Ok(conn)
    }

    fn startup(&mut self, config: &Config) -> Result<(), WireError> {
        let user = config.get_user().ok_or_else(|| protocol("no user given"))?.to_string();
        let mut params: Vec<(&str, &str)> = vec![("user", &user), ("client_encoding", "UTF8")];
        if let Some(db) = config.get_dbname() {
            params.push(("database", db));
        }
        if let Some(app) = config.get_application_name() {
            params.push(("application_name", app));
        }
        if let Some(opts) = config.get_options() {
            params.push(("options", opts));
        }
        frontend::startup_message(params.iter().copied(), &mut self.out)?;
        self.flush()?;
        let password = config.get_password();
        let need = || protocol("the server asks for a password and the URL gives none");
        let mut scram: Option<ScramSha256> = None;
        loop {
            match self.next()? {
                Message::AuthenticationOk => break,
                Message::AuthenticationCleartextPassword => {
                    frontend::password_message(password.ok_or_else(need)?, &mut self.out)?;
                    self.flush()?;
                }
                Message::AuthenticationMd5Password(body) => {
                    let hash = postgres_protocol::authentication::md5_hash(
                        user.as_bytes(),
                        password.ok_or_else(need)?,
                        body.salt(),
                    );
                    frontend::password_message(hash.as_bytes(), &mut self.out)?;
                    self.flush()?;
                }
                Message::AuthenticationSasl(body) => {
                    let mut mechanisms = body.mechanisms();
                    let mut scram_offered = false;
                    while let Some(m) = mechanisms.next()? {
                        scram_offered |= m == SCRAM_SHA_256;
                    }
                    if !scram_offered {
                        return Err(protocol(
                            "the server offers no SASL mechanism this client speaks (SCRAM-SHA-256)",
                        ));
                    }
                    let s = ScramSha256::new(password.ok_or_else(need)?, ChannelBinding::unsupported());
                    frontend::sasl_initial_response(SCRAM_SHA_256, s.message(), &mut self.out)?;
                    self.flush()?;
                    scram = Some(s);
                }
                Message::AuthenticationSaslContinue(body) => {
                    let s = scram
                        .as_mut()
                        .ok_or_else(|| protocol("SASL continue without a start"))?;
                    s.update(body.data())?;
                    frontend::sasl_response(s.message(), &mut self.out)?;
                    self.flush()?;
                }
                Message::AuthenticationSaslFinal(body) => {
                    scram
                        .as_mut()
                        .ok_or_else(|| protocol("SASL final without a start"))?
                        .finish(body.data())?;
                }
                Message::ErrorResponse(body) => return Err(db_error(body)),
                _ => {
                    return Err(protocol(
                        "the server asks for an authentication this client does not speak (Kerberos, GSS, SSPI)",
                    ))
                }
            }
        }
        loop {
            match self.next()? {
                Message::BackendKeyData(k) => {
                    self.cancel.process_id = k.process_id();
                    self.cancel.secret = k.secret_key();
                }
                Message::ReadyForQuery(_) => return Ok(()),
                Message::ErrorResponse(body) => return Err(db_error(body)),
                _ => {}
            }
        }
    }

    pub fn cancel_key(&self) -> CancelKey {
        self.cancel.clone()
    }

    fn flush(&mut self) -> Result<(), WireError> {
        let r = self.stream.write_all(&self.out);
        self.out.clear();
        Ok(r?)
    }

    /// The next backend message (notices and parameter changes skipped).
    fn next(&mut self) -> Result<Message, WireError> {
        loop {
            if let Some(m) = Message::parse(&mut self.input)? {
                match m {
                    Message::NoticeResponse(_) | Message::ParameterStatus(_) | Message::NotificationResponse(_) => {
                        continue
                    }
                    m => return Ok(m),
                }
            }
            let n = self.stream.read(&mut self.chunk)?;
            self.input.extend_from_slice(&self.chunk[..n]);
            if n == 0 {
                return Err(WireError::Io(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the server closed the connection",
                )));
            }
        }
    }

    /// Reads up to `ReadyForQuery` after `first` went wrong, and returns it (or the socket's
    /// error, if reading fails).
    fn finish(&mut self, first: WireError) -> WireError {
        loop {
            match self.next() {
                Ok(Message::ReadyForQuery(_)) => return first,
                Ok(_) => {}
                Err(e) => return e,
            }
        }
    }

    /// Parse and Describe, once per statement text; `types` declares the first parameters'
    /// types (0: the server infers it), the rest are inferred.
    pub fn prepare(&mut self, sql: &str, types: &[u32]) -> Result<Prepared, WireError> {
        let name = format!("s{}", self.prepared);
        self.prepared += 1;
        frontend::parse(&name, sql, types.iter().copied(), &mut self.out)?;
        frontend::describe(b'S', &name, &mut self.out)?;
        frontend::sync(&mut self.out);
        self.flush()?;
        let mut params = Vec::new();
        let mut columns = Vec::new();
        let mut names = Vec::new();
        loop {
            match self.next()? {
                Message::ParseComplete | Message::NoData => {}
                Message::ParameterDescription(body) => params = body.parameters().collect()?,
                Message::RowDescription(body) => {
                    columns = body.fields().map(|f| Ok(f.type_oid())).collect()?;
                    names = body.fields().map(|f| Ok(f.name().to_string())).collect()?;
                }
                Message::ErrorResponse(body) => {
                    let e = db_error(body);
                    return Err(self.finish(e));
                }
                Message::ReadyForQuery(_) => break,
                _ => return Err(protocol("unexpected message while preparing")),
            }
        }
        Ok(Prepared {
            name,
            params,
            columns,
            names,
        })
    }

    /// Bind/Execute/Sync in one write, the values written by `bind` (true for NULL); each row's
    /// values (binary format) go to `row`. Returns
    /// the command tag's row count.
    pub fn execute<T>(
        &mut self,
        stmt: &Prepared,
        values: impl IntoIterator<Item = T>,
        mut bind: impl FnMut(T, &mut BytesMut) -> Result<bool, Box<dyn std::error::Error + Sync + Send>>,
        row: RowValues<'_>,
    ) -> Result<u64, WireError> {
        let mut index = 0;
        let r = frontend::bind(
            "",
            &stmt.name,
            std::iter::once(1),
            values,
            |v, buf| {
                index += 1;
                Ok(if bind(v, buf)? {
                    postgres_protocol::IsNull::Yes
                } else {
                    postgres_protocol::IsNull::No
                })
            },
            std::iter::once(1),
            &mut self.out,
        );
        if let Err(e) = r {
            self.out.clear();
            return Err(match e {
                frontend::BindError::Conversion(e) => {
                    protocol(format!("error serializing parameter {}: {e}", index - 1))
                }
                frontend::BindError::Serialization(e) => WireError::Io(e),
            });
        }
        frontend::execute("", 0, &mut self.out)?;
        frontend::sync(&mut self.out);
        self.flush()?;
        self.results(row)
    }

    /// Reads one statement's answer up to `ReadyForQuery`.
    fn results(&mut self, row: RowValues<'_>) -> Result<u64, WireError> {
        let mut count = 0;
        let mut first: Option<WireError> = None;
        let mut cells: Vec<Option<std::ops::Range<usize>>> = Vec::new();
        loop {
            match self.next()? {
                Message::BindComplete | Message::RowDescription(_) | Message::EmptyQueryResponse => {}
                Message::DataRow(body) => {
                    if first.is_some() {
                        continue;
                    }
                    cells.clear();
                    let mut ranges = body.ranges();
                    while let Some(r) = ranges.next()? {
                        cells.push(r);
                    }
                    if let Err(e) = row(body.buffer(), &cells) {
                        first = Some(e);
                    }
                }
                Message::CommandComplete(body) => {
                    let tag = body.tag()?;
                    count = tag.rsplit(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0);
                }
                Message::ErrorResponse(body) => {
                    first.get_or_insert(db_error(body));
                }
                Message::ReadyForQuery(_) => return first.map_or(Ok(count), Err),
                Message::CopyInResponse(_) => {
                    frontend::copy_fail("COPY FROM STDIN is not allowed here", &mut self.out)?;
                    self.flush()?;
                }
                _ => {}
            }
        }
    }

    /// A simple-protocol query: every statement of `sql`, rows in the text format.
    pub fn simple(&mut self, sql: &str, row: RowValues<'_>) -> Result<(), WireError> {
        frontend::query(sql, &mut self.out)?;
        self.flush()?;
        self.results(row).map(|_| ())
    }

    /// `COPY ... FROM STDIN`: starts it; [`WireConn::copy_data`] and then
    /// [`WireConn::copy_finish`] follow.
    pub fn copy_start(&mut self, sql: &str) -> Result<(), WireError> {
        frontend::query(sql, &mut self.out)?;
        self.flush()?;
        loop {
            match self.next()? {
                Message::CopyInResponse(_) => return Ok(()),
                Message::ErrorResponse(body) => {
                    let e = db_error(body);
                    return Err(self.finish(e));
                }
                _ => {}
            }
        }
    }

    /// Appends COPY data; sent in 64 KiB messages.
    pub fn copy_data(&mut self, data: &[u8], pending: &mut Vec<u8>) -> Result<(), WireError> {
        pending.extend_from_slice(data);
        if pending.len() >= 64 * 1024 {
            self.copy_send(pending)?;
        }
        Ok(())
    }

    fn copy_send(&mut self, pending: &mut Vec<u8>) -> Result<(), WireError> {
        if !pending.is_empty() {
            frontend::CopyData::new(&pending[..])?.write(&mut self.out);
            pending.clear();
            self.flush()?;
        }
        Ok(())
    }

    /// Abandons a COPY with `CopyFail`, leaving the connection usable.
    pub fn copy_fail(&mut self, why: &str) -> Result<(), WireError> {
        frontend::copy_fail(why, &mut self.out)?;
        self.flush()?;
        self.results(&mut |_, _| Ok(())).map(|_| ())
    }

    /// Sends what is left and `CopyDone`; the rows the server copied.
    pub fn copy_finish(&mut self, pending: &mut Vec<u8>) -> Result<u64, WireError> {
        self.copy_send(pending)?;
        frontend::copy_done(&mut self.out);
        self.flush()?;
        self.results(&mut |_, _| Ok(()))
    }
}

impl Drop for WireConn {
    fn drop(&mut self) {
        frontend::terminate(&mut self.out);
        let _ = self.flush();
    }
}

fn db_error(body: postgres_protocol::message::backend::ErrorResponseBody) -> WireError {
    let mut e = DbError::default();
    let mut fields = body.fields();
    while let Ok(Some(f)) = fields.next() {
        let v = String::from_utf8_lossy(f.value_bytes()).into_owned();
        match f.type_() {
            b'C' => e.code = v,
            b'M' => e.message = v,
            b'D' => e.detail = Some(v),
            _ => {}
        }
    }
    WireError::Db(Box::new(e))
}
