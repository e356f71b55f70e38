//! tonic-client: the calls of docs/adapters.md ("The client") through tonic
//! (Rust gRPC on hyper/h2 and tokio) to rpclab.wire.Rpclab, and the call
//! record they leave (docs/results-format.md, "Call records", version 2).
//! Written against the contract alone: no rpclab code.
//!
//! Retry: tonic has no retry of its own (no retryPolicy, no transparent
//! retry), so `none` and `app` only; `app` is the contract's loop, a new
//! connection (Channel) and the same (client id, seq) again.
//!
//! Timeouts: the deadline is the contract's whole call, connect included,
//! kept here with tokio's timer around connect and call; tonic sends it to
//! the server as grpc-timeout too. A call the deadline ends is `timeout`
//! whatever tonic says of it: tonic ends a call that outlives its own
//! deadline with CANCELLED "Timeout expired", not DEADLINE_EXCEEDED.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use rpclab_tonic::{EchoMessage, Empty, NextReply, NextRequest, MAX_MESSAGE};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::Notify;
use tonic::client::Grpc;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Request, Status};
use tonic_prost::ProstCodec;

const PROGRAM: &str = "tonic-client";
/// The manifest's default_timeout_ms: gRPC C++'s row's default deadline.
const DEFAULT_TIMEOUT_MS: u64 = 25000;

fn usage(message: String) -> ! {
    eprintln!("{PROGRAM}: {message}");
    std::process::exit(2)
}

/// One call's kind in the contract's seven words, and the library's own.
#[derive(Clone)]
struct Outcome {
    kind: &'static str,
    detail: String,
}

impl Outcome {
    fn new(kind: &'static str, detail: String) -> Outcome {
        Outcome { kind, detail }
    }
}

/// A gRPC status in the contract's words (docs/adapters.md, Error kinds:
/// the table of gRPC status codes).
fn kind_of(s: &Status) -> Outcome {
    let detail = format!("gRPC status {}: {}", s.code() as i32, s.message());
    let m = s.message();
    let broken = m.contains("transport error") || m.contains("connection reset") || m.contains("h2 protocol error") || m.contains("broken pipe");
    let kind = match s.code() {
        Code::DeadlineExceeded => "timeout",
        Code::Cancelled if m.contains("Timeout expired") => "timeout",
        Code::Unavailable | Code::Unknown | Code::Internal if broken => "cannot_receive",
        Code::Unavailable | Code::Unimplemented => "unavailable",
        Code::ResourceExhausted | Code::InvalidArgument | Code::Internal => "cannot_code",
        _ => "other",
    };
    Outcome::new(kind, detail)
}

struct Client {
    endpoint: Endpoint,
    timeout: Duration,
    channel: Option<Channel>,
}

impl Client {
    /// One call of op, connect included when there is no connection;
    /// seq numbers NEXT.
    async fn call(&mut self, op: &str, client_id: u32, seq: u32, payload: &[u8]) -> Outcome {
        let channel = match &self.channel {
            Some(c) => c.clone(),
            None => match self.endpoint.connect().await {
                Ok(c) => {
                    self.channel = Some(c.clone());
                    c
                }
                Err(e) => return Outcome::new("unavailable", format!("connect: {}", error_chain(&e))),
            },
        };
        let mut grpc = Grpc::new(channel).max_decoding_message_size(MAX_MESSAGE).max_encoding_message_size(MAX_MESSAGE);
        if let Err(e) = grpc.ready().await {
            return Outcome::new("unavailable", format!("not ready: {}", error_chain(&e)));
        }
        let path = |m: &str| PathAndQuery::try_from(format!("/{}/{m}", rpclab_tonic::SERVICE)).expect("a method's path");
        let timeout = self.timeout;
        fn request<M>(m: M, timeout: Duration) -> Request<M> {
            let mut r = Request::new(m);
            r.set_timeout(timeout);
            r
        }
        match op {
            "next" => {
                let r = request(NextRequest { client_id, seq }, timeout);
                match grpc.unary(r, path("Next"), ProstCodec::<NextRequest, NextReply>::default()).await {
                    Ok(_) => Outcome::new("ok", String::new()),
                    Err(s) => kind_of(&s),
                }
            }
            "echo" => {
                let r = request(EchoMessage { payload: payload.to_vec() }, timeout);
                match grpc.unary(r, path("Echo"), ProstCodec::<EchoMessage, EchoMessage>::default()).await {
                    Ok(reply) if reply.get_ref().payload != payload => Outcome::new("other", "the ECHO reply differs from the request".into()),
                    Ok(_) => Outcome::new("ok", String::new()),
                    Err(s) => kind_of(&s),
                }
            }
            _ => match grpc.unary(request(Empty {}, timeout), path("Null"), ProstCodec::<Empty, Empty>::default()).await {
                Ok(_) => Outcome::new("ok", String::new()),
                Err(s) => kind_of(&s),
            },
        }
    }
}

