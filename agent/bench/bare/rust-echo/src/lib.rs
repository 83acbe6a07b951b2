//! What the bare clients (bare-echo, bare-move) share: their arguments, their connections and their own CPU time.

use mio::net::TcpStream;
use mio::{Interest, Poll, Token};

/// The value after `--name`, or `fallback`.
pub fn arg(args: &[String], name: &str, fallback: &str) -> String {
    let flag = format!("--{name}");
    args.iter().position(|a| *a == flag).and_then(|i| args.get(i + 1)).cloned().unwrap_or_else(|| fallback.to_string())
}

/// This process's CPU time (user + system) in µs, from getrusage(RUSAGE_SELF).
pub fn cpu_us() -> u64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    us(usage.ru_utime) + us(usage.ru_stime)
}

/// Gathers the target's answer to the upgrade from `read` into `head`; once it is whole, checks that it accepted (101)
/// and returns how many bytes at the end of `read` came after it (the first frames). None while it is incomplete.
pub fn upgrade_answered(head: &mut Vec<u8>, read: &[u8]) -> Option<usize> {
    head.extend_from_slice(read);
    let end = head.windows(4).position(|w| w == b"\r\n\r\n")?;
    assert!(head.starts_with(b"HTTP/1.1 101"), "upgrade refused");
    Some(head.len() - end - 4)
}

/// What both clients read from the command line: where the target listens, how many clients and the measured window.
pub struct LoadArgs {
    pub host: String,
    pub port: u16,
    pub path: String,
    pub clients: usize,
    pub seconds: f64,
    pub warmup: f64,
}

impl LoadArgs {
    /// Reads them from `args`; `clients` and `seconds` are the defaults of the client's own load.
    pub fn read(args: &[String], clients: &str, seconds: &str) -> LoadArgs {
        LoadArgs {
            host: arg(args, "host", "127.0.0.1"),
            port: arg(args, "port", "0").parse().expect("--port N"),
            path: arg(args, "path", "/ws"),
            clients: arg(args, "clients", clients).parse().expect("--clients N"),
            seconds: arg(args, "seconds", seconds).parse().expect("--seconds N"),
            warmup: arg(args, "warmup", "2").parse().expect("--warmup N"),
        }
    }

    /// The WebSocket upgrade request. A fixed key is enough for a bare client: the target checks nothing about it.
    pub fn upgrade_request(&self) -> String {
        let LoadArgs { host, port, path, .. } = self;
        let key = "dGhlIHNhbXBsZSBub25jZQ==";
        format!("GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {key}\r\n\r\n")
    }

    /// Starts every client's TCP connect, each registered with `poll` for reads and writes under its index.
    pub fn connect_all(&self, poll: &Poll) -> Vec<TcpStream> {
        let address = format!("{}:{}", self.host, self.port).parse().unwrap();
        (0..self.clients)
            .map(|i| {
                let mut stream = TcpStream::connect(address).unwrap();
                poll.registry().register(&mut stream, Token(i), Interest::READABLE | Interest::WRITABLE).unwrap();
                stream
            })
            .collect()
    }
}
