package main

import (
	"bytes"
	"errors"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// A loop is one epoll event loop on its own OS thread, owning some of the connections. It
// takes their readiness in the order the kernel reports it, so each connection gets its turn,
// as in wrk. (A goroutine per connection does not: a goroutine whose answer is already there
// when it reads never parks, and runs a whole time slice of requests while the others wait,
// which shows as a p99 of the load generator's own making against a fast server.)
type loop struct {
	plan    *plan
	epfd    int
	timerfd int // open loop: fires when the next request is due
	conns   map[int32]*conn
	tally   tally

	// Closed loop: connections still sending.
	active int
	// Connections whose request failed: they go on in the next iteration, so a server that
	// refuses connections is retried every few milliseconds, not in a tight recursion.
	retry []*conn
	// Requests written and not yet answered.
	inflight int

	// Open loop: requests due and not yet handed out, connections free to take one, the
	// loop's next request (it takes every plan.loops-th request of the schedule).
	queue   []int64
	free    []*conn
	next    int64
	stopped bool
}

type connState int

const (
	closed     connState = iota // no socket
	connecting                  // connect in progress
	idle                        // connected, nothing in flight (open loop: free)
	waiting                     // request written, answer not complete
)

type conn struct {
	fd       int
	state    connState
	begin    int64 // ns: the latency's start (closed loop: before sending or connecting; open: due)
	sent     int64 // ns: the request written (the uncorrected latency's start)
	measured bool  // the request counts (not warm-up)
	buffer   []byte
	filled   int
}

var errProtocol = errors.New("malformed HTTP response")

func newLoop(p *plan) (*loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	l := &loop{plan: p, epfd: epfd, timerfd: -1, conns: map[int32]*conn{}, tally: newTally()}
	if p.cfg.rate > 0 {
		l.timerfd, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
		if err != nil {
			return nil, err
		}
		event := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(l.timerfd)}
		if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, l.timerfd, &event); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// run drives the loop's `count` connections until the window closes and nothing is in
// flight (bounded by --timeout past the window).
func (l *loop) run(count int, index int64) {
	defer l.close()
	l.next = index
	for i := 0; i < count; i++ {
		c := &conn{fd: -1, buffer: make([]byte, 4096)}
		if l.plan.cfg.rate > 0 {
			l.connect(c, l.plan.now())
		} else {
			l.active++
			l.startRequest(c)
		}
	}
	if l.plan.cfg.rate > 0 {
		l.pump()
	}
	events := make([]unix.EpollEvent, 256)
	lastScan := l.plan.now()
	for !l.finished() {
		n, err := unix.EpollWait(l.epfd, events, 10)
		if err != nil && err != unix.EINTR {
			panic(err)
		}
		retry := l.retry
		l.retry = nil
		for _, c := range retry {
			l.afterRequest(c)
		}
		if n < 0 {
			n = 0
		}
		for _, event := range events[:n] {
			if int(event.Fd) == l.timerfd {
				var expirations [8]byte
				_, _ = unix.Read(l.timerfd, expirations[:])
				l.pump()
				continue
			}
			if c := l.conns[event.Fd]; c != nil {
				l.ready(c, event.Events)
			}
		}
		if now := l.plan.now(); now-lastScan >= int64(10*time.Millisecond) {
			lastScan = now
			l.expire(now)
			if l.plan.cfg.rate > 0 {
				l.pump()
			}
		}
	}
}

func (l *loop) finished() bool {
	if l.plan.cfg.rate == 0 {
		return l.active == 0
	}
	return l.stopped && l.inflight == 0
}

// startRequest (closed loop) sends the connection's next request, connecting first when it
// has no socket, or retires it when the window closed or --requests were all taken.
func (l *loop) startRequest(c *conn) {
	now := l.plan.now()
	if now >= l.plan.measureEnd {
		l.retire(c)
		return
	}
	c.measured = now >= l.plan.measureStart
	if c.measured && l.plan.cfg.requests > 0 && l.plan.taken.Add(1) > l.plan.cfg.requests {
		l.retire(c)
		return
	}
	c.begin = now
	if c.fd < 0 {
		l.connect(c, now)
		return
	}
	l.send(c)
}

func (l *loop) retire(c *conn) {
	l.drop(c)
	l.active--
}

// connect opens a non-blocking connection; readiness for writing says it is done.
func (l *loop) connect(c *conn, now int64) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		l.fail(c, failed)
		return
	}
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	c.fd, c.state, c.filled = fd, connecting, 0
	if c.begin == 0 {
		c.begin = now
	}
	l.conns[int32(fd)] = c
	event := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(fd)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &event); err != nil {
		l.fail(c, failed)
		return
	}
	if err := unix.Connect(fd, l.plan.address); err != nil && err != unix.EINPROGRESS {
		l.fail(c, failed)
	}
}

// send writes the request whole: it is a few dozen bytes into an empty socket buffer, so a
// short write means the connection is broken.
func (l *loop) send(c *conn) {
	c.sent = l.plan.now()
	c.state, c.filled = waiting, 0
	l.inflight++
	if n, err := unix.Write(c.fd, l.plan.request); err != nil || n != len(l.plan.request) {
		l.fail(c, failed)
	}
}

func (l *loop) ready(c *conn, events uint32) {
	switch c.state {
	case connecting:
		if events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		if soErr, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || soErr != 0 {
			l.fail(c, failed)
			return
		}
		if l.plan.cfg.rate > 0 {
			c.state, c.begin = idle, 0
			l.free = append(l.free, c)
			l.pump()
			return
		}
		l.send(c)
	case waiting:
		l.receive(c)
	}
}

