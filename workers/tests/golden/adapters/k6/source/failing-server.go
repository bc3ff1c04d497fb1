// A failing target for latlab's k6 adapter golden files: of every 20 requests, 19 get a
// 500 at once and one a 200 after a slow answer (500 ms + 75 ms x (n mod 21)), so 95 % of
// the requests fail fast and the few successes are slow.
//
//	go run failing-server.go -listen 127.0.0.1:27432
package main

import (
	"flag"
	"log"
	"net/http"
	"sync/atomic"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27432", "address to listen on")
	flag.Parse()
	var served atomic.Int64
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		n := served.Add(1)
		if n%20 != 0 {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte("overloaded\n"))
			return
		}
		time.Sleep(500*time.Millisecond + time.Duration(n/20%21)*75*time.Millisecond)
		_, _ = w.Write([]byte("ok\n"))
	})
	log.Fatal(http.ListenAndServe(*listen, nil))
}
