//! tonic-server: the counter of docs/adapters.md ("The server") served by
//! tonic (Rust gRPC on hyper/h2 and tokio) as the service
//! rpclab.wire.Rpclab of idl/rpclab.proto (Null, Next, Echo). Written
//! against the contract alone: no rpclab code.
//!
//!     tonic-server --listen ADDR:PORT --journal PATH --ready-file PATH [--stats-file PATH]
//!
//! Every NEXT is one line of the lines journal, written with one write(2)
//! before the reply, with what tonic lets a handler tell of the request:
//! the peer (tonic's TcpConnectInfo), the connection (numbered here as
//! peers are first seen, from 1 per start) and the attempt (gRPC's
//! grpc-previous-rpc-attempts header; absent, so 0, on a first attempt).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use rpclab_tonic::{NextReply, NextRequest, Rpclab, RpclabServer};
use tokio::signal::unix::{signal, SignalKind};
use tonic::transport::server::TcpConnectInfo;
use tonic::Request;

const PROGRAM: &str = "tonic-server";

fn die(status: i32, message: String) -> ! {
    eprintln!("{PROGRAM}: {message}");
    std::process::exit(status)
}

/// Levy's counter exactly as the contract spells it, under one lock that
/// also covers the journal line, so a repeat arriving on another
/// connection waits for the first copy's line.
struct Counter {
    journal: File,
    expected: HashMap<u32, u32>,
    times: HashMap<(u32, u32), u32>,
    connections: HashMap<SocketAddr, u32>,
}

impl Counter {
    fn open(path: &str) -> Counter {
        let old = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => die(3, format!("--journal: cannot read {path}: {e}")),
        };
        let journal = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap_or_else(|e| die(3, format!("--journal: cannot open {path}: {e}")));
        let mut c = Counter { journal, expected: HashMap::new(), times: HashMap::new(), connections: HashMap::new() };
        let mut starts = 0;
        if old.is_empty() {
            c.append("{\"format\":\"rpclab-journal-lines\",\"version\":1,\"transport\":\"tonic\"}\n");
        } else {
            starts = c.recover(&String::from_utf8_lossy(&old), path);
            if old.last() != Some(&b'\n') {
                c.append("\n"); // ends the line a SIGKILL tore
            }
        }
        c.append(&format!("{{\"start\":{},\"pid\":{}}}\n", starts + 1, std::process::id()));
        c
    }

    /// Rebuilds the counter from every whole exec line; a torn last line
    /// (no newline) does not count. Returns the starts so far.
    fn recover(&mut self, text: &str, path: &str) -> u32 {
        if !text.starts_with("{\"format\":\"rpclab-journal-lines\"") {
            die(2, format!("--journal: {path} is not a lines journal"));
        }
        let mut starts = 0;
        let whole = &text[..text.rfind('\n').map_or(0, |n| n + 1)];
        for line in whole.lines() {
            if line.starts_with("{\"start\":") {
                starts += 1;
            }
            let Some(rest) = line.strip_prefix("{\"exec\":[") else { continue };
            let numbers: Vec<u32> = rest.split(']').next().unwrap_or("").split(',').filter_map(|n| n.parse().ok()).collect();
            if let [client, seq, _, _, times] = numbers[..] {
                self.times.insert((client, seq), times);
                let e = self.expected.entry(client).or_insert(0);
                *e = (*e).max(seq + 1);
            }
        }
        starts
    }

    /// One whole line with one write(2) on the O_APPEND file.
    fn append(&mut self, line: &str) {
        match self.journal.write(line.as_bytes()) {
            Ok(n) if n == line.len() => {}
            // A journal that cannot be written breaks the contract: better
            // no server than replies with no record.
            r => die(1, format!("the journal cannot be written: {r:?}")),
        }
    }
}

#[derive(Default)]
struct Counts {
    null: AtomicU64,
    next: AtomicU64,
    echo: AtomicU64,
    mismatches: AtomicU64,
}