/// An error and its sources on one line (tonic's own words are in the sources).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(c) = source {
        let _ = write!(s, ": {c}");
        source = c.source();
    }
    s
}

struct Attempt {
    outcome: Outcome,
    latency_ns: u128,
    start_ns: u128,
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r', '\t'], " ")
}

fn json_text(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out += "\\\"",
            '\\' => out += "\\\\",
            c if (c as u32) < 0x20 => out += &format!("\\u{:04x}", c as u32),
            c => out.push(c),
        }
    }
    out + "\""
}

fn rusage() -> (i64, i64) {
    // SAFETY: getrusage fills the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    (ru.ru_utime.tv_sec * 1_000_000 + ru.ru_utime.tv_usec, ru.ru_stime.tv_sec * 1_000_000 + ru.ru_stime.tv_usec)
}

struct Flags {
    server: String,
    calls: u64,
    client_id: u32,
    first_seq: u32,
    op: String,
    size: usize,
    warmup: u64,
    connect: String,
    record: String,
    timeout_ms: u64,
    policy: String,
    retries: u32,
    backoff_ms: u64,
    backoff_max_ms: u64,
    duration_ms: u64,
    start_at: u128,
    start_gate: String,
}

/// The contract's flags and defaults; a flag given twice: the last counts.
fn parse_flags() -> Flags {
    let mut f = Flags {
        server: String::new(),
        calls: 1000,
        client_id: 1,
        first_seq: 0,
        op: "next".into(),
        size: 0,
        warmup: 0,
        connect: "persistent".into(),
        record: String::new(),
        timeout_ms: 0,
        policy: "none".into(),
        retries: 3,
        backoff_ms: 50,
        backoff_max_ms: 1000,
        duration_ms: 0,
        start_at: 0,
        start_gate: String::new(),
    };
    fn number<T: std::str::FromStr>(flag: &str, v: &str) -> T {
        v.parse().unwrap_or_else(|_| usage(format!("{flag}: {v:?} is not a number it takes")))
    }
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let v = args.next().unwrap_or_else(|| usage(format!("{flag} needs a value")));
        match flag.as_str() {
            "--server" => f.server = v,
            "--calls" => f.calls = number(&flag, &v),
            "--client-id" => f.client_id = number(&flag, &v),
            "--first-seq" => f.first_seq = number(&flag, &v),
            "--op" => f.op = v,
            "--size" => f.size = number(&flag, &v),
            "--warmup" => f.warmup = number(&flag, &v),
            "--connect" => f.connect = v,
            "--record" => f.record = v,
            "--timeout" => f.timeout_ms = number(&flag, &v),
            "--retry-policy" => f.policy = v,
            "--app-retries" => f.retries = number(&flag, &v),
            "--app-backoff" => f.backoff_ms = number(&flag, &v),
            "--app-backoff-max" => f.backoff_max_ms = number(&flag, &v),
            "--duration" => f.duration_ms = number(&flag, &v),
            "--start-at" => f.start_at = number(&flag, &v),
            "--start-gate" => f.start_gate = v,
            _ => usage(format!("unknown flag {flag:?}")),
        }
    }
    if f.server.is_empty() {
        usage("--server is required".into());
    }
    if f.record.is_empty() {
        usage("--record is required".into());
    }
    if !["next", "echo", "null"].contains(&f.op.as_str()) {
        usage("--op: this adapter carries next, echo and null".into());
    }
    if f.connect != "persistent" && f.connect != "per-call" {
        usage("--connect: persistent or per-call".into());
    }
    if f.policy != "none" && f.policy != "app" {
        usage("--retry-policy: none or app (tonic has no retry of its own)".into());
    }
    if f.calls < 1 || f.size > 16 << 20 {
        usage("a value out of range".into());
    }
    f
}

fn main() {
    let flags = parse_flags();
    // One thread: calls go one at a time, and a second thread would only
    // hand the reply across.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| usage(format!("cannot start tokio: {e}")));
    std::process::exit(runtime.block_on(run(flags)));
}

fn now_realtime_ns() -> u128 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

