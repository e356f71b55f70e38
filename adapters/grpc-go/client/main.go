// grpc-go-client: the calls of docs/adapters.md ("The client") through
// gRPC-Go (google.golang.org/grpc) to rpclab.wire.Rpclab, and the call
// record they leave (docs/results-format.md, "Call records", version 2).
// Written against the contract alone: no rpclab code, no cgo.
//
// Retry, three ways:
//   - always: gRPC-Go's transparent retry (a call that never reached the
//     server's application, e.g. refused with REFUSED_STREAM or caught by
//     a GOAWAY, is sent again once by the library);
//   - --retry-policy library: the retryPolicy of gRPC's service config,
//     the same one rpclab's gRPC C++ row uses (UNAVAILABLE, 5 attempts,
//     10 ms doubling to 200 ms);
//   - --retry-policy app: the application's loop of the contract, a new
//     connection (ClientConn) and the same (client id, seq) again.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"rpclab.invalid/adapters/grpc-go/wire"
)

const program = "grpc-go-client"

// The manifest's default_timeout_ms: gRPC C++'s row's default deadline.
const defaultTimeoutMs = 25000

const maxMessage = 16<<20 + 1024

// retryServiceConfig: with --retry-policy library only. The same policy
// as src/grpc/grpc_client.cc's, so the two rows differ in library alone.
const retryServiceConfig = `{
  "methodConfig": [{
    "name": [{"service": "rpclab.wire.Rpclab"}],
    "retryPolicy": {
      "maxAttempts": 5,
      "initialBackoff": "0.01s",
      "maxBackoff": "0.2s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE"]
    }
  }]
}`

const libraryRetry = "gRPC-Go: transparent retry always; retryPolicy from service config on request " +
	"(UNAVAILABLE, 5 attempts, 10 ms doubling to 200 ms)"

var stopped atomic.Bool

func usage(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, program+": "+format+"\n", args...)
	os.Exit(2)
}

// outcome: one call's kind in the contract's seven words, and the
// library's own words.
type outcome struct{ kind, detail string }

// kindOf maps a gRPC status as rpclab's gRPC C++ row does.
func kindOf(err error) outcome {
	if err == nil {
		return outcome{kind: "ok"}
	}
	s := status.Convert(err)
	detail := fmt.Sprintf("gRPC status %d: %s", int(s.Code()), s.Message())
	switch s.Code() {
	case codes.DeadlineExceeded:
		return outcome{"timeout", detail}
	case codes.Unavailable, codes.Unimplemented:
		return outcome{"unavailable", detail}
	case codes.ResourceExhausted, codes.InvalidArgument:
		return outcome{"cannot_code", detail}
	}
	return outcome{"other", detail}
}

type client struct {
	target  string
	timeout time.Duration
	options []grpc.DialOption
	conn    *grpc.ClientConn
}

func (c *client) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

