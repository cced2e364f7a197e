//! A minimal blocking HTTP/1.1 client with keep-alive, enough to talk to
//! the service from tests and the load tool without another dependency.
//!
//! It sends `Content-Length` bodies and reads `Content-Length`, chunked or
//! close-delimited responses. Not a general-purpose client.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// A response: status, headers (names lowercased) and body.
#[derive(Debug, Clone)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The headers, names lowercased, in order.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// The first header of that (lowercase) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// One keep-alive connection to a server, reopened when needed.
#[derive(Debug)]
pub struct Client {
    addr: SocketAddr,
    token: Option<String>,
    timeout: Duration,
    conn: Option<BufReader<TcpStream>>,
}

fn bad(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

impl Client {
    /// A client for `addr`; it connects at the first request.
    pub fn new(addr: SocketAddr) -> Client {
        Client {
            addr,
            token: None,
            timeout: Duration::from_secs(30),
            conn: None,
        }
    }

    /// A bearer token sent with every request.
    pub fn token(&mut self, token: Option<&str>) -> &mut Client {
        self.token = token.map(str::to_string);
        self
    }

    /// The read and write timeout (default 30 s).
    pub fn timeout(&mut self, t: Duration) -> &mut Client {
        self.timeout = t;
        self
    }

    /// `GET path`.
    pub fn get(&mut self, path: &str) -> io::Result<Response> {
        self.request("GET", path, &[], &[])
    }

    /// `DELETE path`.
    pub fn delete(&mut self, path: &str) -> io::Result<Response> {
        self.request("DELETE", path, &[], &[])
    }

    /// `POST path` with a JSON body.
    pub fn post_json(&mut self, path: &str, body: &serde_json::Value) -> io::Result<Response> {
        let bytes = serde_json::to_vec(body).map_err(|e| bad(e.to_string()))?;
        self.request(
            "POST",
            path,
            &[("content-type", "application/json")],
            &bytes,
        )
    }

    /// Sends a request; on a connection the server closed in between, it
    /// reconnects and sends it once more.
    pub fn request(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> io::Result<Response> {
        let reused = self.conn.is_some();
        match self.try_request(method, path, headers, body) {
            Err(e) if reused && stale(&e) => {
                self.conn = None;
                self.try_request(method, path, headers, body)
            }
            other => other,
        }
    }

    fn try_request(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> io::Result<Response> {
        if self.conn.is_none() {
            let s = TcpStream::connect_timeout(&self.addr, self.timeout)?;
            s.set_read_timeout(Some(self.timeout))?;
            s.set_write_timeout(Some(self.timeout))?;
            s.set_nodelay(true)?;
            self.conn = Some(BufReader::new(s));
        }
        let Some(conn) = self.conn.as_mut() else {
            return Err(bad("no connection"));
        };
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nhost: {}\r\ncontent-length: {}\r\n",
            self.addr,
            body.len()
        );
        let has_auth = headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("authorization"));
        if let (Some(t), false) = (&self.token, has_auth) {
            head.push_str(&format!("authorization: Bearer {t}\r\n"));
        }
        for (n, v) in headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str("\r\n");
        let mut msg = head.into_bytes();
        msg.extend_from_slice(body);
        let result = conn
            .get_mut()
            .write_all(&msg)
            .and_then(|()| read_response(conn));
        match result {
            Ok((resp, keep)) => {
                if !keep {
                    self.conn = None;
                }
                Ok(resp)
            }
            Err(e) => {
                self.conn = None;
                Err(e)
            }
        }
    }
}

fn stale(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::UnexpectedEof
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
    )
}

fn read_line(r: &mut impl BufRead) -> io::Result<String> {
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed",
        ));
    }
    Ok(line.trim_end_matches(['\r', '\n']).to_string())
}

/// Reads one response; also says whether the connection stays open.
fn read_response(r: &mut BufReader<TcpStream>) -> io::Result<(Response, bool)> {
    let status_line = read_line(r)?;
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| bad(format!("bad status line {status_line:?}")))?;
    let mut headers = Vec::new();
    loop {
        let line = read_line(r)?;
        if line.is_empty() {
            break;
        }
        let (n, v) = line.split_once(':').ok_or_else(|| bad("bad header line"))?;
        headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    let get = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.to_ascii_lowercase())
    };
    let mut keep = get("connection").as_deref() != Some("close");
    let mut body = Vec::new();
    if get("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
        loop {
            let size_line = read_line(r)?;
            let size = usize::from_str_radix(size_line.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|_| bad("bad chunk size"))?;
            if size == 0 {
                while !read_line(r)?.is_empty() {}
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            r.read_exact(&mut body[start..])?;
            read_line(r)?;
        }
    } else if let Some(n) = get("content-length") {
        let n: usize = n.trim().parse().map_err(|_| bad("bad content-length"))?;
        body.resize(n, 0);
        r.read_exact(&mut body)?;
    } else if status >= 200 && status != 204 && status != 304 {
        r.read_to_end(&mut body)?;
        keep = false;
    }
    Ok((
        Response {
            status,
            headers,
            body,
        },
        keep,
    ))
}
