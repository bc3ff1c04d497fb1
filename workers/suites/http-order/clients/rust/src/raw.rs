//! `order-load`'s transport: a minimal HTTP/1.1 client on Tokio's `TcpStream`, one keep-alive
//! connection per line. An order is one write (head and body built in a reused buffer); its
//! answer is read into a reused buffer, its head parsed just enough to find the status and
//! the body's length (`Content-Length`; the order server's answers always carry one, so
//! anything else, `Transfer-Encoding` included, is refused as an error), the body read whole
//! and judged as `order-client` judges it. A connection that fails or is abandoned (the order
//! timed out) is closed; the line's next order opens a new one, with TCP_NODELAY.

use std::future::poll_fn;
use std::io::{self, Write};
use std::ops::Range;
use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use crate::cli::Params;
use crate::transport::{self, Failure, Transport};

/// The most an answer's head may take (an order answer's is ~120 bytes).
const MAX_HEAD: usize = 16 * 1024;
/// The most an answer's body may take (an order answer's is ~180 bytes).
const MAX_BODY: usize = 1024 * 1024;
/// Room for one answer, read at a time.
const READ_ROOM: usize = 4096;

pub struct Raw {
    /// The server's host (an IP address is used as it is; a name is resolved per connection)
    /// and port.
    host: String,
    port: u16,
    /// The request up to the body's length: request line, `Host`, `Content-Type` and
    /// `Content-Length: `.
    head: Vec<u8>,
}

/// One connection (none before its first order, or after a failure) and its buffers.
pub struct Line {
    stream: Option<TcpStream>,
    body: String,
    request: Vec<u8>,
    answer: Vec<u8>,
}

impl Transport for Raw {
    const CLIENT: &'static str = "ref";
    const PROGRAM: &'static str = "order-load";

    type Line = Line;

    fn new(params: &Params) -> Result<Self, String> {
        let url = &params.order_url;
        let host = url
            .host_str()
            .ok_or_else(|| format!("--url '{url}' has no host"))?;
        let port = url
            .port_or_known_default()
            .ok_or_else(|| format!("--url '{url}' has no port"))?;
        let mut target = url.path().to_string();
        if let Some(query) = url.query() {
            target.push('?');
            target.push_str(query);
        }
        let authority = match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        };
        let head = format!(
            "POST {target} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
             Content-Length: "
        );
        Ok(Self {
            // "[::1]" in a URL, ::1 to connect to.
            host: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_string(),
            port,
            head: head.into_bytes(),
        })
    }

    fn line(&self) -> Line {
        Line {
            stream: None,
            body: String::with_capacity(256),
            request: Vec::with_capacity(512),
            answer: Vec::with_capacity(READ_ROOM),
        }
    }

    fn stage(&self, line: &mut Line, index: u64) {
        line.body.clear();
        transport::write_order(index, &mut line.body);
        line.request.clear();
        line.request.extend_from_slice(&self.head);
        write!(line.request, "{}\r\n\r\n", line.body.len()).expect("writing to a Vec cannot fail");
        line.request.extend_from_slice(line.body.as_bytes());
    }

    async fn exchange(&self, line: &mut Line) -> Result<(), Failure> {
        // Taken for the exchange, given back only when it ends well: a failed or abandoned
        // exchange closes its connection.
        let mut stream = match line.stream.take() {
            Some(stream) => stream,
            None => self.connect().await.map_err(Failure::Error)?,
        };
        write_all(&mut stream, &line.request)
            .await
            .map_err(|err| Failure::Error(format!("sending the order: {err}")))?;
        let head = read_answer(&mut stream, &mut line.answer)
            .await
            .map_err(Failure::Error)?;
        if head.keep_alive {
            line.stream = Some(stream);
        }
        let shown = String::from_utf8_lossy(&line.answer[head.status_text.clone()]);
        transport::judge(head.status, shown, &line.answer[head.length..])
    }
}

impl Raw {
    async fn connect(&self) -> Result<TcpStream, String> {
        let stream = TcpStream::connect((self.host.as_str(), self.port))
            .await
            .map_err(|err| format!("connecting to {}:{}: {err}", self.host, self.port))?;
        stream
            .set_nodelay(true)
            .map_err(|err| format!("cannot set TCP_NODELAY: {err}"))?;
        Ok(stream)
    }
}

