//! The seed's order, read from JSON and checked field by field, so a bad order is refused
//! with a reason that names the field.

use chrono::{DateTime, NaiveDateTime, Utc};
use serde_json::{Map, Number, Value};

/// A valid order: what the answer echoes and the client's send time.
pub struct Order {
    pub symbol: Number,
    pub buy_sell: Side,
    pub client_timestamp: String,
    pub client_time: DateTime<Utc>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Buy,
    Sell,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Buy => "buy",
            Side::Sell => "sell",
        }
    }
}

impl Order {
    /// Parses and checks an order; the error reads `<field>: <reason>`.
    pub fn from_json(body: &[u8]) -> Result<Self, String> {
        let value: Value =
            serde_json::from_slice(body).map_err(|err| format!("body: malformed JSON: {err}"))?;
        let Value::Object(mut fields) = value else {
            return Err(format!(
                "body: expected a JSON object, got {}",
                kind(&value)
            ));
        };
        let buy_sell = match text(&fields, "buy_sell")? {
            "buy" => Side::Buy,
            "sell" => Side::Sell,
            other => {
                return Err(format!(
                    "buy_sell: must be \"buy\" or \"sell\", got {other:?}"
                ));
            }
        };
        let symbol = match field(&fields, "symbol")? {
            Value::Number(number) if number.is_i64() || number.is_u64() => number.clone(),
            other => return Err(format!("symbol: must be an integer, got {}", kind(other))),
        };
        match field(&fields, "price")? {
            Value::Number(number) => {
                let price = number.as_f64().unwrap_or(f64::NAN);
                if !(price.is_finite() && price > 0.0) {
                    return Err(format!("price: must be a number > 0, got {number}"));
                }
            }
            other => return Err(format!("price: must be a number > 0, got {}", kind(other))),
        }
        match field(&fields, "quantity")? {
            Value::Number(number) if number.is_i64() || number.is_u64() => {
                if number.as_u64().is_none_or(|quantity| quantity == 0) {
                    return Err(format!("quantity: must be an integer > 0, got {number}"));
                }
            }
            other => {
                return Err(format!(
                    "quantity: must be an integer > 0, got {}",
                    kind(other)
                ));
            }
        }
        for name in ["market_type", "price_type", "time_in_force", "order_type"] {
            if text(&fields, name)?.is_empty() {
                return Err(format!("{name}: must not be empty"));
            }
        }
        text(&fields, "user_def")?;
        let client_time = parse_timestamp(text(&fields, "client_timestamp")?)
            .map_err(|reason| format!("client_timestamp: {reason}"))?;
        let Some(Value::String(client_timestamp)) = fields.remove("client_timestamp") else {
            unreachable!("client_timestamp was just read as a string");
        };
        Ok(Self {
            symbol,
            buy_sell,
            client_timestamp,
            client_time,
        })
    }
}

fn field<'a>(fields: &'a Map<String, Value>, name: &str) -> Result<&'a Value, String> {
    fields.get(name).ok_or_else(|| format!("{name}: missing"))
}

fn text<'a>(fields: &'a Map<String, Value>, name: &str) -> Result<&'a str, String> {
    match field(fields, name)? {
        Value::String(text) => Ok(text),
        other => Err(format!("{name}: must be a string, got {}", kind(other))),
    }
}

/// A JSON value's kind, for error messages (a string's value is shown: it is the usual
/// mistake, e.g. `"2330"` for a symbol).
fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(number) => format!("the number {number}"),
        Value::String(text) => format!("the string {text:?}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// ISO 8601 / RFC 3339: with an offset (`Z`, `+08:00`, `+0800`), or without one, read as UTC
/// (what `datetime.utcnow().isoformat()` and similar produce).
fn parse_timestamp(raw: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(time) = DateTime::parse_from_rfc3339(raw) {
        return Ok(time.with_timezone(&Utc));
    }
    if let Ok(time) = DateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M:%S%.f%z") {
        return Ok(time.with_timezone(&Utc));
    }
    if let Ok(time) = NaiveDateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M:%S%.f") {
        return Ok(time.and_utc());
    }
    Err(format!("must be an ISO 8601 date and time, got {raw:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = r#"{"buy_sell": "buy", "symbol": 2330, "price": 100.0,
        "quantity": 1000, "market_type": "common", "price_type": "limit",
        "time_in_force": "rod", "order_type": "stock", "user_def": "custom_field",
        "client_timestamp": "2024-01-01T10:00:00.000Z"}"#;

    fn with(name: &str, value: Value) -> Vec<u8> {
        let mut order: Map<String, Value> = serde_json::from_str(VALID).unwrap();
        order.insert(name.into(), value);
        serde_json::to_vec(&order).unwrap()
    }

    fn refusal(body: &[u8]) -> String {
        match Order::from_json(body) {
            Ok(_) => panic!("accepted {}", String::from_utf8_lossy(body)),
            Err(reason) => reason,
        }
    }

    #[test]
    fn accepts_the_seeds_order() {
        let order = Order::from_json(VALID.as_bytes()).unwrap();
        assert_eq!(order.symbol.as_u64(), Some(2330));
        assert_eq!(order.buy_sell, Side::Buy);
        assert_eq!(order.client_timestamp, "2024-01-01T10:00:00.000Z");
    }

    #[test]
    fn names_the_bad_field() {
        let cases = [
            ("buy_sell", serde_json::json!("hold")),
            ("symbol", serde_json::json!("2330")),
            ("symbol", serde_json::json!(1.5)),
            ("price", serde_json::json!(0)),
            ("price", serde_json::json!(-1)),
            ("quantity", serde_json::json!(0)),
            ("quantity", serde_json::json!(-5)),
            ("quantity", serde_json::json!(2.5)),
            ("market_type", serde_json::json!("")),
            ("user_def", serde_json::json!(7)),
            ("client_timestamp", serde_json::json!("yesterday")),
        ];
        for (name, value) in cases {
            let reason = refusal(&with(name, value));
            assert!(reason.starts_with(&format!("{name}: ")), "{reason}");
        }
        assert!(refusal(b"{not json").starts_with("body: "));
        assert!(refusal(b"[1, 2]").starts_with("body: "));
    }

    #[test]
    fn reads_iso_8601_forms() {
        for raw in [
            "2024-01-01T10:00:00Z",
            "2024-01-01T18:00:00.123456+08:00",
            "2024-01-01T18:00:00+0800",
            "2024-01-01T10:00:00.5",
        ] {
            let time = parse_timestamp(raw).unwrap();
            assert_eq!(time.date_naive().to_string(), "2024-01-01", "{raw}");
        }
        assert!(parse_timestamp("2024-13-01T10:00:00Z").is_err());
    }
}
