//! A bare Rust echo-flood client: one thread, one epoll (mio), no metrics. Same load as bench:agent's S2: N
//! connections, 8-byte messages, one in flight per connection, one message per write, over TCP with a 2-byte
//! big-endian length prefix or over WebSocket (binary FIN frames, zero mask key). Prints one JSON line: echoes/s
//! and CPU µs per echo over the measured window (after a warm-up), from getrusage(RUSAGE_SELF).
//!
//!   bare-echo --mode tcp|ws --port N [--path /ws] [--clients 100] [--seconds 20] [--warmup 2]
use bare_echo::{arg, cpu_us, upgrade_answered, LoadArgs};
use mio::net::TcpStream;
use mio::{Events, Poll};
use std::io::{ErrorKind, Read, Write};
use std::time::{Duration, Instant};

const PAYLOAD: usize = 8;
const ECHO_BYTES: usize = 2 + PAYLOAD;

struct Client {
    stream: TcpStream,
    upgraded: bool,
    connected: bool,
    head: Vec<u8>,
    pending: usize,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let ws = arg(&args, "mode", "tcp") == "ws";
    let load = LoadArgs::read(&args, "100", "20");
    let LoadArgs { clients, seconds, warmup, .. } = load;
    let mut message = if ws { vec![0x82, 0x80 | PAYLOAD as u8, 0, 0, 0, 0] } else { vec![0, PAYLOAD as u8] };
    message.extend_from_slice(&[0x65; PAYLOAD]);
    let request = load.upgrade_request();

    let mut poll = Poll::new().unwrap();
    let mut list: Vec<Client> = load
        .connect_all(&poll)
        .into_iter()
        .map(|stream| Client { stream, upgraded: !ws, connected: false, head: Vec::new(), pending: 0 })
        .collect();
    let mut events = Events::with_capacity(1024);
    let mut buf = vec![0u8; 64 * 1024];
    let mut echoes: u64 = 0;
    let mut open = 0usize;
    let started = Instant::now();
    // (start instant, echoes, cpu) once every connection is open and the warm-up is over.
    let mut window: Option<(Instant, u64, u64)> = None;
    let mut opened_at: Option<Instant> = None;
    loop {
        poll.poll(&mut events, Some(Duration::from_millis(100))).unwrap();
        for event in events.iter() {
            let client = &mut list[event.token().0];
            if event.is_writable() && !client.connected {
                if client.stream.peer_addr().is_err() {
                    continue;
                }
                client.connected = true;
                client.stream.set_nodelay(true).unwrap();
                if ws {
                    client.stream.write_all(request.as_bytes()).unwrap();
                } else {
                    open += 1;
                    client.stream.write_all(&message).unwrap();
                }
            }
            if !event.is_readable() {
                continue;
            }
            // Edge-triggered: read until the socket is empty.
            loop {
                match client.stream.read(&mut buf) {
                    Ok(0) => panic!("target closed a connection"),
                    Ok(n) => {
                        let mut bytes = n;
                        if !client.upgraded {
                            let Some(after) = upgrade_answered(&mut client.head, &buf[..n]) else { continue };
                            client.upgraded = true;
                            open += 1;
                            bytes = after;
                            client.stream.write_all(&message).unwrap();
                        }
                        client.pending += bytes;
                        while client.pending >= ECHO_BYTES {
                            client.pending -= ECHO_BYTES;
                            echoes += 1;
                            client.stream.write_all(&message).unwrap();
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => panic!("read: {e}"),
                }
            }
        }
        if open == clients && opened_at.is_none() {
            opened_at = Some(Instant::now());
        }
        match (opened_at, window) {
            (None, _) if started.elapsed() > Duration::from_secs(10) => panic!("only {open} of {clients} connections opened"),
            (Some(at), None) if at.elapsed().as_secs_f64() >= warmup => window = Some((Instant::now(), echoes, cpu_us())),
            (_, Some((t0, e0, c0))) if t0.elapsed().as_secs_f64() >= seconds => {
                let wall = t0.elapsed().as_secs_f64();
                let cpu = (cpu_us() - c0) as f64;
                let done = (echoes - e0) as f64;
                println!(
                    "{{\"client\":\"bare-rust\",\"mode\":\"{}\",\"clients\":{clients},\"seconds\":{wall},\"echoesPerSec\":{},\"cpuPercent\":{},\"usPerEcho\":{}}}",
                    if ws { "ws" } else { "tcp" },
                    done / wall,
                    100.0 * cpu / 1e6 / wall,
                    cpu / done.max(1.0)
                );
                return;
            }
            _ => {}
        }
    }
}
