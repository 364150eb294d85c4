//! `somite serve` as a user runs it: it prints the URL, is ready at once,
//! refuses non-loopback binds and bad configuration, and stops cleanly on
//! Ctrl-C.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn somite() -> Command {
    Command::new(env!("CARGO_BIN_EXE_somite"))
}

#[test]
fn serve_prints_its_url_answers_and_stops_on_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut child = somite()
        .args(["serve", "--port", "0", "--project"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(
        line.starts_with("Somite is serving http://127.0.0.1:"),
        "{line}"
    );
    let url = line
        .split_whitespace()
        .nth(3)
        .unwrap()
        .trim_end_matches('/')
        .to_owned();
    eprintln!("time to ready: {} ms", started.elapsed().as_millis());

    let address = url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    use std::io::{Read, Write};
    write!(
        stream,
        "GET /api/workflow HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(
        response.contains("Paired-end read QC"),
        "a new project starts from the example"
    );

    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        assert!(Instant::now() < deadline, "serve did not stop on SIGINT");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exit.success(), "{exit:?}");
}

#[test]
fn serve_refuses_a_non_loopback_address_and_bad_environment() {
    let output = somite()
        .args(["serve", "--host", "0.0.0.0", "--port", "0"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("loopback"));
    let output = somite()
        .args(["serve"])
        .env("SOMITE_PORT", "99999")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("SOMITE_PORT") && stderr.contains("1..=65535"),
        "{stderr}"
    );
}