/// Writes all of `bytes` (in one write, unless the socket's buffer is full).
async fn write_all<W: AsyncWrite + Unpin>(stream: &mut W, bytes: &[u8]) -> io::Result<()> {
    let mut written = 0;
    while written < bytes.len() {
        match poll_fn(|cx| Pin::new(&mut *stream).poll_write(cx, &bytes[written..])).await? {
            0 => return Err(io::ErrorKind::WriteZero.into()),
            count => written += count,
        }
    }
    Ok(())
}

/// Reads one whole answer into `buffer` (cleared first): its head, then as many body bytes as
/// the head says. More bytes than that (only one order is ever in flight on a connection) are
/// an error, as is the connection closing before the answer's end.
async fn read_answer<R: AsyncRead + Unpin>(
    stream: &mut R,
    buffer: &mut Vec<u8>,
) -> Result<Head, String> {
    buffer.clear();
    let head = loop {
        if let Some(head) = parse_head(buffer)? {
            break head;
        }
        read_more(stream, buffer).await?;
    };
    let whole = head.length + head.body;
    while buffer.len() < whole {
        read_more(stream, buffer).await?;
    }
    if buffer.len() > whole {
        return Err(format!(
            "{} bytes past the end of the answer",
            buffer.len() - whole
        ));
    }
    Ok(head)
}

/// One read, appended to `buffer`.
async fn read_more<R: AsyncRead + Unpin>(
    stream: &mut R,
    buffer: &mut Vec<u8>,
) -> Result<(), String> {
    if buffer.capacity() - buffer.len() < READ_ROOM / 2 {
        buffer.reserve(READ_ROOM);
    }
    let mut spare = ReadBuf::uninit(buffer.spare_capacity_mut());
    let result = poll_fn(|cx| Pin::new(&mut *stream).poll_read(cx, &mut spare))
        .await
        .map(|()| spare.filled().len());
    if let Ok(count) = result {
        // SAFETY: the read initialized (filled) the first `count` bytes of the spare capacity.
        unsafe { buffer.set_len(buffer.len() + count) };
    }
    match result {
        Ok(0) if buffer.is_empty() => {
            Err("the server closed the connection before answering".into())
        }
        Ok(0) => Err(format!(
            "the server closed the connection after {} bytes of the answer",
            buffer.len()
        )),
        Ok(_) => Ok(()),
        Err(err) => Err(format!("reading the answer: {err}")),
    }
}

/// What an answer's head says.
#[derive(Debug)]
struct Head {
    status: u16,
    /// Where the status line's code and reason ("200 OK") are, for messages.
    status_text: Range<usize>,
    /// The head's length, its blank line included: where the body starts.
    length: usize,
    /// The body's length.
    body: usize,
    /// Whether the connection may carry the next order.
    keep_alive: bool,
}

