package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxOrderBytes bounds an order's body; a real order is about 250 bytes.
const maxOrderBytes = 64 << 10

// orderServer is what every request shares: the counters and the latency window.
type orderServer struct {
	started     time.Time
	totalOrders atomic.Uint64
	// firstOrderNanos is the time from started to the first accepted order, plus one; 0 = none yet.
	firstOrderNanos atomic.Int64

	mu      sync.Mutex
	latency *histogram // the server's own time per accepted order since the last window
}

func newServer() *orderServer {
	return &orderServer{started: time.Now(), latency: newHistogram()}
}

func (s *orderServer) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/order", only(http.MethodPost, s.submitOrder))
	mux.HandleFunc("/stats", only(http.MethodGet, s.stats))
	mux.HandleFunc("/stats/latency", only(http.MethodPost, s.takeLatency))
	return mux
}

// only answers 405 to any method but the one a route takes.
func only(method string, handler http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method {
			w.Header().Set("Allow", method)
			writeJSON(w, http.StatusMethodNotAllowed, errorBody{Error: "method: " + method + " only"})
			return
		}
		handler(w, r)
	}
}

// accepted is the answer to a valid order.
type accepted struct {
	Symbol          json.Number `json:"symbol"`
	BuySell         string      `json:"buy_sell"`
	Status          string      `json:"status"`
	ClientTimestamp string      `json:"client_timestamp"`
	ServerTimestamp string      `json:"server_timestamp"`
	LatencyMs       float64     `json:"latency_ms"`
}

type errorBody struct {
	Error string `json:"error"`
}

// submitOrder is POST /order: a valid order is counted and answered with its latency from the
// client; the time from the request's head to the answer goes into the latency window.
func (s *orderServer) submitOrder(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	order, err := readOrder(w, r)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody{Error: err.Error()})
		return
	}
	serverTime := time.Now().UTC()
	s.countOrder(serverTime)
	writeJSON(w, http.StatusOK, accepted{
		Symbol:          order.Symbol,
		BuySell:         order.BuySell,
		Status:          "SUCCESS",
		ClientTimestamp: order.ClientTimestamp,
		ServerTimestamp: serverTime.Format("2006-01-02T15:04:05.000Z07:00"),
		LatencyMs:       float64(serverTime.Sub(order.ClientTime).Nanoseconds()) / 1e6,
	})
	s.recordLatency(time.Since(start))
}

// readOrder reads the body of POST /order; every failure names its cause for the 400.
func readOrder(w http.ResponseWriter, r *http.Request) (order, error) {
	if contentType := r.Header.Get("Content-Type"); contentType != "" {
		mediaType, _, err := mime.ParseMediaType(contentType)
		if err != nil || !strings.EqualFold(mediaType, "application/json") {
			return order{}, fmt.Errorf("body: Content-Type must be application/json, got %s", contentType)
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxOrderBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return order{}, fmt.Errorf("body: larger than %d bytes", maxOrderBytes)
		}
		return order{}, fmt.Errorf("body: cannot read: %w", err)
	}
	return parseOrder(body)
}

func (s *orderServer) countOrder(now time.Time) {
	if s.totalOrders.Add(1) == 1 {
		// Only the first order reaches here, so the stats clock starts once.
		s.firstOrderNanos.CompareAndSwap(0, now.Sub(s.started).Nanoseconds()+1)
	}
}

func (s *orderServer) recordLatency(elapsed time.Duration) {
	s.mu.Lock()
	s.latency.record(elapsed.Nanoseconds())
	s.mu.Unlock()
}

// stats is GET /stats: accepted orders and their rate since the first one.
func (s *orderServer) stats(w http.ResponseWriter, _ *http.Request) {
	total := s.totalOrders.Load()
	elapsed := 0.0
	if first := s.firstOrderNanos.Load(); first != 0 {
		elapsed = float64(time.Since(s.started).Nanoseconds()-(first-1)) / 1e9
	}
	rate := 0.0
	if elapsed > 0 {
		rate = float64(total) / elapsed
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"total_orders": total, "elapsed_seconds": elapsed, "orders_per_second": rate,
	})
}

// takeLatency is POST /stats/latency: the orders accepted since the last call as a latlab-json
// document (latency_hdr, a compressed HdrHistogram V2 in base64, and metrics.orders); the next
// window starts now.
func (s *orderServer) takeLatency(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	window := s.latency
	s.latency = newHistogram()
	s.mu.Unlock()
	encoded, err := window.encodeBase64()
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: "cannot encode the histogram: " + err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"latency_hdr": encoded,
		"metrics":     map[string]int64{"orders": window.total},
	})
}

// writeJSON sends one compact JSON answer with its Content-Length.
func writeJSON(w http.ResponseWriter, status int, body any) {
	bytes, err := json.Marshal(body)
	if err != nil {
		http.Error(w, "cannot encode the answer: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(bytes)))
	w.WriteHeader(status)
	_, _ = w.Write(bytes)
}
