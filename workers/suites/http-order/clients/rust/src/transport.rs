//! How an order travels to the server and its answer back: the one thing the crate's two
//! clients do differently. `order-client` sends through reqwest's pool ([`crate::seed`]),
//! `order-load` over its own HTTP/1.1 connections ([`crate::raw`]); the loads
//! ([`crate::load`]) are the same code for both. Both send the same order and judge its
//! answer the same way (here).

use std::borrow::Cow;
use std::fmt::{Display, Write};
use std::future::Future;

use serde::Deserialize;

use crate::cli::Params;

/// A way to send orders. The loads hold one [`Transport`] and, per order in flight, a
/// [`Transport::Line`]: what one sender keeps from one order to its next.
pub trait Transport: Sized + Send + Sync + 'static {
    /// The report's `client`.
    const CLIENT: &'static str;
    /// The program's name, in messages.
    const PROGRAM: &'static str;

    /// A sender's own state: a keep-alive connection and its buffers, or only the next order
    /// (when the transport pools connections itself).
    type Line: Send + 'static;

    fn new(params: &Params) -> Result<Self, String>;

    /// A sender's line, before its first order (no connection yet: the first order opens it).
    fn line(&self) -> Self::Line;

    /// Makes order `index`, stamped now ([`write_order`]), ready to go on `line`.
    fn stage(&self, line: &mut Self::Line, index: u64);

    /// Sends the staged order and reads its whole answer. Dropped when the order runs out of
    /// time: whatever connection it was using must go with it (it is closed, and the line's
    /// next order opens another).
    fn exchange<'a>(
        &'a self,
        line: &'a mut Self::Line,
    ) -> impl Future<Output = Result<(), Failure>> + Send + 'a;
}

/// Why one order failed.
pub enum Failure {
    Timeout(String),
    Error(String),
}

/// One order's result as the tests compare it: "ok", "error: ..." or "timeout: ...".
#[cfg(test)]
pub fn describe(result: Result<(), Failure>) -> String {
    match result {
        Ok(()) => "ok".into(),
        Err(Failure::Error(message)) => format!("error: {message}"),
        Err(Failure::Timeout(message)) => format!("timeout: {message}"),
    }
}

/// The seed's order (buy and sell in turn), stamped now, written to `out`.
pub fn write_order(index: u64, out: &mut String) {
    let side = if index.is_multiple_of(2) {
        "buy"
    } else {
        "sell"
    };
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    write!(
        out,
        r#"{{"buy_sell":"{side}","symbol":2330,"price":100.0,"quantity":1000,"market_type":"common","price_type":"limit","time_in_force":"rod","order_type":"stock","user_def":"latlab","client_timestamp":"{now}"}}"#
    )
    .expect("writing to a String cannot fail");
}

/// Whether an answer is ok: only a 200 whose JSON body has `"status": "SUCCESS"`; anything
/// else is an error. `shown` is the status as messages show it ("400 Bad Request").
pub fn judge(status: u16, shown: impl Display, body: &[u8]) -> Result<(), Failure> {
    if status != 200 {
        let text = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
        return Err(Failure::Error(format!("HTTP {shown}: {text}")));
    }
    match serde_json::from_slice::<Answer>(body) {
        Ok(answer) if answer.status == "SUCCESS" => Ok(()),
        Ok(answer) => Err(Failure::Error(format!("status {:?}", answer.status))),
        Err(err) => Err(Failure::Error(format!(
            "the answer is not an order answer: {err}"
        ))),
    }
}

#[derive(Deserialize)]
struct Answer<'a> {
    #[serde(borrow)]
    status: Cow<'a, str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_a_valid_seed_order() {
        let mut body = String::new();
        write_order(1, &mut body);
        let order: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(order["buy_sell"], "sell");
        assert_eq!(order["symbol"], 2330);
        let stamp = order["client_timestamp"].as_str().unwrap();
        assert!(
            chrono::DateTime::parse_from_rfc3339(stamp).is_ok(),
            "{stamp}"
        );
    }

    #[test]
    fn only_a_200_with_success_is_ok() {
        let success = br#"{"symbol":2330,"status":"SUCCESS"}"#;
        assert_eq!(describe(judge(200, "200 OK", success)), "ok");
        assert_eq!(
            describe(judge(
                400,
                "400 Bad Request",
                br#"{"error":"price: must be > 0"}"#
            )),
            r#"error: HTTP 400 Bad Request: {"error":"price: must be > 0"}"#
        );
        assert_eq!(
            describe(judge(200, "200 OK", br#"{"status":"REJECTED"}"#)),
            r#"error: status "REJECTED""#
        );
        assert!(describe(judge(200, "200 OK", b"SUCCESS")).starts_with("error: the answer is not"));
    }
}
