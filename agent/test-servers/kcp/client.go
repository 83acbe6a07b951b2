package main

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"os"
	"sort"
	"sync"
	"time"

	kcp "github.com/xtaci/kcp-go/v5"
)

// clientRun is the kcp-go side of a latency comparison: clients that ping an echo server as Throng's ping-pong
// does, one ping in flight each (a ping due while the last is unanswered is skipped), the send time in the ping.
type clientRun struct {
	addr     string
	clients  int
	interval time.Duration
	duration time.Duration
	size     int
}

func (c *clientRun) flags(set *flag.FlagSet) {
	set.StringVar(&c.addr, "addr", "", "echo server, host:port")
	set.IntVar(&c.clients, "clients", 10, "clients, each its own session")
	set.DurationVar(&c.interval, "interval", 100*time.Millisecond, "time between pings")
	set.DurationVar(&c.duration, "duration", 10*time.Second, "how long to ping")
	set.IntVar(&c.size, "size", 64, "bytes per ping (at least 16)")
}

// result is printed as one JSON line on stdout.
type result struct {
	Sent        int     `json:"sent"`
	Received    int     `json:"received"`
	Skipped     int     `json:"skipped"`
	Unanswered  int     `json:"unanswered"`
	P50Ms       float64 `json:"p50Ms"`
	P99Ms       float64 `json:"p99Ms"`
	MaxMs       float64 `json:"maxMs"`
	Retransmits uint64  `json:"retransmits"`
	FastRetrans uint64  `json:"fastRetransmits"`
	RtoExpiries uint64  `json:"rtoExpiries"`
	OutBytes    uint64  `json:"wireBytesSent"`
	InBytes     uint64  `json:"wireBytesReceived"`
}

func (c *clientRun) run(t *tuning) {
	if c.addr == "" || c.size < 16 {
		fail("client needs -addr and a -size of at least 16")
	}
	var mu sync.Mutex
	var all result
	var rtts []float64
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < c.clients; i++ {
		wg.Add(1)
		go func(phase time.Duration) {
			defer wg.Done()
			sent, received, skipped, unanswered, mine := c.ping(t, start.Add(phase))
			mu.Lock()
			all.Sent += sent
			all.Received += received
			all.Skipped += skipped
			all.Unanswered += unanswered
			rtts = append(rtts, mine...)
			mu.Unlock()
		}(time.Duration(i) * c.interval / time.Duration(c.clients))
	}
	wg.Wait()
	sort.Float64s(rtts)
	if n := len(rtts); n > 0 {
		all.P50Ms, all.P99Ms, all.MaxMs = rtts[n*50/100], rtts[min(n-1, n*99/100)], rtts[n-1]
	}
	snmp := kcp.DefaultSnmp.Copy()
	all.Retransmits, all.FastRetrans, all.RtoExpiries = snmp.RetransSegs, snmp.FastRetransSegs+snmp.EarlyRetransSegs, snmp.LostSegs
	all.OutBytes, all.InBytes = snmp.OutBytes, snmp.InBytes
	json.NewEncoder(os.Stdout).Encode(all)
}

// ping runs one client: a ping every interval from `first`, the echo timed by the send time it carries.
func (c *clientRun) ping(t *tuning, first time.Time) (sent, received, skipped, unanswered int, rtts []float64) {
	s, err := kcp.DialWithOptions(c.addr, nil, 0, 0)
	if err != nil {
		fail("dial %s: %v", c.addr, err)
	}
	defer s.Close()
	t.apply(s)
	answered := make(chan float64, 1)
	go func() {
		buf := make([]byte, 1<<16)
		for {
			n, err := s.Read(buf)
			if err != nil || n < 8 {
				return
			}
			answered <- float64(time.Since(time.Unix(0, int64(binary.LittleEndian.Uint64(buf))))) / float64(time.Millisecond)
		}
	}()
	time.Sleep(time.Until(first))
	ticker := time.NewTicker(c.interval)
	defer ticker.Stop()
	end := time.After(c.duration)
	ping := make([]byte, c.size)
	waiting := false
	for {
		select {
		case rtt := <-answered:
			waiting = false
			received++
			rtts = append(rtts, rtt)
		case <-ticker.C:
			if waiting {
				skipped++
				continue
			}
			binary.LittleEndian.PutUint64(ping, uint64(time.Now().UnixNano()))
			if _, err := s.Write(ping); err != nil {
				return
			}
			sent++
			waiting = true
		case <-end:
			if waiting {
				unanswered++
			}
			return
		}
	}
}