async fn run(f: Flags) -> i32 {
    // SIGTERM: no new call, no new attempt; the call in flight is cut
    // short and recorded as timeout (docs/adapters.md, SIGTERM).
    let stopped = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(Notify::new());
    let mut term = signal(SignalKind::terminate()).unwrap_or_else(|e| usage(format!("signals: {e}")));
    let mut int = signal(SignalKind::interrupt()).unwrap_or_else(|e| usage(format!("signals: {e}")));
    {
        let (stopped, stop) = (stopped.clone(), stop.clone());
        tokio::spawn(async move {
            tokio::select! { _ = term.recv() => {}, _ = int.recv() => {} }
            stopped.store(true, Ordering::SeqCst);
            stop.notify_waiters();
        });
    }
    let is_stopped = || stopped.load(Ordering::SeqCst);

    let timeout = Duration::from_millis(if f.timeout_ms == 0 { DEFAULT_TIMEOUT_MS } else { f.timeout_ms });
    let endpoint = Endpoint::from_shared(format!("http://{}", f.server))
        .unwrap_or_else(|e| usage(format!("--server: {:?}: {e}", f.server)))
        .tcp_nodelay(true);
    let mut client = Client { endpoint, timeout, channel: None };
    let per_call = f.connect == "per-call";
    let payload = if f.op == "echo" { vec![b'x'; f.size] } else { Vec::new() };
    let warm_op = if f.op == "next" { "null" } else { f.op.as_str() }; // warm-ups stay out of the ledger

    // One call within the deadline, connect included, or cut by SIGTERM.
    macro_rules! bounded_call {
        ($op:expr, $seq:expr) => {{
            let o = tokio::select! {
                r = tokio::time::timeout(timeout, client.call($op, f.client_id, $seq, &payload)) => match r {
                    Ok(o) => o,
                    Err(_) => Outcome::new("timeout", format!("no reply within the deadline of {} ms (tokio::time::timeout)", timeout.as_millis())),
                },
                _ = stop.notified() => Outcome::new("timeout", "cut short by SIGTERM".into()),
            };
            if per_call || o.kind != "ok" {
                // After a failure the next call connects anew, itself: a
                // tonic Channel reconnects out of sight and words a refused
                // connect as a "transport error", which would read as
                // cannot_receive where no connection was made (unavailable).
                client.channel = None;
            }
            o
        }};
    }

    let mut i = 0;
    while i < f.warmup && !is_stopped() {
        let _ = bounded_call!(warm_op, f.first_seq);
        i += 1;
    }
    if f.start_at != 0 {
        let wait = f.start_at.saturating_sub(now_realtime_ns());
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_nanos(wait as u64)) => {},
            _ = stop.notified() => {},
        }
    }
    if !f.start_gate.is_empty() {
        let (dir, flag) = (f.start_gate.clone(), stopped.clone());
        let passed = tokio::task::spawn_blocking(move || wait_at_start_gate(&dir, Duration::from_secs(600), &flag)).await;
        if let Ok(Err(e)) | Err(e) = passed.map_err(|e| e.to_string()) {
            eprintln!("{PROGRAM}: start gate {}: {e}", f.start_gate);
            return 3;
        }
    }

    let mut lines = String::new();
    let mut outcomes: BTreeMap<&'static str, u64> = BTreeMap::new();
    let (mut made, mut ok) = (0u64, 0u64);
    let before = rusage();
    let t0 = Instant::now();
    let started = now_realtime_ns();
    let mut n = 0u64;
    while n < f.calls && !is_stopped() {
        if f.duration_ms != 0 && t0.elapsed() >= Duration::from_millis(f.duration_ms) {
            break;
        }
        let seq = if f.op == "next" { f.first_seq.wrapping_add(n as u32) } else { n as u32 };
        let mut attempts: Vec<Attempt> = Vec::new();
        let mut wait = Duration::from_millis(f.backoff_ms);
        loop {
            let s = Instant::now();
            let o = bounded_call!(f.op.as_str(), seq);
            let retried = matches!(o.kind, "timeout" | "unavailable" | "cannot_send" | "cannot_receive");
            attempts.push(Attempt { outcome: o, latency_ns: s.elapsed().as_nanos(), start_ns: s.duration_since(t0).as_nanos() });
            if f.policy != "app" || !retried || attempts.len() > f.retries as usize || is_stopped() {
                break;
            }
            tokio::select! { _ = tokio::time::sleep(wait) => {}, _ = stop.notified() => break }
            wait = (wait * 2).min(Duration::from_millis(f.backoff_max_ms));
            client.channel = None; // the application's loop: a new connection, the same call again
        }
        let (first, last) = (&attempts[0], &attempts[attempts.len() - 1]);
        made += 1;
        *outcomes.entry(last.outcome.kind).or_insert(0) += 1;
        ok += u64::from(last.outcome.kind == "ok");
        let _ = write!(lines, "{seq}\t{}\t{}\t{}\t{}", last.outcome.kind, last.start_ns + last.latency_ns - first.start_ns, first.start_ns, attempts.len());
        if !last.outcome.detail.is_empty() {
            lines += &format!("\t{}", one_line(&last.outcome.detail));
        }
        lines.push('\n');
        if attempts.len() > 1 {
            for (k, a) in attempts.iter().enumerate() {
                let _ = write!(lines, "+{}\t{}\t{}\t{}", k + 1, a.outcome.kind, a.latency_ns, a.start_ns);
                if !a.outcome.detail.is_empty() {
                    lines += &format!("\t{}", one_line(&a.outcome.detail));
                }
                lines.push('\n');
            }
        }
        n += 1;
    }
    let wall = t0.elapsed().as_nanos();
    let after = rusage();
    client.channel = None;

    let counts: Vec<String> = outcomes.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    let mut h = format!(
        "{{\"format\":\"rpclab-call-record\",\"version\":2,\"transport\":\"tonic\",\"server\":{},\"connect\":{},",
        json_text(&f.server),
        json_text(&f.connect)
    );
    let _ = write!(
        h,
        "\"op\":{},\"client_id\":{},\"size\":{},\"calls_planned\":{},\"calls_made\":{made},\"warmup\":{},\"interrupted\":{},",
        json_text(&f.op),
        f.client_id,
        f.size,
        f.calls,
        f.warmup,
        is_stopped() && made < f.calls
    );
    if f.duration_ms != 0 {
        let _ = write!(h, "\"duration_ms\":{},", f.duration_ms);
    }
    let _ = write!(
        h,
        "\"start_realtime_ns\":{started},\"end_realtime_ns\":{},\"wall_ns\":{wall},\"cpu_user_us\":{},\"cpu_sys_us\":{},",
        started + wall,
        after.0 - before.0,
        after.1 - before.1
    );
    let _ = write!(h, "\"outcomes\":{{{}}},\"retry\":{{\"policy\":{}", counts.join(","), json_text(&f.policy));
    if f.policy == "app" {
        let _ = write!(h, ",\"app\":{{\"retries\":{},\"backoff_ms\":{},\"backoff_max_ms\":{}}}", f.retries, f.backoff_ms, f.backoff_max_ms);
    }
    let _ = writeln!(
        h,
        ",\"library\":\"tonic: none\"}},\"settings\":{{\"timeout_ms\":{},\"timeout_is_default\":{},\"max_payload\":16777216,\"library\":\"tonic 0.14\"}},\"pid\":{}}}",
        timeout.as_millis(),
        f.timeout_ms == 0,
        std::process::id()
    );

    let tmp = format!("{}.tmp", f.record);
    if let Err(e) = std::fs::write(&tmp, h + &lines).and_then(|_| std::fs::rename(&tmp, &f.record)) {
        eprintln!("{PROGRAM}: cannot write the record {}: {e}", f.record);
        return 1;
    }
    eprintln!("{PROGRAM}: {} x{made}, {ok} ok", f.op);
    i32::from(ok == 0)
}

