//! A bare Rust movement-sync client: one thread, one epoll (mio), no metrics; the floor bench:agent compares the
//! engine's S4 against (see ../../../node-move.mjs, which does the same in Node). N WebSocket clients (FIN text
//! frames, zero mask key) in rooms of --room-size; each sends {"type":"join","room":R,"client":C}, and once the
//! target's "joined" came, {"type":"move",...} updates at --hz on a 1 ms grid. It counts the room's broadcasts it
//! receives and prints one JSON line: updates sent/s, broadcasts received/s and CPU µs per received broadcast over
//! the measured window (after a warm-up), from getrusage(RUSAGE_SELF).
//!
//!   bare-move --port N [--path /ws] [--clients 200] [--room-size 20] [--hz 20] [--seconds 10] [--warmup 2]
use bare_echo::{arg, cpu_us, upgrade_answered, LoadArgs};
use mio::net::TcpStream;
use mio::{Events, Poll};
use std::io::{ErrorKind, Read, Write};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

struct Player {
    stream: TcpStream,
    room: usize,
    connected: bool,
    upgraded: bool,
    joined: bool,
    seq: u64,
    head: Vec<u8>,
    /// Bytes of a frame split across reads.
    pending: Vec<u8>,
}

/// A client's text frame: FIN + text, masked with a zero key (so the payload goes as it is).
fn frame(out: &mut Vec<u8>, text: &[u8]) {
    out.clear();
    if text.len() < 126 {
        out.extend_from_slice(&[0x81, 0x80 | text.len() as u8, 0, 0, 0, 0]);
    } else {
        out.extend_from_slice(&[0x81, 0x80 | 126, (text.len() >> 8) as u8, text.len() as u8, 0, 0, 0, 0]);
    }
    out.extend_from_slice(text);
}

/// Counts the whole frames at the front of `data` (the target's frames are unmasked); returns (frames, moves, bytes used).
fn frames(data: &[u8], joined: &mut bool, moves: &mut u64) -> usize {
    let mut at = 0;
    while data.len() - at >= 2 {
        let mut length = (data[at + 1] & 0x7f) as usize;
        let mut start = at + 2;
        if length == 126 {
            if data.len() - at < 4 {
                break;
            }
            length = ((data[at + 2] as usize) << 8) | data[at + 3] as usize;
            start = at + 4;
        }
        if data.len() < start + length {
            break;
        }
        if !*joined {
            *joined = true;
        } else if data[start..start + length].starts_with(b"{\"type\":\"move\"") {
            *moves += 1;
        }
        at = start + length;
    }
    at
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let load = LoadArgs::read(&args, "200", "10");
    let LoadArgs { clients, seconds, warmup, .. } = load;
    let room_size: usize = arg(&args, "room-size", "20").parse().expect("--room-size N");
    let hz: f64 = arg(&args, "hz", "20").parse().expect("--hz N");
    let interval_ms = (1000.0 / hz).round() as usize;
    let request = load.upgrade_request();

    let mut poll = Poll::new().unwrap();
    let mut players: Vec<Player> = load
        .connect_all(&poll)
        .into_iter()
        .enumerate()
        .map(|(i, stream)| Player { stream, room: i / room_size, connected: false, upgraded: false, joined: false, seq: 0, head: Vec::new(), pending: Vec::new() })
        .collect();
    let mut events = Events::with_capacity(1024);
    let mut buf = vec![0u8; 64 * 1024];
    let mut out = Vec::with_capacity(256);
    let mut text = Vec::with_capacity(256);
    let mut received: u64 = 0;
    let mut sent: u64 = 0;
    let mut joined = 0usize;
    let started = Instant::now();
    let mut window: Option<(Instant, u64, u64, u64)> = None;
    let mut joined_at: Option<Instant> = None;
    // The next 1 ms tick to send for, counted from `started`.
    let mut tick: usize = 0;
    loop {
        let timeout = if joined_at.is_some() { Duration::from_millis(1) } else { Duration::from_millis(10) };
        poll.poll(&mut events, Some(timeout)).unwrap();
        for event in events.iter() {
            let index = event.token().0;
            let player = &mut players[index];
            if event.is_writable() && !player.connected {
                if player.stream.peer_addr().is_err() {
                    continue;
                }
                player.connected = true;
                player.stream.set_nodelay(true).unwrap();
                player.stream.write_all(request.as_bytes()).unwrap();
            }
            if !event.is_readable() {
                continue;
            }
            // Edge-triggered: read until the socket is empty.
            loop {
                match player.stream.read(&mut buf) {
                    Ok(0) => panic!("target closed a connection"),
                    Ok(n) => {
                        let mut data: &[u8] = &buf[..n];
                        if !player.upgraded {
                            let Some(after) = upgrade_answered(&mut player.head, data) else { continue };
                            player.upgraded = true;
                            data = &buf[n - after..n];
                            text.clear();
                            write!(text, "{{\"type\":\"join\",\"room\":{},\"client\":{}}}", player.room, index).unwrap();
                            frame(&mut out, &text);
                            player.stream.write_all(&out).unwrap();
                        }
                        let was_joined = player.joined;
                        if player.pending.is_empty() {
                            let used = frames(data, &mut player.joined, &mut received);
                            player.pending.extend_from_slice(&data[used..]);
                        } else {
                            player.pending.extend_from_slice(data);
                            let used = frames(&player.pending, &mut player.joined, &mut received);
                            player.pending.drain(..used);
                        }
                        if player.joined && !was_joined {
                            joined += 1;
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => panic!("read: {e}"),
                }
            }
        }
        if joined == clients && joined_at.is_none() {
            joined_at = Some(Instant::now());
            tick = started.elapsed().as_millis() as usize;
        }
        if joined_at.is_some() {
            // Client i sends on the 1 ms grid at phase i mod interval_ms.
            let now = started.elapsed().as_millis() as usize;
            while tick <= now {
                let mut i = tick % interval_ms;
                while i < players.len() {
                    let player = &mut players[i];
                    let seq = player.seq;
                    player.seq += 1;
                    let t = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_micros();
                    let angle = seq as f64 / 10.0;
                    text.clear();
                    write!(text, "{{\"type\":\"move\",\"room\":{},\"client\":{},\"seq\":{},\"t\":{},\"x\":{},\"y\":{}}}", player.room, i, seq, t, angle.cos() * 100.0, angle.sin() * 100.0).unwrap();
                    frame(&mut out, &text);
                    player.stream.write_all(&out).unwrap();
                    sent += 1;
                    i += interval_ms;
                }
                tick += 1;
            }
        }
        match (joined_at, window) {
            (None, _) if started.elapsed() > Duration::from_secs(20) => panic!("only {joined} of {clients} clients joined"),
            (Some(at), None) if at.elapsed().as_secs_f64() >= warmup => window = Some((Instant::now(), received, sent, cpu_us())),
            (_, Some((t0, r0, s0, c0))) if t0.elapsed().as_secs_f64() >= seconds => {
                let wall = t0.elapsed().as_secs_f64();
                let cpu = (cpu_us() - c0) as f64;
                let done = (received - r0) as f64;
                println!(
                    "{{\"client\":\"bare-rust\",\"clients\":{clients},\"seconds\":{wall},\"sentPerSec\":{},\"receivedPerSec\":{},\"cpuPercent\":{},\"usPerBroadcast\":{}}}",
                    (sent - s0) as f64 / wall,
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
