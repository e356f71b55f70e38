// grpc-go-server: the counter of docs/adapters.md ("The server") served by
// gRPC-Go (google.golang.org/grpc) as the service rpclab.wire.Rpclab of
// idl/rpclab.proto (Null, Next, Echo). Written against the contract
// alone: no rpclab code, no cgo.
//
//	grpc-go-server --listen ADDR:PORT --journal PATH --ready-file PATH [--stats-file PATH]
//
// Every NEXT is one line of the lines journal, written with one write(2)
// before the reply, with what gRPC-Go lets a handler tell of the request:
// the connection (numbered as gRPC-Go's stats handler sees them accepted,
// from 1 per start), the peer, and the attempt (gRPC's
// grpc-previous-rpc-attempts header, absent, so 0, on a first attempt).
// The HTTP/2 stream id stays inside gRPC-Go's transport.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/stats"

	"rpclab.invalid/adapters/grpc-go/wire"
)

const program = "grpc-go-server"

// The largest message: the contract's largest ECHO payload and its framing.
const maxMessage = 16<<20 + 1024

func die(status int, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, program+": "+format+"\n", args...)
	os.Exit(status)
}

type key struct{ client, seq uint32 }

// counter is Levy's check exactly as the contract spells it, under one
// lock that also covers the journal line, so a repeat arriving on another
// connection waits for the first copy's line.
type counter struct {
	mu       sync.Mutex
	journal  *os.File
	expected map[uint32]uint32
	times    map[key]uint32
}

func openCounter(path string) *counter {
	c := &counter{expected: map[uint32]uint32{}, times: map[key]uint32{}}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		die(3, "--journal: cannot read %s: %v", path, err)
	}
	c.journal, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		die(3, "--journal: cannot open %s: %v", path, err)
	}
	starts := 0
	if len(old) == 0 {
		c.append(`{"format":"rpclab-journal-lines","version":1,"transport":"grpc-go"}` + "\n")
	} else {
		starts = c.recover(string(old), path)
		if old[len(old)-1] != '\n' {
			c.append("\n") // ends the line a SIGKILL tore
		}
	}
	c.append(fmt.Sprintf(`{"start":%d,"pid":%d}`+"\n", starts+1, os.Getpid()))
	return c
}

// recover rebuilds the counter from every whole exec line; a torn last
// line (no newline) does not count. Returns the starts so far.
func (c *counter) recover(text, path string) int {
	if !strings.HasPrefix(text, `{"format":"rpclab-journal-lines"`) {
		die(2, "--journal: %s is not a lines journal", path)
	}
	starts := 0
	lines := strings.Split(text, "\n")
	for _, line := range lines[:len(lines)-1] { // the last piece has no newline
		if strings.HasPrefix(line, `{"start":`) {
			starts++
		}
		var cl, seq, status, expected, times uint32
		if n, _ := fmt.Sscanf(line, `{"exec":[%d,%d,%d,%d,%d]`, &cl, &seq, &status, &expected, &times); n == 5 {
			c.times[key{cl, seq}] = times
			if seq+1 > c.expected[cl] {
				c.expected[cl] = seq + 1
			}
		}
	}
	return starts
}

// append writes one whole line with one write(2) on the O_APPEND file.
func (c *counter) append(line string) {
	if n, err := c.journal.WriteString(line); err != nil || n != len(line) {
		// A journal that cannot be written breaks the contract: better no
		// server than replies with no record.
		die(1, "the journal cannot be written: %v", err)
	}
}

// next is ServerCore::next; origin is the line's optional fields.
func (c *counter) next(client, seq uint32, origin string) wire.NextReply {
	arrived := time.Now().UnixNano()
	c.mu.Lock()
	defer c.mu.Unlock()
	expected := c.expected[client]
	c.times[key{client, seq}]++
	reply := wire.NextReply{ExpectedSeq: expected, TimesExecuted: c.times[key{client, seq}]}
	if seq != expected {
		reply.Status = 1
	}
	if seq+1 > expected {
		c.expected[client] = seq + 1
	}
	c.append(fmt.Sprintf(`{"exec":[%d,%d,%d,%d,%d],"realtime_ns":%d%s}`+"\n", client, seq, reply.Status,
		reply.ExpectedSeq, reply.TimesExecuted, arrived, origin)) // before the reply leaves
	return reply
}

// counts are the calls served, for --stats-file.
type counts struct{ null, next, echo, mismatches atomic.Uint64 }

type connKey struct{}

// connections numbers the connections gRPC-Go accepts (TagConn runs once
// per accepted connection; every call's context derives from its value).
type connections struct{ n atomic.Uint32 }

func (h *connections) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return context.WithValue(ctx, connKey{}, h.n.Add(1))
}
func (h *connections) HandleConn(context.Context, stats.ConnStats) {}
func (h *connections) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	return ctx
}
func (h *connections) HandleRPC(context.Context, stats.RPCStats) {}

// origin: the journal line's optional fields for the call in ctx.
func origin(ctx context.Context) string {
	var b strings.Builder
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		attempt := 0
		if v := md.Get("grpc-previous-rpc-attempts"); len(v) > 0 {
			attempt, _ = strconv.Atoi(v[0])
		}
		fmt.Fprintf(&b, `,"attempt":%d`, attempt)
	}
	if n, ok := ctx.Value(connKey{}).(uint32); ok {
		fmt.Fprintf(&b, `,"connection":%d`, n)
	}
	if p, ok := peer.FromContext(ctx); ok {
		if a, ok := p.Addr.(*net.TCPAddr); ok && a.IP.To4() != nil {
			fmt.Fprintf(&b, `,"peer":"%s:%d"`, a.IP.To4(), a.Port)
		}
	}
	return b.String()
}