// receive reads until the answer is whole or the socket is drained (the edge-triggered
// contract), then records it.
func (l *loop) receive(c *conn) {
	for {
		if c.filled == len(c.buffer) {
			c.buffer = append(c.buffer, make([]byte, len(c.buffer))...)
		}
		n, err := unix.Read(c.fd, c.buffer[c.filled:])
		if err == unix.EAGAIN {
			return
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			l.fail(c, failed)
			return
		}
		c.filled += n
		status, keepAlive, complete, err := parseResponse(c.buffer[:c.filled])
		if err != nil {
			l.fail(c, failed)
			return
		}
		if complete {
			l.answered(c, status, keepAlive)
			return
		}
	}
}

func (l *loop) answered(c *conn, status int, keepAlive bool) {
	now := l.plan.now()
	out := succeeded
	if status < 200 || status > 299 {
		out = non2xx
	}
	if c.measured {
		l.tally.record(out, now-c.begin, now-c.sent, now-l.plan.measureStart, l.plan.sampleCap)
	}
	l.inflight--
	c.state, c.begin = idle, 0
	if !keepAlive || !l.plan.cfg.keepAlive {
		l.drop(c)
	}
	l.afterRequest(c)
}

// fail counts a measured request as failed or timed out and closes the connection; it goes
// on in the next iteration.
func (l *loop) fail(c *conn, out outcome) {
	if c.measured {
		l.tally.count(out)
	}
	if c.state == waiting {
		l.inflight--
	}
	l.drop(c)
	c.begin = 0
	l.retry = append(l.retry, c)
}

func (l *loop) afterRequest(c *conn) {
	c.measured = false
	if l.plan.cfg.rate == 0 {
		l.startRequest(c)
		return
	}
	if l.stopped {
		l.drop(c)
		return
	}
	if c.fd < 0 {
		l.connect(c, l.plan.now())
		return
	}
	l.free = append(l.free, c)
	l.pump()
}

func (l *loop) drop(c *conn) {
	if c.fd >= 0 {
		delete(l.conns, int32(c.fd))
		_ = unix.Close(c.fd) // closing removes it from the epoll set
		c.fd = -1
	}
	c.state = closed
}

// expire fails the requests past --timeout.
func (l *loop) expire(now int64) {
	for _, c := range l.conns {
		if (c.state == waiting || c.state == connecting) && c.begin != 0 &&
			now-c.begin > int64(l.plan.cfg.timeout) {
			l.fail(c, timedOut)
		}
	}
}

// pump (open loop) queues the requests now due, hands queued ones to free connections, and
// arms the timer for the next due one. Past the window nothing more is sent: requests not
// sent by then are not counted.
func (l *loop) pump() {
	if l.stopped {
		return
	}
	now := l.plan.now()
	if now >= l.plan.measureEnd {
		l.stopped = true
		l.queue = nil
		for _, c := range l.free {
			l.drop(c)
		}
		l.free = nil
		return
	}
	for l.next < l.plan.total {
		due := l.plan.due(l.next)
		if due > now {
			break
		}
		l.queue = append(l.queue, l.next)
		l.next += l.plan.loops
	}
	for len(l.queue) > 0 && len(l.free) > 0 {
		j, c := l.queue[0], l.free[0]
		l.queue, l.free = l.queue[1:], l.free[1:]
		c.begin = l.plan.due(j)
		c.measured = j >= l.plan.warmupCount
		if c.measured {
			l.tally.sent++
		}
		l.send(c)
	}
	wake := l.plan.measureEnd
	if l.next < l.plan.total && l.plan.due(l.next) < wake {
		wake = l.plan.due(l.next)
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(wake)}
	_ = unix.TimerfdSettime(l.timerfd, unix.TFD_TIMER_ABSTIME, &spec, nil)
}

func (l *loop) close() {
	for _, c := range l.conns {
		l.drop(c)
	}
	if l.timerfd >= 0 {
		_ = unix.Close(l.timerfd)
	}
	_ = unix.Close(l.epfd)
}

// parseResponse reads one answer at the start of b: its status, whether the server keeps the
// connection, and whether it is whole (Content-Length framing, which both servers use).
func parseResponse(b []byte) (status int, keepAlive, complete bool, err error) {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		if len(b) > 64<<10 {
			return 0, false, false, errProtocol
		}
		return 0, false, false, nil
	}
	lines := bytes.Split(b[:end], []byte("\r\n"))
	first := lines[0]
	if len(first) < 12 || !bytes.HasPrefix(first, []byte("HTTP/1.")) || first[8] != ' ' {
		return 0, false, false, errProtocol
	}
	keepAlive = first[7] == '1' // HTTP/1.1 keeps it unless told otherwise; 1.0 only when told
	status, err = strconv.Atoi(string(first[9:12]))
	if err != nil {
		return 0, false, false, errProtocol
	}
	length := -1
	for _, line := range lines[1:] {
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			return 0, false, false, errProtocol
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			length, err = strconv.Atoi(string(value))
			if err != nil || length < 0 {
				return 0, false, false, errProtocol
			}
		case bytes.EqualFold(name, []byte("Connection")):
			if bytes.EqualFold(value, []byte("close")) {
				keepAlive = false
			} else if bytes.EqualFold(value, []byte("keep-alive")) {
				keepAlive = true
			}
		}
	}
	if length < 0 {
		return 0, false, false, errProtocol
	}
	return status, keepAlive, len(b) >= end+4+length, nil
}
