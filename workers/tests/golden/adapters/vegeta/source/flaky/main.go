// flaky: an HTTP server that fails most requests, for the load generators' failure goldens.
// Of every `-every` requests it answers one with 200 and the others with `-status`, after
// `-delay` (the failing ones at once, so failures are the fast requests).
package main

import (
	"flag"
	"log"
	"net/http"
	"sync/atomic"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:28460", "address to listen on")
	every := flag.Int64("every", 4, "one request of this many succeeds")
	status := flag.Int("status", http.StatusServiceUnavailable, "status of the others")
	delay := flag.Duration("delay", time.Millisecond, "time a successful request takes")
	flag.Parse()
	var served atomic.Int64
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1)%*every != 0 {
			w.WriteHeader(*status)
			_, _ = w.Write([]byte("unavailable\n"))
			return
		}
		time.Sleep(*delay)
		_, _ = w.Write([]byte("ok\n"))
	})
	log.Fatal(http.ListenAndServe(*listen, nil))
}