/// The head at the start of `buffer` once it is whole (`None` until then): the status line and
/// the headers that frame the answer. An answer that is not HTTP/1.x, whose body's length is
/// not given by one `Content-Length` (a `Transfer-Encoding`, chunked or not, included), or
/// that is an interim (1xx) answer is refused.
fn parse_head(buffer: &[u8]) -> Result<Option<Head>, String> {
    let Some(end) = buffer.windows(4).position(|bytes| bytes == b"\r\n\r\n") else {
        if buffer.len() > MAX_HEAD {
            return Err(format!("an answer head longer than {MAX_HEAD} bytes"));
        }
        return Ok(None);
    };
    let mut lines = buffer[..end]
        .split(|&byte| byte == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line));
    let status_line = lines.next().unwrap_or_default();
    let shown = || String::from_utf8_lossy(&status_line[..status_line.len().min(100)]).into_owned();
    let http_1_1 = match status_line.get(..9) {
        Some(b"HTTP/1.1 ") => true,
        Some(b"HTTP/1.0 ") => false,
        _ => return Err(format!("not an HTTP/1.x answer: {:?}", shown())),
    };
    let code = &status_line[9..];
    let status = match code.get(..3) {
        Some(digits)
            if digits.iter().all(u8::is_ascii_digit)
                && matches!(code.get(3), None | Some(b' ')) =>
        {
            digits
                .iter()
                .fold(0u16, |status, digit| status * 10 + u16::from(digit - b'0'))
        }
        _ => return Err(format!("a bad status line: {:?}", shown())),
    };
    if status < 200 {
        return Err(format!("an interim answer, not expected: {:?}", shown()));
    }
    let mut content_length = None;
    let (mut close, mut keep_alive) = (false, false);
    for line in lines {
        let Some(colon) = line.iter().position(|&byte| byte == b':') else {
            return Err(format!(
                "a bad header line: {:?}",
                String::from_utf8_lossy(line)
            ));
        };
        let (name, value) = (&line[..colon], line[colon + 1..].trim_ascii());
        if name.eq_ignore_ascii_case(b"content-length") {
            let length = parse_length(value)?;
            if content_length.is_some_and(|earlier| earlier != length) {
                return Err("two different Content-Length headers".into());
            }
            content_length = Some(length);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            return Err(format!(
                "Transfer-Encoding {:?} is not supported (the order server sends Content-Length)",
                String::from_utf8_lossy(value)
            ));
        } else if name.eq_ignore_ascii_case(b"connection") {
            for token in value.split(|&byte| byte == b',').map(<[u8]>::trim_ascii) {
                close |= token.eq_ignore_ascii_case(b"close");
                keep_alive |= token.eq_ignore_ascii_case(b"keep-alive");
            }
        }
    }
    let body = match content_length {
        Some(length) => length,
        // No body, by definition.
        None if status == 204 || status == 304 => 0,
        None => return Err(format!("an answer without Content-Length: {:?}", shown())),
    };
    Ok(Some(Head {
        status,
        status_text: 9..status_line.len(),
        length: end + 4,
        body,
        keep_alive: !close && (http_1_1 || keep_alive),
    }))
}