struct Server {
    counter: Mutex<Counter>,
    counts: Counts,
}

impl Rpclab for Server {
    fn null(&self) {
        self.counts.null.fetch_add(1, Ordering::Relaxed);
    }

    fn echo(&self) {
        self.counts.echo.fetch_add(1, Ordering::Relaxed);
    }

    /// ServerCore::next, and its journal line before the reply leaves.
    fn next(&self, request: &Request<NextRequest>) -> NextReply {
        let arrived = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let (client, seq) = (request.get_ref().client_id, request.get_ref().seq);
        let attempt: u32 = request
            .metadata()
            .get("grpc-previous-rpc-attempts")
            .and_then(|v| v.to_str().ok()?.parse().ok())
            .unwrap_or(0);
        let peer = request.extensions().get::<TcpConnectInfo>().and_then(|i| i.remote_addr());
        let mut c = self.counter.lock().unwrap_or_else(|p| p.into_inner());
        let expected = c.expected.get(&client).copied().unwrap_or(0);
        let times = c.times.entry((client, seq)).or_insert(0);
        *times += 1;
        let reply = NextReply { status: u32::from(seq != expected), expected_seq: expected, times_executed: *times };
        c.expected.insert(client, expected.max(seq + 1));
        let mut origin = format!(",\"attempt\":{attempt}");
        if let Some(peer @ SocketAddr::V4(v4)) = peer {
            let known = c.connections.len() as u32;
            let connection = *c.connections.entry(peer).or_insert(known + 1);
            origin += &format!(",\"connection\":{connection},\"peer\":\"{v4}\"");
        }
        c.append(&format!(
            "{{\"exec\":[{client},{seq},{},{},{}],\"realtime_ns\":{arrived}{origin}}}\n",
            reply.status, reply.expected_seq, reply.times_executed
        ));
        drop(c);
        self.counts.next.fetch_add(1, Ordering::Relaxed);
        if reply.status == 1 {
            self.counts.mismatches.fetch_add(1, Ordering::Relaxed);
        }
        reply
    }
}

/// Writes text to a temporary file beside path, then renames it into
/// place, so a reader never sees half of it.
fn write_whole(path: &str, text: &str) -> std::io::Result<()> {
    let p = std::path::Path::new(path);
    let tmp = p.with_file_name(format!(".{}.tmp", p.file_name().and_then(|n| n.to_str()).unwrap_or("file")));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, p)
}

fn micros(tv: libc::timeval) -> i64 {
    tv.tv_sec * 1_000_000 + tv.tv_usec
}

/// docs/results-format.md, "Server ready and stats files".
fn write_stats(path: &str, n: &Counts, generation: u64) {
    // SAFETY: getrusage fills the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let text = format!(
        "{{\"generation\":{generation},\"null_calls\":{},\"next_calls\":{},\"echo_calls\":{},\"allman_calls\":0,\
         \"record_calls\":0,\"mismatches\":{},\"answered_from_table\":0,\"refused_stale\":0,\"cpu_user_us\":{},\"cpu_sys_us\":{}}}\n",
        n.null.load(Ordering::Relaxed),
        n.next.load(Ordering::Relaxed),
        n.echo.load(Ordering::Relaxed),
        n.mismatches.load(Ordering::Relaxed),
        micros(ru.ru_utime),
        micros(ru.ru_stime)
    );
    if let Err(e) = write_whole(path, &text) {
        eprintln!("{PROGRAM}: cannot write the stats file: {e}");
    }
}

struct Flags {
    listen: String,
    journal: String,
    ready: String,
    stats: Option<String>,
}