/// The start gate of docs/adapters.md: start-go opened first (so the
/// harness's byte has its reader), ready said on start-ready, then one
/// byte read from start-go, in 100 ms slices so a SIGTERM is seen.
fn wait_at_start_gate(dir: &str, within: Duration, stopped: &AtomicBool) -> Result<(), String> {
    use std::ffi::CString;
    let open = |name: &str, flags: i32| -> Result<i32, String> {
        let path = CString::new(format!("{dir}/{name}")).map_err(|e| e.to_string())?;
        // SAFETY: a NUL-terminated path.
        let fd = unsafe { libc::open(path.as_ptr(), flags | libc::O_NONBLOCK | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(format!("{name}: {}", std::io::Error::last_os_error()));
        }
        Ok(fd)
    };
    let gate = open("start-go", libc::O_RDONLY)?;
    let ready = open("start-ready", libc::O_WRONLY)?;
    // SAFETY: fds just opened, a one-byte buffer.
    let wrote = unsafe { libc::write(ready, b"r".as_ptr().cast(), 1) };
    unsafe { libc::close(ready) };
    if wrote != 1 {
        return Err(format!("start-ready: {}", std::io::Error::last_os_error()));
    }
    let deadline = Instant::now() + within;
    let mut byte = 0u8;
    while !stopped.load(Ordering::SeqCst) {
        if Instant::now() > deadline {
            return Err(format!("not opened within {within:?}"));
        }
        let mut p = libc::pollfd { fd: gate, events: libc::POLLIN, revents: 0 };
        // SAFETY: one pollfd; then a one-byte read on its fd.
        if unsafe { libc::poll(&mut p, 1, 100) } > 0 {
            match unsafe { libc::read(gate, (&mut byte as *mut u8).cast(), 1) } {
                1 => break,
                0 => return Err("closed without letting the client go".into()),
                _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::WouldBlock => {}
                _ => return Err(std::io::Error::last_os_error().to_string()),
            }
        }
    }
    unsafe { libc::close(gate) };
    Ok(())
}