fn parse_length(value: &[u8]) -> Result<usize, String> {
    let bad = || format!("a bad Content-Length: {:?}", String::from_utf8_lossy(value));
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return Err(bad());
    }
    let length: usize = std::str::from_utf8(value)
        .map_err(|_| bad())?
        .parse()
        .map_err(|_| bad())?;
    if length > MAX_BODY {
        return Err(format!(
            "an answer body of {length} bytes (at most {MAX_BODY} are read)"
        ));
    }
    Ok(length)
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use tokio::net::TcpListener;

    use super::*;

    const BODY: &str = r#"{"symbol":2330,"buy_sell":"buy","status":"SUCCESS","client_timestamp":"2024-01-01T10:00:00.000000Z","server_timestamp":"2024-01-01T10:00:00.001Z","latency_ms":1.0}"#;

    /// The order server's answer, byte for byte as Axum writes it.
    fn ok_answer() -> Vec<u8> {
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
             date: Thu, 26 Nov 2026 06:40:22 GMT\r\n\r\n{BODY}",
            BODY.len()
        )
        .into_bytes()
    }

    /// A stream that gives its chunks one read at a time, then end of file.
    struct Chunks(VecDeque<Vec<u8>>);

    impl Chunks {
        fn new(chunks: &[&[u8]]) -> Self {
            Self(chunks.iter().map(|chunk| chunk.to_vec()).collect())
        }

        /// `whole` cut at `cuts`.
        fn cut(whole: &[u8], cuts: &[usize]) -> Self {
            let mut bounds = vec![0];
            bounds.extend_from_slice(cuts);
            bounds.push(whole.len());
            Self(
                bounds
                    .windows(2)
                    .map(|span| whole[span[0]..span[1]].to_vec())
                    .collect(),
            )
        }
    }

    impl AsyncRead for Chunks {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            if let Some(chunk) = self.0.pop_front() {
                let taken = chunk.len().min(buf.remaining());
                buf.put_slice(&chunk[..taken]);
                if taken < chunk.len() {
                    self.0.push_front(chunk[taken..].to_vec());
                }
            }
            Poll::Ready(Ok(()))
        }
    }

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(future)
    }

    fn read(mut stream: Chunks) -> (Result<Head, String>, Vec<u8>) {
        let mut buffer = Vec::new();
        let head = block_on(read_answer(&mut stream, &mut buffer));
        (head, buffer)
    }

    #[test]
    fn reads_an_answer_whole_in_one_read() {
        let answer = ok_answer();
        let (head, buffer) = read(Chunks::new(&[&answer]));
        let head = head.unwrap();
        assert_eq!(
            (head.status, head.body, head.keep_alive),
            (200, BODY.len(), true)
        );
        assert_eq!(&buffer[head.status_text.clone()], b"200 OK");
        assert_eq!(&buffer[head.length..], BODY.as_bytes());
        assert_eq!(
            transport::describe(transport::judge(200, "200 OK", &buffer[head.length..])),
            "ok"
        );
    }

    #[test]
    fn reads_an_answer_in_pieces() {
        let answer = ok_answer();
        let head_end = answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        for cuts in [
            vec![1],                     // inside the status line
            vec![20, 21, 22],            // byte by byte inside a header name
            vec![head_end + 1],          // inside the blank line
            vec![head_end + 2],          // between the CRs and LFs
            vec![head_end + 4],          // head, then body
            vec![head_end + 10],         // the body split
            (1..answer.len()).collect(), // one byte a read
        ] {
            let (head, buffer) = read(Chunks::cut(&answer, &cuts));
            let head = head.unwrap_or_else(|err| panic!("{cuts:?}: {err}"));
            assert_eq!(&buffer[head.length..], BODY.as_bytes(), "{cuts:?}");
        }
    }

    #[test]
    fn finds_content_length_in_any_case_and_a_zero_length() {
        let (head, _) = read(Chunks::new(&[
            b"HTTP/1.1 404 Not Found\r\nCONTENT-LENGTH:  0 \r\n\r\n",
        ]));
        assert_eq!(head.unwrap().body, 0);
        let (head, _) = read(Chunks::new(&[
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\n{}",
        ]));
        assert_eq!(head.unwrap().body, 2);
    }

    #[test]
    fn a_bad_status_is_an_error_with_the_body() {
        let answer = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n\
                       content-length: 29\r\n\r\n{\"error\":\"buy_sell: missing\"}";
        let (head, buffer) = read(Chunks::new(&[answer]));
        let head = head.unwrap();
        assert!(head.keep_alive); // the connection is still good
        let shown = String::from_utf8_lossy(&buffer[head.status_text.clone()]);
        assert_eq!(
            transport::describe(transport::judge(head.status, shown, &buffer[head.length..])),
            r#"error: HTTP 400 Bad Request: {"error":"buy_sell: missing"}"#
        );
    }

    #[test]
    fn a_connection_closed_mid_answer_is_an_error() {
        let answer = ok_answer();
        let (head, _) = read(Chunks::new(&[]));
        assert_eq!(
            head.unwrap_err(),
            "the server closed the connection before answering"
        );
        for cut in [10, answer.len() - 1] {
            let (head, _) = read(Chunks::new(&[&answer[..cut]]));
            assert_eq!(
                head.unwrap_err(),
                format!("the server closed the connection after {cut} bytes of the answer")
            );
        }
    }

    #[test]
    fn refuses_what_it_cannot_frame() {
        for (answer, reason) in [
            (
                &b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"[..],
                "Transfer-Encoding \"chunked\" is not supported",
            ),
            (
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{}",
                "an answer without Content-Length",
            ),
            (
                b"HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n",
                "a bad Content-Length",
            ),
            (
                b"HTTP/1.1 200 OK\r\ncontent-length: 1, 2\r\n\r\n",
                "a bad Content-Length",
            ),
            (
                b"HTTP/1.1 200 OK\r\ncontent-length: 99999999999999999999999\r\n\r\n",
                "a bad Content-Length",
            ),
            (
                b"HTTP/1.1 200 OK\r\ncontent-length: 2000000\r\n\r\n",
                "an answer body of",
            ),
            (
                b"HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n",
                "two different Content-Length",
            ),
            (b"HTTP/1.1 100 Continue\r\n\r\n", "an interim answer"),
            (b"HTTP/2 200\r\n\r\n", "not an HTTP/1.x answer"),
            (b"SSH-2.0-OpenSSH_9.6\r\n\r\n", "not an HTTP/1.x answer"),
            (b"HTTP/1.1 20 OK\r\n\r\n", "a bad status line"),
            (b"HTTP/1.1 2000 OK\r\n\r\n", "a bad status line"),
            (
                b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
                "a bad header line",
            ),
            (
                b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}{}",
                "2 bytes past the end",
            ),
        ] {
            let (head, _) = read(Chunks::new(&[answer]));
            let err = head.expect_err(reason);
            assert!(err.starts_with(reason), "{err} (expected {reason})");
        }
        let endless = vec![b'x'; MAX_HEAD + 1];
        assert!(
            read(Chunks::new(&[&endless]))
                .0
                .unwrap_err()
                .contains("head longer")
        );
    }

    #[test]
    fn knows_when_the_connection_must_close() {
        for (answer, keep_alive) in [
            (&b"HTTP/1.1 204 No Content\r\n\r\n"[..], true),
            (
                b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n",
                false,
            ),
            (
                b"HTTP/1.1 204 No Content\r\nconnection: Upgrade, CLOSE\r\n\r\n",
                false,
            ),
            (b"HTTP/1.0 204 No Content\r\n\r\n", false),
            (
                b"HTTP/1.0 204 No Content\r\nConnection: keep-alive\r\n\r\n",
                true,
            ),
        ] {
            let head = parse_head(answer).unwrap().unwrap();
            assert_eq!(
                head.keep_alive,
                keep_alive,
                "{}",
                String::from_utf8_lossy(answer)
            );
        }
    }

    fn params(url: &str) -> Params {
        Params::parse(["--url", url].map(String::from).to_vec()).unwrap()
    }

    #[test]
    fn builds_one_request_per_order() {
        let raw = Raw::new(&params("http://127.0.0.1:8080")).unwrap();
        let mut line = raw.line();
        raw.stage(&mut line, 3);
        let request = String::from_utf8(line.request.clone()).unwrap();
        let (head, body) = request.split_once("\r\n\r\n").unwrap();
        assert_eq!(
            head,
            format!(
                "POST /order HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: \
                 application/json\r\nContent-Length: {}",
                body.len()
            )
        );
        let order: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(order["buy_sell"], "sell");
        let v6 = Raw::new(&params("http://[::1]:9/")).unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 9));
        assert!(
            v6.head
                .starts_with(b"POST /order HTTP/1.1\r\nHost: [::1]:9\r\n")
        );
    }

    /// A server that answers each request on a connection with the next of `answers` (cut in
    /// two, to be read in pieces), then closes it; it reports how many connections it took.
    async fn serve(listener: TcpListener, answers: Vec<Vec<u8>>) -> usize {
        let mut answers = answers.into_iter();
        let mut connections = 0;
        while answers.len() > 0 {
            let (mut stream, _) = listener.accept().await.unwrap();
            connections += 1;
            let mut request = Vec::new();
            for answer in answers.by_ref() {
                // The whole request (one order's is well under READ_ROOM).
                request.clear();
                if read_more(&mut stream, &mut request).await.is_err() {
                    break;
                }
                if answer.is_empty() {
                    break; // closes this connection without answering
                }
                let (first, second) = answer.split_at(answer.len() / 2);
                write_all(&mut stream, first).await.unwrap();
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                write_all(&mut stream, second).await.unwrap();
            }
        }
        connections
    }

    #[test]
    fn keeps_its_connection_and_opens_another_after_a_failure() {
        block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let url = format!("http://{}", listener.local_addr().unwrap());
            let bad = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}".to_vec();
            // Two orders on the first connection (the second a 400, still whole), a third
            // it closes before answering, a fourth on a new connection.
            let server = tokio::spawn(serve(listener, vec![ok_answer(), bad, vec![], ok_answer()]));
            let raw = Raw::new(&params(&url)).unwrap();
            let mut line = raw.line();
            let mut outcomes = Vec::new();
            for index in 0..4 {
                raw.stage(&mut line, index);
                outcomes.push(transport::describe(raw.exchange(&mut line).await));
                if index == 1 {
                    assert!(line.stream.is_some(), "a whole 400 keeps its connection");
                }
            }
            assert_eq!(
                outcomes,
                [
                    "ok",
                    "error: HTTP 400 Bad Request: {}",
                    "error: the server closed the connection before answering",
                    "ok"
                ]
            );
            assert_eq!(server.await.unwrap(), 2);
        });
    }

    #[test]
    fn a_refused_connection_is_an_error() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let raw = Raw::new(&params(&format!("http://127.0.0.1:{port}"))).unwrap();
        let mut line = raw.line();
        raw.stage(&mut line, 0);
        let found = transport::describe(block_on(raw.exchange(&mut line)));
        assert!(
            found.starts_with(&format!("error: connecting to 127.0.0.1:{port}: ")),
            "{found}"
        );
    }
}
