// kcp-test-server: the reference KCP implementation (xtaci/kcp-go) on the other end of Throng's KCP tests.
//
//	kcp-test-server echo   -listen 127.0.0.1:0 [tuning]   sends every message (message mode) or byte (stream mode) back
//	kcp-test-server room   -listen 127.0.0.1:0 [tuning]   join/joined, move relayed to the room, login/login-ok
//	kcp-test-server client -addr HOST:PORT [tuning] ...   kcp-go clients pinging an echo server; prints their latencies
//
// A server prints "listening HOST:PORT" on stdout once it accepts. Tuning flags are kcp-go's own knobs, with
// kcptun's presets by -mode (normal, fast, fast2, fast3).
package main

import (
	"flag"
	"fmt"
	"os"

	kcp "github.com/xtaci/kcp-go/v5"
)

// tuning is what a session is set to, as kcp-go's setters take it.
type tuning struct {
	mode       string
	mtu        int
	sndwnd     int
	rcvwnd     int
	stream     bool
	ackNoDelay bool
}

func (t *tuning) flags(set *flag.FlagSet) {
	set.StringVar(&t.mode, "mode", "fast", "kcptun preset: normal, fast, fast2 or fast3")
	set.IntVar(&t.mtu, "mtu", 1400, "largest datagram")
	set.IntVar(&t.sndwnd, "sndwnd", 32, "send window, segments")
	set.IntVar(&t.rcvwnd, "rcvwnd", 32, "receive window, segments")
	set.BoolVar(&t.stream, "stream", false, "stream mode")
	set.BoolVar(&t.ackNoDelay, "acknodelay", false, "send each ACK at once")
}

// apply sets a session up; kcptun's presets of (nodelay, interval, resend, nc).
func (t *tuning) apply(s *kcp.UDPSession) {
	presets := map[string][4]int{"normal": {0, 40, 2, 1}, "fast": {0, 30, 2, 1}, "fast2": {1, 20, 2, 1}, "fast3": {1, 10, 2, 1}}
	p, ok := presets[t.mode]
	if !ok {
		fail("unknown -mode %q", t.mode)
	}
	s.SetNoDelay(p[0], p[1], p[2], p[3])
	s.SetWindowSize(t.sndwnd, t.rcvwnd)
	if !s.SetMtu(t.mtu) {
		fail("kcp-go refused -mtu %d", t.mtu)
	}
	s.SetStreamMode(t.stream)
	s.SetACKNoDelay(t.ackNoDelay)
	s.SetWriteDelay(false)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "kcp-test-server: "+format+"\n", args...)
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: kcp-test-server echo|room|client [flags]")
	}
	set := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	var t tuning
	t.flags(set)
	switch os.Args[1] {
	case "echo", "room":
		listen := set.String("listen", "127.0.0.1:0", "address to listen on")
		set.Parse(os.Args[2:])
		serve(os.Args[1], *listen, &t)
	case "client":
		var c clientRun
		c.flags(set)
		set.Parse(os.Args[2:])
		c.run(&t)
	default:
		fail("unknown command %q: echo, room or client", os.Args[1])
	}
}
