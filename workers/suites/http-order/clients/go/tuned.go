package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"time"
)

// tunedLibrary is --library tuned, the default: each worker writes its orders and reads their
// answers with net/http's own codec (Request.Write, ReadResponse) on a keep-alive connection it
// alone uses, as the other clients' workers do. http.Client and its Transport (usual.go) hand
// every order to two goroutines of the connection's and back, and arm a timer for it: on a
// host the client shares with the server, that was some 40 % of the client's CPU per order
// (bench/loadgen_fidelity.sh).
func tunedLibrary(cfg config) func() exchanger {
	request, err := http.NewRequest(http.MethodPost, cfg.url, nil)
	if err != nil {
		panic(err) // cfg.url was checked by parseArgs
	}
	request.Header.Set("Content-Type", "application/json")
	return func() exchanger { return &tunedConn{request: request} }
}

// tunedConn is one worker's connection and buffers.
type tunedConn struct {
	request *http.Request // the order's method, URL and headers, parsed once
	conn    *connection   // nil until the first order, and after a failed one
	body    bytes.Buffer  // the last response, reused
}

// connection is a worker's keep-alive connection, with net/http's buffers around it.
type connection struct {
	net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

// exchange sends one order by `limit` and judges its answer, read whole. It keeps the
// connection when the answer was read whole and the server did not ask to close; an order that
// fails or runs out of time closes it, and the next one dials afresh.
func (t *tunedConn) exchange(body []byte, limit time.Time) (outcome, error) {
	out, err := t.roundTrip(body, limit)
	if err != nil && t.conn != nil {
		t.conn.Close()
		t.conn = nil
	}
	return out, err
}

func (t *tunedConn) roundTrip(body []byte, limit time.Time) (outcome, error) {
	if t.conn == nil {
		conn, err := (&net.Dialer{Deadline: limit}).Dial("tcp", t.request.URL.Host)
		if err != nil {
			return failed, err
		}
		t.conn = &connection{conn, bufio.NewReader(conn), bufio.NewWriter(conn)}
	}
	c := t.conn
	if err := c.SetDeadline(limit); err != nil {
		return failed, err
	}
	req := *t.request // a shallow copy: the URL and headers are only read
	req.ContentLength = int64(len(body))
	req.Body = io.NopCloser(bytes.NewReader(body))
	if err := req.Write(c.w); err != nil {
		return failed, err
	}
	if err := c.w.Flush(); err != nil {
		return failed, err
	}
	resp, err := http.ReadResponse(c.r, &req)
	if err != nil {
		return failed, err
	}
	t.body.Reset()
	_, err = t.body.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		return failed, err
	}
	if resp.Close {
		err = errServerClosed
	}
	if resp.StatusCode != http.StatusOK || !isSuccess(t.body.Bytes()) {
		return failed, err
	}
	return succeeded, err
}

// errServerClosed: the server answered and asked to close the connection.
var errServerClosed = errors.New("server closed the connection")
