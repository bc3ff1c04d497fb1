package main

import (
	"encoding/json"
	"fmt"
)

// bookOrder is an order as the order book reads it.
type bookOrder struct {
	BuySell         string      `json:"buy_sell"`
	Symbol          json.Number `json:"symbol"`
	Price           float64     `json:"price"`
	Quantity        uint64      `json:"quantity"`
	MarketType      string      `json:"market_type"`
	PriceType       string      `json:"price_type"`
	TimeInForce     string      `json:"time_in_force"`
	OrderType       string      `json:"order_type"`
	UserDef         string      `json:"user_def"`
	ClientTimestamp string      `json:"client_timestamp"`
}

// checkBookFields decodes the body as the order book will, so an order it could not read is
// refused here, with the field named, rather than failing later in the book.
func checkBookFields(body []byte) error {
	var book bookOrder
	if err := json.Unmarshal(body, &book); err != nil {
		if typeErr, ok := err.(*json.UnmarshalTypeError); ok {
			return fmt.Errorf("%s: the order book cannot read %s", typeErr.Field, typeErr.Value)
		}
		return fmt.Errorf("body: %w", err)
	}
	return nil
}