/// The contract's flags; a flag given twice: the last one counts.
fn parse_flags() -> Flags {
    let mut f = Flags { listen: String::new(), journal: String::new(), ready: String::new(), stats: None };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--at-most-once" {
            die(2, "--at-most-once: this adapter does not implement it (its manifest says so)".into());
        }
        let slot = match flag.as_str() {
            "--listen" => &mut f.listen,
            "--journal" => &mut f.journal,
            "--ready-file" => &mut f.ready,
            "--stats-file" => f.stats.get_or_insert_with(String::new),
            _ => die(2, format!("unknown flag {flag:?}")),
        };
        *slot = args.next().unwrap_or_else(|| die(2, format!("{flag} needs a value")));
    }
    if f.listen.is_empty() || f.journal.is_empty() || f.ready.is_empty() {
        die(2, "--listen, --journal and --ready-file are required".into());
    }
    f
}

fn main() {
    let flags = parse_flags();
    let address: SocketAddr = flags.listen.parse().unwrap_or_else(|_| die(2, format!("--listen: {:?} is not ADDR:PORT", flags.listen)));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| die(1, format!("cannot start tokio: {e}")));
    runtime.block_on(serve(flags, address));
}

async fn serve(flags: Flags, address: SocketAddr) {
    // Signals first, so none arrives with its default action.
    let mut term = signal(SignalKind::terminate()).unwrap_or_else(|e| die(1, format!("signals: {e}")));
    let mut int = signal(SignalKind::interrupt()).unwrap_or_else(|e| die(1, format!("signals: {e}")));
    let mut usr1 = signal(SignalKind::user_defined1()).unwrap_or_else(|e| die(1, format!("signals: {e}")));

    let socket = TcpListener::bind(address).unwrap_or_else(|e| {
        if e.kind() == std::io::ErrorKind::AddrInUse {
            die(3, format!("{}: address in use", flags.listen))
        }
        die(3, format!("cannot listen on {}: {e}", flags.listen))
    });
    socket.set_nonblocking(true).unwrap_or_else(|e| die(1, format!("cannot listen: {e}")));
    let port = socket.local_addr().map(|a| a.port()).unwrap_or(0);
    // TCP_NODELAY on each accepted connection, as gRPC C++ and gRPC-Go set
    // it. Set here: Server::builder().tcp_nodelay() reaches only the
    // listener serve() makes, not one given to serve_with_incoming, and
    // without it a reply waited for the client's delayed ACK of the
    // server's SETTINGS ACK: 42-44 ms on about one call in four with a new
    // connection per call, and 44 ms at the median at 64 KiB (tcpdump on
    // lo, 2026-12-07).
    let incoming = tonic::transport::server::TcpIncoming::from(
        tokio::net::TcpListener::from_std(socket).unwrap_or_else(|e| die(1, format!("cannot listen: {e}"))),
    )
    .with_nodelay(Some(true));
    let server = Arc::new(Server { counter: Mutex::new(Counter::open(&flags.journal)), counts: Counts::default() });

    // The journal holds every answered call the moment it is answered, so a
    // stop needs no more than that no line is half written: take the lock
    // (the call under way finishes its line), then leave.
    let watcher = server.clone();
    let stats = flags.stats.clone();
    tokio::spawn(async move {
        let mut generation = 0;
        loop {
            tokio::select! {
                _ = usr1.recv() => {
                    generation += 1;
                    if let Some(path) = &stats {
                        write_stats(path, &watcher.counts, generation);
                    }
                    continue;
                }
                _ = term.recv() => eprintln!("{PROGRAM}: stopped by SIGTERM"),
                _ = int.recv() => eprintln!("{PROGRAM}: stopped by SIGINT"),
            }
            let _held = watcher.counter.lock();
            std::process::exit(0);
        }
    });

    // The socket listens: a call that comes now waits in its backlog.
    write_whole(&flags.ready, &format!("{{\"port\":{port},\"pid\":{}}}\n", std::process::id()))
        .unwrap_or_else(|e| die(1, format!("cannot write the ready file {}: {e}", flags.ready)));
    eprintln!("{PROGRAM}: serving on port {port} (pid {})", std::process::id());
    if let Err(e) = tonic::transport::Server::builder()
        .add_service(RpclabServer(server))
        .serve_with_incoming(incoming)
        .await
    {
        die(1, format!("cannot serve: {e}"));
    }
}