// call makes one call of op; seq numbers NEXT.
func (c *client) call(op string, clientID, seq uint32, payload []byte) outcome {
	if c.conn == nil {
		conn, err := grpc.Dial(c.target, c.options...)
		if err != nil {
			return outcome{"unavailable", err.Error()}
		}
		c.conn = conn
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	method := "/" + wire.Service + "/"
	switch op {
	case "next":
		var reply wire.NextReply
		return kindOf(c.conn.Invoke(ctx, method+"Next", &wire.NextRequest{ClientID: clientID, Seq: seq}, &reply))
	case "echo":
		var reply wire.EchoMessage
		o := kindOf(c.conn.Invoke(ctx, method+"Echo", &wire.EchoMessage{Payload: payload}, &reply))
		if o.kind == "ok" && !bytes.Equal(reply.Payload, payload) {
			o = outcome{"other", "the ECHO reply differs from the request"}
		}
		return o
	}
	return kindOf(c.conn.Invoke(ctx, method+"Null", &wire.Empty{}, &wire.Empty{}))
}

type attempt struct {
	outcome
	latencyNs, startNs int64
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(s) }

func micros(tv syscall.Timeval) int64 { return tv.Sec*1000000 + tv.Usec }

func main() {
	flags := flag.NewFlagSet(program, flag.ContinueOnError)
	server := flags.String("server", "", "ADDR:PORT of the server")
	calls := flags.Int64("calls", 1000, "recorded calls (a cap with --duration)")
	clientID := flags.Uint("client-id", 1, "the client id NEXT carries")
	firstSeq := flags.Uint("first-seq", 0, "the first NEXT's seq")
	op := flags.String("op", "next", "next, echo or null")
	size := flags.Int64("size", 0, "ECHO's payload bytes")
	warmup := flags.Int64("warmup", 0, "unrecorded calls first (NULL where --op is next)")
	connect := flags.String("connect", "persistent", "persistent or per-call")
	recordPath := flags.String("record", "", "the call record to write")
	timeoutMs := flags.Int64("timeout", 0, "per-call deadline in ms (default 25000)")
	policy := flags.String("retry-policy", "none", "none, library or app")
	retries := flags.Int("app-retries", 3, "app: more attempts after the first")
	backoffMs := flags.Int64("app-backoff", 50, "app: the first wait, ms")
	backoffMaxMs := flags.Int64("app-backoff-max", 1000, "app: the longest wait, ms")
	durationMs := flags.Int64("duration", 0, "stop starting calls after this many ms")
	startAt := flags.Int64("start-at", 0, "CLOCK_REALTIME ns of the first recorded call")
	startGate := flags.String("start-gate", "", "a folder whose start gate the recorded calls begin behind")
	if err := flags.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	switch {
	case flags.NArg() > 0:
		usage("unexpected argument %q", flags.Arg(0))
	case *server == "":
		usage("--server is required")
	case *recordPath == "":
		usage("--record is required")
	case *op != "next" && *op != "echo" && *op != "null":
		usage("--op: this adapter carries next, echo and null")
	case *connect != "persistent" && *connect != "per-call":
		usage("--connect: persistent or per-call")
	case *policy != "none" && *policy != "library" && *policy != "app":
		usage("--retry-policy: none, library or app")
	case *calls < 1 || *size < 0 || *size > 16<<20 || *timeoutMs < 0 || *retries < 0:
		usage("a value out of range")
	}

	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		stopped.Store(true)
	}()

	timeout := time.Duration(*timeoutMs) * time.Millisecond
	if *timeoutMs == 0 {
		timeout = defaultTimeoutMs * time.Millisecond
	}
	c := &client{target: *server, timeout: timeout, options: []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(wire.Codec{}), grpc.MaxCallRecvMsgSize(maxMessage),
			grpc.MaxCallSendMsgSize(maxMessage)),
	}}
	if *policy == "library" {
		c.options = append(c.options, grpc.WithDefaultServiceConfig(retryServiceConfig))
	}
	perCall := *connect == "per-call"
	var payload []byte
	if *op == "echo" {
		payload = bytes.Repeat([]byte{'x'}, int(*size))
	}
	warmOp := *op
	if warmOp == "next" {
		warmOp = "null" // warm-ups stay out of the ledger
	}
	for i := int64(0); i < *warmup && !stopped.Load(); i++ {
		c.call(warmOp, uint32(*clientID), uint32(*firstSeq), payload)
		if perCall {
			c.close()
		}
	}
	if *startAt != 0 {
		time.Sleep(time.Until(time.Unix(0, *startAt)))
	}
	if *startGate != "" {
		if err := waitAtStartGate(*startGate, 10*time.Minute); err != nil {
			fmt.Fprintf(os.Stderr, "grpc-go-client: start gate %s: %v\n", *startGate, err)
			os.Exit(3)
		}
	}

	var lines strings.Builder
	outcomes := map[string]uint64{}
	var made, ok uint64
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	t0 := time.Now() // monotonic within the process
	started := t0.UnixNano()
	for i := int64(0); i < *calls && !stopped.Load(); i++ {
		if *durationMs != 0 && time.Since(t0) >= time.Duration(*durationMs)*time.Millisecond {
			break
		}
		seq := uint32(i)
		if *op == "next" {
			seq = uint32(*firstSeq) + uint32(i)
		}
		var attempts []attempt
		wait := time.Duration(*backoffMs) * time.Millisecond
		for a := 0; ; a++ {
			s := time.Now()
			o := c.call(*op, uint32(*clientID), seq, payload)
			if perCall {
				c.close()
			}
			attempts = append(attempts, attempt{o, int64(time.Since(s)), int64(s.Sub(t0))})
			retried := o.kind == "timeout" || o.kind == "unavailable" || o.kind == "cannot_send" || o.kind == "cannot_receive"
			if *policy != "app" || !retried || a >= *retries || stopped.Load() {
				break
			}
			time.Sleep(wait)
			if wait *= 2; wait > time.Duration(*backoffMaxMs)*time.Millisecond {
				wait = time.Duration(*backoffMaxMs) * time.Millisecond
			}
			c.close() // the application's loop: a new connection, the same call again
		}
		first, last := attempts[0], attempts[len(attempts)-1]
		made++
		outcomes[last.kind]++
		if last.kind == "ok" {
			ok++
		}
		fmt.Fprintf(&lines, "%d\t%s\t%d\t%d\t%d", seq, last.kind, last.startNs+last.latencyNs-first.startNs,
			first.startNs, len(attempts))
		if last.detail != "" {
			lines.WriteString("\t" + oneLine(last.detail))
		}
		lines.WriteString("\n")
		if len(attempts) > 1 {
			for n, at := range attempts {
				fmt.Fprintf(&lines, "+%d\t%s\t%d\t%d", n+1, at.kind, at.latencyNs, at.startNs)
				if at.detail != "" {
					lines.WriteString("\t" + oneLine(at.detail))
				}
				lines.WriteString("\n")
			}
		}
	}
	wall := int64(time.Since(t0))
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	c.close()

	kinds := make([]string, 0, len(outcomes))
	for k := range outcomes {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	counts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		counts = append(counts, strconv.Quote(k)+":"+strconv.FormatUint(outcomes[k], 10))
	}
	text := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var h strings.Builder
	fmt.Fprintf(&h, `{"format":"rpclab-call-record","version":2,"transport":"grpc-go","server":%s,"connect":%s,`,
		text(*server), text(*connect))
	fmt.Fprintf(&h, `"op":%s,"client_id":%d,"size":%d,"calls_planned":%d,"calls_made":%d,"warmup":%d,"interrupted":%t,`,
		text(*op), *clientID, *size, *calls, made, *warmup, stopped.Load() && made < uint64(*calls))
	if *durationMs != 0 {
		fmt.Fprintf(&h, `"duration_ms":%d,`, *durationMs)
	}
	fmt.Fprintf(&h, `"start_realtime_ns":%d,"end_realtime_ns":%d,"wall_ns":%d,"cpu_user_us":%d,"cpu_sys_us":%d,`,
		started, started+wall, wall, micros(after.Utime)-micros(before.Utime), micros(after.Stime)-micros(before.Stime))
	fmt.Fprintf(&h, `"outcomes":{%s},"retry":{"policy":%s,"library":%s},`, strings.Join(counts, ","), text(*policy),
		text(libraryRetry))
	retryTimeout := -1
	fmt.Fprintf(&h, `"settings":{"timeout_ms":%d,"timeout_is_default":%t,"retry_timeout_ms":%d,"retry_is_default":true,`+
		`"max_payload":16777216,"library":%s},"pid":%d}`+"\n", timeout.Milliseconds(), *timeoutMs == 0, retryTimeout,
		text("gRPC-Go "+grpc.Version), os.Getpid())

	tmp := *recordPath + ".tmp"
	if err := os.WriteFile(tmp, []byte(h.String()+lines.String()), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot write the record %s: %v\n", program, *recordPath, err)
		os.Exit(1)
	}
	if err := os.Rename(tmp, *recordPath); err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot write the record %s: %v\n", program, *recordPath, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "%s: %s x%d, %d ok\n", program, *op, made, ok)
	if ok == 0 {
		os.Exit(1)
	}
}

// waitAtStartGate passes the start gate of docs/adapters.md: start-go
// opened first (so the harness's byte has its reader), ready said on
// start-ready, then one byte read from start-go, in 100 ms slices so a
// SIGTERM is seen.
func waitAtStartGate(dir string, within time.Duration) error {
	gate, err := os.OpenFile(filepath.Join(dir, "start-go"), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer gate.Close()
	ready, err := os.OpenFile(filepath.Join(dir, "start-ready"), os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	_, err = ready.Write([]byte{'r'})
	ready.Close()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(within)
	b := make([]byte, 1)
	for !stopped.Load() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not opened within %v", within)
		}
		if err := gate.SetReadDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
			return err
		}
		n, err := gate.Read(b)
		if n == 1 {
			return nil
		}
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return err // io.EOF: closed without letting the client go
		}
	}
	return nil
}
