//! `order-client`'s transport, the seed's design: reqwest's client, whose pool keeps up to C
//! keep-alive connections (opened as needed, a failed one dropped and replaced).

use std::future::Future;

use crate::cli::Params;
use crate::transport::{self, Failure, Transport};

pub struct Seed {
    client: reqwest::Client,
    url: reqwest::Url,
}

impl Transport for Seed {
    const CLIENT: &'static str = "rust";
    const PROGRAM: &'static str = "order-client";

    /// The staged order's body (the pool holds the connections).
    type Line = String;

    fn new(params: &Params) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            // A proxy from the environment would measure the proxy, not the server.
            .no_proxy()
            .pool_max_idle_per_host(params.connections)
            .tcp_nodelay(true)
            .build()
            .map_err(|err| format!("cannot set up the HTTP client: {}", describe(&err)))?;
        Ok(Self {
            client,
            url: params.order_url.clone(),
        })
    }

    fn line(&self) -> String {
        String::new()
    }

    fn stage(&self, line: &mut String, index: u64) {
        // A fresh body each time: reqwest takes it.
        *line = String::with_capacity(256);
        transport::write_order(index, line);
    }

    fn exchange<'a>(
        &'a self,
        line: &'a mut String,
    ) -> impl Future<Output = Result<(), Failure>> + Send + 'a {
        let body = std::mem::take(line);
        async move {
            let response = self
                .client
                .post(self.url.clone())
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body)
                .send()
                .await
                .map_err(|err| Failure::Error(describe(&err)))?;
            let status = response.status();
            let bytes = response
                .bytes()
                .await
                .map_err(|err| Failure::Error(format!("reading the answer: {}", describe(&err))))?;
            transport::judge(status.as_u16(), status, &bytes)
        }
    }
}

/// reqwest's message with its causes ("... : Connection refused").
fn describe(err: &reqwest::Error) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
