package main

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"strconv"
	"time"
)

// outcome is what became of one request.
type outcome int

const (
	succeeded outcome = iota // a 2xx answer, read whole
	non2xx                   // an answer with another status
	failed                   // a connection or protocol error
	timedOut                 // no whole answer within --timeout
)

var errProtocol = errors.New("malformed HTTP response")

// client is one HTTP/1.1 connection: a request is written whole, its answer read whole
// (Content-Length framing, which both servers use), the connection kept while both sides
// keep it alive.
type client struct {
	cfg     *config
	request []byte
	conn    net.Conn
	reader  *bufio.Reader
}

func newClient(cfg *config) *client {
	connection := ""
	if !cfg.keepAlive {
		connection = "Connection: close\r\n"
	}
	request := "GET " + cfg.path + " HTTP/1.1\r\nHost: " + cfg.host + "\r\nUser-Agent: latlab-hdr-load\r\n" + connection + "\r\n"
	return &client{cfg: cfg, request: []byte(request)}
}

// do sends one request and reads its answer; a new connection is opened first when none is
// open (so without keep-alive the time includes the connect, as ab's does).
func (c *client) do() outcome {
	deadline := time.Now().Add(c.cfg.timeout)
	if c.conn == nil {
		conn, err := net.DialTimeout("tcp", c.cfg.host, c.cfg.timeout)
		if err != nil {
			return classify(err)
		}
		c.conn = conn
		if c.reader == nil {
			c.reader = bufio.NewReaderSize(conn, 4096)
		} else {
			c.reader.Reset(conn)
		}
	}
	if err := c.conn.SetDeadline(deadline); err != nil {
		c.close()
		return failed
	}
	if _, err := c.conn.Write(c.request); err != nil {
		c.close()
		return classify(err)
	}
	status, keepAlive, err := readResponse(c.reader)
	if err != nil {
		c.close()
		return classify(err)
	}
	if !keepAlive || !c.cfg.keepAlive {
		c.close()
	}
	if status < 200 || status > 299 {
		return non2xx
	}
	return succeeded
}

func (c *client) close() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
}

func classify(err error) outcome {
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return timedOut
	}
	return failed
}

// readResponse reads one answer: its status, whether the server keeps the connection, and
// its body (discarded).
func readResponse(r *bufio.Reader) (status int, keepAlive bool, err error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	if len(line) < 14 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, false, errProtocol
	}
	keepAlive = line[7] == '1' // HTTP/1.1 keeps it unless told otherwise; 1.0 only when told
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, false, errProtocol
	}
	length := -1
	for {
		line, err = r.ReadSlice('\n')
		if err != nil {
			return 0, false, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			return 0, false, errProtocol
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			length, err = strconv.Atoi(string(value))
			if err != nil || length < 0 {
				return 0, false, errProtocol
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
		return 0, false, errProtocol // both servers frame every answer with Content-Length
	}
	if _, err := r.Discard(length); err != nil {
		return 0, false, err
	}
	return status, keepAlive, nil
}