// service is rpclab.wire.Rpclab's Null, Next and Echo, described by hand
// (what protoc-gen-go-grpc would generate).
func service(c *counter, n *counts) *grpc.ServiceDesc {
	type handler = func(interface{}, context.Context, func(interface{}) error, grpc.UnaryServerInterceptor) (interface{}, error)
	null := func(_ interface{}, _ context.Context, dec func(interface{}) error, _ grpc.UnaryServerInterceptor) (interface{}, error) {
		var req wire.Empty
		if err := dec(&req); err != nil {
			return nil, err
		}
		n.null.Add(1)
		return &wire.Empty{}, nil
	}
	next := func(_ interface{}, ctx context.Context, dec func(interface{}) error, _ grpc.UnaryServerInterceptor) (interface{}, error) {
		var req wire.NextRequest
		if err := dec(&req); err != nil {
			return nil, err
		}
		reply := c.next(req.ClientID, req.Seq, origin(ctx))
		n.next.Add(1)
		if reply.Status == 1 {
			n.mismatches.Add(1)
		}
		return &reply, nil
	}
	echo := func(_ interface{}, _ context.Context, dec func(interface{}) error, _ grpc.UnaryServerInterceptor) (interface{}, error) {
		var req wire.EchoMessage
		if err := dec(&req); err != nil {
			return nil, err
		}
		n.echo.Add(1)
		return &req, nil
	}
	return &grpc.ServiceDesc{
		ServiceName: wire.Service,
		HandlerType: (*interface{})(nil),
		Methods: []grpc.MethodDesc{
			{MethodName: "Null", Handler: handler(null)},
			{MethodName: "Next", Handler: handler(next)},
			{MethodName: "Echo", Handler: handler(echo)},
		},
	}
}

// writeWhole writes text to a temporary file beside path, then renames
// it into place, so a reader never sees half of it.
func writeWhole(path, text string) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func micros(tv syscall.Timeval) int64 { return tv.Sec*1000000 + tv.Usec }

// writeStats: docs/results-format.md, "Server ready and stats files".
func writeStats(path string, n *counts, generation int) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	text := fmt.Sprintf(`{"generation":%d,"null_calls":%d,"next_calls":%d,"echo_calls":%d,"allman_calls":0,`+
		`"record_calls":0,"mismatches":%d,"answered_from_table":0,"refused_stale":0,"cpu_user_us":%d,"cpu_sys_us":%d}`+"\n",
		generation, n.null.Load(), n.next.Load(), n.echo.Load(), n.mismatches.Load(), micros(ru.Utime), micros(ru.Stime))
	if err := writeWhole(path, text); err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot write the stats file: %v\n", program, err)
	}
}

func main() {
	flags := flag.NewFlagSet(program, flag.ContinueOnError)
	listen := flags.String("listen", "", "ADDR:PORT to listen on (port 0: any free port)")
	journal := flags.String("journal", "", "the lines journal (docs/adapters.md)")
	ready := flags.String("ready-file", "", `written {"port":N,"pid":P} once it serves`)
	statsFile := flags.String("stats-file", "", "calls served and CPU time, written on SIGUSR1")
	atMostOnce := flags.Bool("at-most-once", false, "not implemented (the manifest says so)")
	if err := flags.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	switch {
	case flags.NArg() > 0:
		die(2, "unexpected argument %q", flags.Arg(0))
	case *atMostOnce:
		die(2, "--at-most-once: this adapter does not implement it (its manifest says so)")
	case *listen == "" || *journal == "" || *ready == "":
		die(2, "--listen, --journal and --ready-file are required")
	}
	if _, _, err := net.SplitHostPort(*listen); err != nil {
		die(2, "--listen: %q is not HOST:PORT", *listen)
	}

	// Signals first, so none arrives with its default action.
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGUSR1)

	socket, err := net.Listen("tcp", *listen)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			die(3, "%s: address in use", *listen)
		}
		die(3, "cannot listen on %s: %v", *listen, err)
	}
	c := openCounter(*journal)
	var n counts
	server := grpc.NewServer(grpc.ForceServerCodec(wire.Codec{}), grpc.StatsHandler(&connections{}),
		grpc.MaxRecvMsgSize(maxMessage), grpc.MaxSendMsgSize(maxMessage))
	server.RegisterService(service(c, &n), nil)

	// The journal holds every answered call the moment it is answered, so
	// a stop needs no more than that no line is half written: wait for the
	// call under way, then leave (GracefulStop would wait for every client).
	go func() {
		generation := 0
		for sig := range signals {
			if sig == syscall.SIGUSR1 {
				generation++
				if *statsFile != "" {
					writeStats(*statsFile, &n, generation)
				}
				continue
			}
			c.mu.Lock()
			fmt.Fprintf(os.Stderr, "%s: stopped by %v\n", program, sig)
			os.Exit(0)
		}
	}()

	port := socket.Addr().(*net.TCPAddr).Port
	// The socket listens: a call that comes now waits in its backlog.
	if err := writeWhole(*ready, fmt.Sprintf(`{"port":%d,"pid":%d}`+"\n", port, os.Getpid())); err != nil {
		die(1, "cannot write the ready file %s: %v", *ready, err)
	}
	fmt.Fprintf(os.Stderr, "%s: serving on port %d (pid %d)\n", program, port, os.Getpid())
	if err := server.Serve(socket); err != nil {
		die(1, "cannot serve: %v", err)
	}
}
