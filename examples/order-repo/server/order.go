package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// order is a valid order: what the answer echoes and the client's send time.
type order struct {
	Symbol          json.Number
	BuySell         string
	ClientTimestamp string
	ClientTime      time.Time
}

// textFields must be non-empty strings.
var textFields = []string{"market_type", "price_type", "time_in_force", "order_type"}

// parseOrder reads an order from JSON and checks it field by field; an error reads
// "<field>: <reason>".
func parseOrder(body []byte) (order, error) {
	fields, err := decodeObject(body)
	if err != nil {
		return order{}, err
	}
	buySell, err := text(fields, "buy_sell")
	if err != nil {
		return order{}, err
	}
	if buySell != "buy" && buySell != "sell" {
		return order{}, fmt.Errorf("buy_sell: must be \"buy\" or \"sell\", got %q", buySell)
	}
	symbol, err := integer(fields, "symbol", "must be an integer")
	if err != nil {
		return order{}, err
	}
	if err := checkPrice(fields); err != nil {
		return order{}, err
	}
	if err := checkQuantity(fields); err != nil {
		return order{}, err
	}
	for _, name := range textFields {
		value, err := text(fields, name)
		if err != nil {
			return order{}, err
		}
		if value == "" {
			return order{}, fmt.Errorf("%s: must not be empty", name)
		}
	}
	if _, err := text(fields, "user_def"); err != nil {
		return order{}, err
	}
	stamp, err := text(fields, "client_timestamp")
	if err != nil {
		return order{}, err
	}
	clientTime, err := parseTimestamp(stamp)
	if err != nil {
		return order{}, fmt.Errorf("client_timestamp: %w", err)
	}
	return order{Symbol: symbol, BuySell: buySell, ClientTimestamp: stamp, ClientTime: clientTime}, nil
}

// decodeObject reads one JSON object, its numbers kept as written.
func decodeObject(body []byte) (map[string]any, error) {
	decoder := json.NewDecoder(bytes.NewReader(body))
	decoder.UseNumber()
	var value any
	if err := decoder.Decode(&value); err != nil {
		return nil, fmt.Errorf("body: malformed JSON: %w", err)
	}
	if len(bytes.TrimSpace(body[decoder.InputOffset():])) > 0 {
		return nil, fmt.Errorf("body: malformed JSON: data after the object")
	}
	fields, ok := value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("body: expected a JSON object, got %s", kind(value))
	}
	return fields, nil
}

func checkPrice(fields map[string]any) error {
	value, err := field(fields, "price")
	if err != nil {
		return err
	}
	number, ok := value.(json.Number)
	if !ok {
		return fmt.Errorf("price: must be a number > 0, got %s", kind(value))
	}
	price, err := number.Float64()
	if err != nil || math.IsInf(price, 0) || !(price > 0) {
		return fmt.Errorf("price: must be a number > 0, got %s", number)
	}
	return nil
}

func checkQuantity(fields map[string]any) error {
	const rule = "must be an integer > 0"
	number, err := integer(fields, "quantity", rule)
	if err != nil {
		return err
	}
	if quantity, err := strconv.ParseUint(number.String(), 10, 64); err != nil || quantity == 0 {
		return fmt.Errorf("quantity: %s, got %s", rule, number)
	}
	return nil
}

func field(fields map[string]any, name string) (any, error) {
	value, ok := fields[name]
	if !ok {
		return nil, fmt.Errorf("%s: missing", name)
	}
	return value, nil
}

func text(fields map[string]any, name string) (string, error) {
	value, err := field(fields, name)
	if err != nil {
		return "", err
	}
	s, ok := value.(string)
	if !ok {
		return "", fmt.Errorf("%s: must be a string, got %s", name, kind(value))
	}
	return s, nil
}

// integer is a field written as a whole number that fits 64 bits (signed or not); rule says
// what the field must be when it is not.
func integer(fields map[string]any, name, rule string) (json.Number, error) {
	value, err := field(fields, name)
	if err != nil {
		return "", err
	}
	number, ok := value.(json.Number)
	if ok && isInteger(number) {
		return number, nil
	}
	return "", fmt.Errorf("%s: %s, got %s", name, rule, kind(value))
}

func isInteger(number json.Number) bool {
	_, signedErr := strconv.ParseInt(number.String(), 10, 64)
	_, unsignedErr := strconv.ParseUint(number.String(), 10, 64)
	return signedErr == nil || unsignedErr == nil
}

// kind names a JSON value for an error message; a string's value is shown, as it is the usual
// mistake ("2330" for a symbol).
func kind(value any) string {
	switch v := value.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "the number " + v.String()
	case string:
		return fmt.Sprintf("the string %q", v)
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

// timestampLayouts are the ISO 8601 forms an order's time may take: with an offset (Z,
// +08:00, +0800) or without one, read as UTC. Fractional seconds are accepted in each.
var timestampLayouts = []string{
	time.RFC3339,
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05",
}

func parseTimestamp(raw string) (time.Time, error) {
	for _, layout := range timestampLayouts {
		if t, err := time.Parse(layout, raw); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("must be an ISO 8601 date and time, got %q", raw)
}
