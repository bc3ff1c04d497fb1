package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const validOrder = `{"buy_sell": "buy", "symbol": 2330, "price": 100.0, "quantity": 1000,
	"market_type": "common", "price_type": "limit", "time_in_force": "rod",
	"order_type": "stock", "user_def": "custom_field",
	"client_timestamp": "2024-01-01T10:00:00.000Z"}`

// with is the valid order with one field set to a JSON value.
func with(t *testing.T, name, value string) []byte {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(validOrder), &fields); err != nil {
		t.Fatal(err)
	}
	fields[name] = json.RawMessage(value)
	body, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func TestAcceptsTheSeedsOrder(t *testing.T) {
	got, err := parseOrder([]byte(validOrder))
	if err != nil {
		t.Fatal(err)
	}
	if got.Symbol != "2330" || got.BuySell != "buy" || got.ClientTimestamp != "2024-01-01T10:00:00.000Z" {
		t.Fatalf("parsed %+v", got)
	}
}

func TestNamesTheBadField(t *testing.T) {
	cases := []struct{ name, value string }{
		{"buy_sell", `"hold"`},
		{"symbol", `"2330"`},
		{"symbol", `1.5`},
		{"price", `0`},
		{"price", `-1`},
		{"quantity", `0`},
		{"quantity", `-5`},
		{"quantity", `2.5`},
		{"market_type", `""`},
		{"user_def", `7`},
		{"client_timestamp", `"yesterday"`},
	}
	for _, c := range cases {
		_, err := parseOrder(with(t, c.name, c.value))
		if err == nil || !strings.HasPrefix(err.Error(), c.name+": ") {
			t.Errorf("%s = %s: got %v", c.name, c.value, err)
		}
	}
	for _, body := range []string{`{not json`, `[1, 2]`, `{"a": 1} {}`} {
		if _, err := parseOrder([]byte(body)); err == nil || !strings.HasPrefix(err.Error(), "body: ") {
			t.Errorf("%s: got %v", body, err)
		}
	}
}

func TestReadsISO8601Forms(t *testing.T) {
	for _, raw := range []string{
		"2024-01-01T10:00:00Z",
		"2024-01-01T18:00:00.123456+08:00",
		"2024-01-01T18:00:00+0800",
		"2024-01-01T10:00:00.5",
	} {
		got, err := parseTimestamp(raw)
		if err != nil || got.UTC().Format("2006-01-02") != "2024-01-01" {
			t.Errorf("%s: got %v, %v", raw, got, err)
		}
	}
	if _, err := parseTimestamp("2024-13-01T10:00:00Z"); err == nil {
		t.Error("month 13 accepted")
	}
}

func BenchmarkParseOrder(b *testing.B) {
	body := []byte(validOrder)
	for i := 0; i < b.N; i++ {
		if _, err := parseOrder(body); err != nil {
			b.Fatal(err)
		}
	}
}
