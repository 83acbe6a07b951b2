//! What the bare clients (bare-echo, bare-move) share: their arguments and their own CPU time.

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
