// A tiny HTTP server for latlab's k6 adapter golden files: answers every request with the
// checksum of a 4 KiB buffer; -rounds N repeats that work (the "slower build").
//
//	go run server.go -listen 127.0.0.1:18391 -rounds 1
package main

import (
	"flag"
	"fmt"
	"hash/crc32"
	"log"
	"net/http"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:18391", "address to listen on")
	rounds := flag.Int("rounds", 1, "checksum rounds per request")
	flag.Parse()
	data := make([]byte, 4096)
	for i := range data {
		data[i] = byte(i * 31)
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		var sum uint32
		for i := 0; i < *rounds; i++ {
			sum += crc32.ChecksumIEEE(data)
		}
		fmt.Fprintf(w, "%d\n", sum)
	})
	log.Fatal(http.ListenAndServe(*listen, nil))
}
