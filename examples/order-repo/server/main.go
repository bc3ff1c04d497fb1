// Command order-server takes orders over HTTP: POST /order checks an order and answers with
// its one-way latency from the client's timestamp, GET /stats counts the accepted orders, and
// POST /stats/latency hands over the server's own time per order since the last call.
//
// It prints {"listening":"HOST:PORT"} as its first stdout line once it accepts connections,
// and serves until SIGTERM or SIGINT, then exits 0.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// shutdownGrace bounds how long a stop waits for the answers in flight.
const shutdownGrace = 2 * time.Second

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "address to listen on, HOST:PORT (port 0: any free port)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "order-server: unexpected argument %q\n", flag.Arg(0))
		flag.Usage()
		os.Exit(2)
	}
	if err := serve(*listen); err != nil {
		fmt.Fprintf(os.Stderr, "order-server: %v\n", err)
		os.Exit(1)
	}
}

// serve listens, says where, and answers until a stop signal.
func serve(address string) error {
	listener, err := net.Listen("tcp", address)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", address, err)
	}
	// Watch for a stop before saying where we are: a stop right after that ends us cleanly.
	stop, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer cancel()
	if err := announce(listener.Addr().String()); err != nil {
		return err
	}
	server := &http.Server{Handler: newServer().routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-stop.Done()
		ctx, done := context.WithTimeout(context.Background(), shutdownGrace)
		defer done()
		_ = server.Shutdown(ctx)
	}()
	if err := server.Serve(listener); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// announce tells whoever started the server its bound address, as one JSON line on stdout.
func announce(address string) error {
	line, err := json.Marshal(map[string]string{"listening": address})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(os.Stdout, "%s\n", line)
	return err
}
