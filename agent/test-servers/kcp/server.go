package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	kcp "github.com/xtaci/kcp-go/v5"
)

// A session idle this long is gone (KCP has no close): it leaves its rooms.
const idleTimeout = 30 * time.Second

func serve(kind, address string, t *tuning) {
	listener, err := kcp.ListenWithOptions(address, nil, 0, 0)
	if err != nil {
		fail("listen %s: %v", address, err)
	}
	fmt.Printf("listening %s\n", listener.Addr())
	rooms := newRooms()
	for {
		s, err := listener.AcceptKCP()
		if err != nil {
			fail("accept: %v", err)
		}
		t.apply(s)
		if kind == "echo" {
			go echo(s, t.stream)
		} else {
			go roomPeer(s, t.stream, rooms)
		}
	}
}

// echo sends back each message as it came (message mode), or the bytes as read (stream mode). A message that
// starts with "size?" is answered "size=N" instead, N its length as kcp-go read it: one message, however many
// fragments it came in.
func echo(s *kcp.UDPSession, stream bool) {
	defer s.Close()
	eachRead(s, func(read []byte) bool {
		if !stream && strings.HasPrefix(string(read[:min(len(read), 5)]), "size?") {
			s.Write([]byte(fmt.Sprintf("size=%d", len(read))))
			return true
		}
		_, err := s.Write(read)
		return err == nil
	})
}

// eachRead calls handle with what each read returns (valid until handle returns), renewing the idle deadline
// before every read, until a read fails or handle returns false.
func eachRead(s *kcp.UDPSession, handle func([]byte) bool) {
	buf := make([]byte, 1<<20)
	for {
		s.SetReadDeadline(time.Now().Add(idleTimeout))
		n, err := s.Read(buf)
		if err != nil || !handle(buf[:n]) {
			return
		}
	}
}

type rooms struct {
	mu      sync.Mutex
	members map[int]map[*kcp.UDPSession]func([]byte)
}

func newRooms() *rooms { return &rooms{members: map[int]map[*kcp.UDPSession]func([]byte){}} }

type command struct {
	Type string `json:"type"`
	Room int    `json:"room"`
	Seq  int    `json:"seq"`
}

// roomPeer speaks the reference target's JSON: join → joined, move → the same bytes to every other member of the
// room, login → login-ok, anything else echoed. Message mode: one message per KCP message; stream mode: one per line.
func roomPeer(s *kcp.UDPSession, stream bool, r *rooms) {
	joined := map[int]bool{}
	defer func() {
		r.mu.Lock()
		for room := range joined {
			delete(r.members[room], s)
		}
		r.mu.Unlock()
		s.Close()
	}()
	var writeMu sync.Mutex
	send := func(message []byte) {
		writeMu.Lock()
		defer writeMu.Unlock()
		if stream {
			s.Write(append(append([]byte{}, message...), '\n'))
		} else {
			s.Write(message)
		}
	}
	handle := func(message []byte) {
		var c command
		if json.Unmarshal(message, &c) != nil {
			send(message)
			return
		}
		switch c.Type {
		case "join":
			r.mu.Lock()
			if r.members[c.Room] == nil {
				r.members[c.Room] = map[*kcp.UDPSession]func([]byte){}
			}
			r.members[c.Room][s] = send
			r.mu.Unlock()
			joined[c.Room] = true
			send([]byte(fmt.Sprintf(`{"type":"joined","room":%d}`, c.Room)))
		case "move":
			r.mu.Lock()
			others := make([]func([]byte), 0, len(r.members[c.Room]))
			for member, to := range r.members[c.Room] {
				if member != s {
					others = append(others, to)
				}
			}
			r.mu.Unlock()
			relayed := append([]byte{}, message...)
			for _, to := range others {
				to(relayed)
			}
		case "login":
			send([]byte(fmt.Sprintf(`{"type":"login-ok","seq":%d}`, c.Seq)))
		default:
			send(message)
		}
	}
	if stream {
		lines := bufio.NewScanner(deadlineReader{s})
		lines.Buffer(make([]byte, 1<<16), 1<<20)
		for lines.Scan() {
			handle(lines.Bytes())
		}
		return
	}
	eachRead(s, func(message []byte) bool {
		handle(message)
		return true
	})
}

// deadlineReader renews the idle deadline before every read.
type deadlineReader struct{ s *kcp.UDPSession }

func (d deadlineReader) Read(p []byte) (int, error) {
	d.s.SetReadDeadline(time.Now().Add(idleTimeout))
	return d.s.Read(p)
}
