package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"time"
)

// usualLibrary is --library usual: every worker sends its orders through one shared
// http.Client, as a Go programmer writes a client (the user's original report did): a
// request per order with a context deadline, client.Do, the body read whole. Its Transport
// keeps at most C connections to the server, so the C workers hold at most C between them; a
// connection is the pool's, not a worker's, and the Transport's own goroutines read and write
// it (unpinned by --pin-cpus, which pins the workers). An order that fails or runs out of time
// leaves its connection to the Transport, which closes it.
func usualLibrary(cfg config) func() exchanger {
	c := cfg.connections
	client := &usualClient{url: cfg.url, client: &http.Client{Transport: &http.Transport{
		Proxy:               nil, // the order server itself, whatever the environment says
		DialContext:         (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        c,
		MaxIdleConnsPerHost: c,
		MaxConnsPerHost:     c,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // the request on the wire as the other clients send it
	}}}
	return func() exchanger { return client } // http.Client is safe for concurrent use
}

// usualClient is the one http.Client every worker shares.
type usualClient struct {
	url    string // the order endpoint
	client *http.Client
}

func (u *usualClient) exchange(body []byte, limit time.Time) (outcome, error) {
	ctx, cancel := context.WithDeadline(context.Background(), limit)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.url, bytes.NewReader(body))
	if err != nil {
		return failed, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := u.client.Do(req)
	if err != nil {
		return failed, deadlineOr(ctx, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return failed, deadlineOr(ctx, err)
	}
	if resp.StatusCode != http.StatusOK || !isSuccess(answer) {
		return failed, nil
	}
	return succeeded, nil
}

// deadlineOr is the order's error: the context's when its deadline has passed, whatever words
// the Transport wrapped it in, so the order counts as a timeout.
func deadlineOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
