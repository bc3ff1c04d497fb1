// Command go-server is the zig-http suite's baseline: Go's net/http serving the same routes
// and the same response bytes as the Zig server (README.md), with the same header limit and
// timeouts. Its first stdout line is {"listening": "HOST:PORT", "server": "go"}; SIGTERM
// stops it.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

// helloBody is GET /'s body; the Zig server answers with the same bytes.
const helloBody = "Hello, World!\n"

// maxHeaderBytes is the Zig server's request head buffer; net/http adds 4096 bytes of slack
// to MaxHeaderBytes, so it is given 4096 less.
const maxHeaderBytes = 8192 - 4096

type counters struct {
	requests, open, accepted atomic.Int64
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	headerTimeout := flag.Int("header-timeout-ms", 5000, "time a request head may take")
	idleTimeout := flag.Int("idle-timeout-ms", 60000, "time a keep-alive connection may wait for its next request")
	flag.Parse()
	if *headerTimeout <= 0 || *idleTimeout <= 0 {
		fmt.Fprintln(os.Stderr, "go-server: timeouts must be positive")
		os.Exit(2)
	}

	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-server: %v\n", err)
		os.Exit(1)
	}
	var stats counters
	server := &http.Server{
		Handler:           handler(&stats),
		ReadHeaderTimeout: time.Duration(*headerTimeout) * time.Millisecond,
		// A request's body must arrive within the same time as its head, as in the Zig server.
		ReadTimeout:    time.Duration(*headerTimeout) * time.Millisecond,
		IdleTimeout:    time.Duration(*idleTimeout) * time.Millisecond,
		MaxHeaderBytes: maxHeaderBytes,
		ConnState: func(_ net.Conn, state http.ConnState) {
			switch state {
			case http.StateNew:
				stats.accepted.Add(1)
				stats.open.Add(1)
			case http.StateClosed, http.StateHijacked:
				stats.open.Add(-1)
			}
		},
	}

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = server.Shutdown(ctx)
	}()

	fmt.Printf("{\"listening\": %q, \"server\": \"go\"}\n", listener.Addr().String())
	if err := server.Serve(listener); err != nil && err != http.ErrServerClosed {
		fmt.Fprintf(os.Stderr, "go-server: %v\n", err)
		os.Exit(1)
	}
}

// handler serves GET / and GET /stats; anything else is 404, another method 405. Headers are
// set explicitly (and Date removed) so the bytes on the wire match the Zig server's.
func handler(stats *counters) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		stats.requests.Add(1)
		header := w.Header()
		header["Date"] = nil
		switch {
		case r.URL.Path != "/" && r.URL.Path != "/stats":
			reply(w, http.StatusNotFound, "text/plain; charset=utf-8", "not found\n")
		case r.Method != http.MethodGet:
			header.Set("Allow", "GET")
			reply(w, http.StatusMethodNotAllowed, "text/plain; charset=utf-8", "method not allowed\n")
		case r.URL.Path == "/":
			reply(w, http.StatusOK, "text/plain; charset=utf-8", helloBody)
		default:
			body := fmt.Sprintf("{\"requests\":%d,\"open_connections\":%d,\"accepted_connections\":%d}\n",
				stats.requests.Load(), stats.open.Load(), stats.accepted.Load())
			reply(w, http.StatusOK, "application/json", body)
		}
	}
}

func reply(w http.ResponseWriter, status int, contentType, body string) {
	header := w.Header()
	header.Set("Content-Type", contentType)
	header.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
