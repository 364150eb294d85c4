//! A loopback file server for the proofs of download operators.
//!
//! `sra.prefetch` and the Ensembl downloads fetch over HTTP(S). A proof
//! must not depend on NCBI or Ensembl being reachable, so their recipes
//! point the real tool (prefetch, curl) at this server, which serves one
//! folder of generated files on 127.0.0.1 the way a static HTTP server
//! does: `GET /path` answers the file's bytes with its `Content-Length`, a
//! path that is not a file under the folder answers 404. The tool's own
//! HTTP client, redirects, failure handling and (for Ensembl) the checksum
//! verification the compiler adds all run for real; only the host differs.

use crate::error::RunnerError;
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// The text a recipe parameter holds where the server's base URL belongs.
pub const LOOPBACK_URL: &str = "{loopback}";

/// A running server; it stops when dropped.
pub struct LoopbackServer {
    base_url: String,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl LoopbackServer {
    /// Serves `root` on an ephemeral loopback port.
    pub fn start(root: PathBuf) -> Result<LoopbackServer, RunnerError> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .map_err(|e| RunnerError::io(Path::new("127.0.0.1"), e))?;
        let address = listener
            .local_addr()
            .map_err(|e| RunnerError::io(Path::new("127.0.0.1"), e))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| RunnerError::io(Path::new("127.0.0.1"), e))?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            while !stopping.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let _ = serve(stream, &root);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Ok(LoopbackServer {
            base_url: format!("http://{address}"),
            stop,
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Answers one request on `stream` and closes it.
fn serve(stream: TcpStream, root: &Path) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Headers are read and ignored; the request has no body.
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim_end().is_empty() {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default();
    let target = parts.next().unwrap_or_default();
    let mut stream = stream;
    let file = (method == "GET" || method == "HEAD")
        .then(|| resolve(root, target))
        .flatten();
    match file.and_then(|path| std::fs::read(path).ok()) {
        Some(bytes) => {
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
                bytes.len()
            )?;
            if method == "GET" {
                stream.write_all(&bytes)?;
            }
        }
        None => {
            stream.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            )?;
        }
    }
    stream.flush()?;
    stream.shutdown(Shutdown::Both)
}

/// The file `target` names under `root`, if it is one; a path that leaves
/// `root` (`..`) names nothing.
fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next()?.strip_prefix('/')?;
    let relative = Path::new(path);
    if relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let full = root.join(relative);
    full.is_file().then_some(full)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    fn get(base: &str, path: &str) -> String {
        let address = base.strip_prefix("http://").unwrap();
        let mut stream = TcpStream::connect(address).unwrap();
        write!(stream, "GET {path} HTTP/1.1\r\nHost: {address}\r\n\r\n").unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    }

    #[test]
    fn it_serves_files_under_its_root_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("served/a")).unwrap();
        std::fs::write(dir.path().join("served/a/file.txt"), "hello").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "no").unwrap();
        let server = LoopbackServer::start(dir.path().join("served")).unwrap();
        let ok = get(server.base_url(), "/a/file.txt");
        assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
        assert!(
            ok.contains("Content-Length: 5") && ok.ends_with("hello"),
            "{ok}"
        );
        for missing in ["/a/none.txt", "/a", "/../secret.txt", "/a/../../secret.txt"] {
            let answer = get(server.base_url(), missing);
            assert!(answer.starts_with("HTTP/1.1 404"), "{missing}: {answer}");
        }
    }
}
