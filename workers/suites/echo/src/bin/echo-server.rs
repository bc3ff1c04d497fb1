//! TCP echo server: writes back every byte it reads, one thread per connection.
//!
//! Prints `{"listening": "HOST:PORT"}` on stdout once bound (so port 0 can be used) and runs
//! until SIGTERM or SIGINT, then exits 0.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::raw::c_int;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::{env, fs, thread};

use latlab_echo::options::{self, Options};

const USAGE: &str = "usage: echo-server --listen HOST:PORT [--ready-file PATH]";
const BUFFER_BYTES: usize = 64 * 1024;

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    if options::wants_help(&args) {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let (listen, ready_file) = match parse_args(args) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("echo-server: {message}\n{USAGE}");
            return ExitCode::from(options::EXIT_USAGE as u8);
        }
    };
    exit_zero_on_stop_signals();
    match serve(listen, ready_file.as_deref()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("echo-server: {message}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args(args: Vec<String>) -> Result<(SocketAddr, Option<PathBuf>), String> {
    let options = Options::parse(args, &["listen", "ready-file"])?;
    Ok((options.required("listen")?, options.optional("ready-file")?))
}

fn serve(listen: SocketAddr, ready_file: Option<&Path>) -> Result<(), String> {
    let listener =
        TcpListener::bind(listen).map_err(|err| format!("cannot listen on {listen}: {err}"))?;
    let bound = listener
        .local_addr()
        .map_err(|err| format!("bound address unknown: {err}"))?;
    announce(bound, ready_file)?;
    for stream in listener.incoming() {
        match stream {
            Ok(stream) => {
                thread::spawn(move || {
                    if let Err(err) = echo(stream) {
                        eprintln!("echo-server: connection ended: {err}");
                    }
                });
            }
            // A failed accept (e.g. out of file descriptors) must not stop the server.
            Err(err) => eprintln!("echo-server: accept failed: {err}"),
        }
    }
    Ok(())
}

/// Tells the runner the bound address: in a file, if asked, then as a JSON line on stdout
/// (in that order, so a runner that has read the line also finds the file).
fn announce(bound: SocketAddr, ready_file: Option<&Path>) -> Result<(), String> {
    if let Some(path) = ready_file {
        // Written aside and renamed, so a runner polling for the file never reads half of it.
        let partial = path.with_extension("partial");
        fs::write(&partial, format!("{bound}\n"))
            .and_then(|()| fs::rename(&partial, path))
            .map_err(|err| format!("cannot write ready file {}: {err}", path.display()))?;
    }
    let line = serde_json::json!({ "listening": bound.to_string() });
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "{line}")
        .and_then(|()| stdout.flush())
        .map_err(|err| format!("cannot write to stdout: {err}"))?;
    Ok(())
}

fn echo(mut stream: TcpStream) -> io::Result<()> {
    stream.set_nodelay(true)?;
    let mut buffer = vec![0u8; BUFFER_BYTES];
    loop {
        let read = match stream.read(&mut buffer) {
            Ok(0) => return Ok(()),
            Ok(read) => read,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        stream.write_all(&buffer[..read])?;
    }
}

const SIGINT: c_int = 2;
const SIGTERM: c_int = 15;

unsafe extern "C" {
    fn signal(signum: c_int, handler: extern "C" fn(c_int)) -> usize;
    fn _exit(status: c_int) -> !;
}

/// The server holds no state worth saving, so a stop request ends the process at once with
/// status 0 (`_exit` is async-signal-safe; stdout was already flushed after the ready line).
extern "C" fn exit_zero(_signum: c_int) {
    unsafe { _exit(0) }
}

fn exit_zero_on_stop_signals() {
    unsafe {
        signal(SIGINT, exit_zero);
        signal(SIGTERM, exit_zero);
    }
}
