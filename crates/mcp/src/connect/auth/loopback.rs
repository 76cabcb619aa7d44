//! The sign-in redirect listener: a tiny HTTP/1.1 server on 127.0.0.1 that waits for the
//! browser to come back to `/callback?code=…&state=…`, answers it with a short page, and hands
//! the parameters over.
//!
//! Invariants: it binds 127.0.0.1 only; a random port unless `redirectPort` is set (then the
//! redirect URI says `localhost`, as Claude Code registers it); every connection is read with
//! a deadline and a size limit, so an idle or hostile connection (a browser's speculative
//! preconnect) never blocks the sign-in; a redirect with the wrong `state` ends the sign-in
//! with [`AuthFailure::StateMismatch`]; other paths get 404 and are ignored.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::authorizer::RedirectParams;
use crate::error::AuthFailure;

/// Path of the redirect URI.
pub const CALLBACK_PATH: &str = "/callback";
/// Longest request head read from one connection.
const MAX_REQUEST_BYTES: usize = 16 * 1024;
/// Deadline for one connection to send its request.
const READ_DEADLINE: Duration = Duration::from_secs(10);
/// Connections served at once (more wait in the accept queue).
const MAX_CONNECTIONS: usize = 16;

/// A bound redirect listener.
pub struct Loopback {
    listener: TcpListener,
    redirect_uri: String,
}

/// What one connection brought.
enum Arrival {
    Answer(RedirectParams),
    Mismatch,
}

impl Loopback {
    /// Binds 127.0.0.1:`port` (`None`: a free port).
    pub async fn bind(port: Option<u16>) -> Result<Self, AuthFailure> {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port.unwrap_or(0)));
        let listener = TcpListener::bind(address)
            .await
            .map_err(|e| AuthFailure::Listener {
                address: address.to_string(),
                reason: e.to_string(),
            })?;
        let bound = listener
            .local_addr()
            .map_err(|e| AuthFailure::Listener {
                address: address.to_string(),
                reason: e.to_string(),
            })?
            .port();
        let host = if port.is_some() {
            "localhost"
        } else {
            "127.0.0.1"
        };
        Ok(Loopback {
            listener,
            redirect_uri: format!("http://{host}:{bound}{CALLBACK_PATH}"),
        })
    }

    /// `http://127.0.0.1:PORT/callback` (`localhost` for a fixed port).
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// Serves until the redirect arrives; the caller bounds the wait.
    pub async fn wait(self, expected_state: &str) -> Result<RedirectParams, AuthFailure> {
        let (tx, mut rx) = mpsc::channel::<Arrival>(MAX_CONNECTIONS);
        let mut connections = JoinSet::new();
        loop {
            tokio::select! {
                accepted = self.listener.accept(), if connections.len() < MAX_CONNECTIONS => {
                    let Ok((stream, _)) = accepted else { continue };
                    let tx = tx.clone();
                    let expected = expected_state.to_owned();
                    connections.spawn(async move {
                        if let Some(arrival) = serve(stream, &expected).await {
                            let _ = tx.send(arrival).await;
                        }
                    });
                }
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
                Some(arrival) = rx.recv() => {
                    return match arrival {
                        Arrival::Answer(params) => Ok(params),
                        Arrival::Mismatch => Err(AuthFailure::StateMismatch {
                            redirect_uri: self.redirect_uri.clone(),
                        }),
                    };
                }
            }
        }
    }
}

/// Reads one request, answers it, and reports a redirect answer.
async fn serve(mut stream: TcpStream, expected_state: &str) -> Option<Arrival> {
    let head = tokio::time::timeout(READ_DEADLINE, read_head(&mut stream))
        .await
        .ok()??;
    let target = head
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("GET "))
        .and_then(|rest| rest.split(' ').next())?
        .to_owned();
    let url = url::Url::parse(&format!("http://127.0.0.1{target}")).ok()?;
    if url.path() != CALLBACK_PATH {
        respond(&mut stream, "404 Not Found", "Not found.").await;
        return None;
    }
    let params = RedirectParams::from_query_pairs(url.query_pairs());
    if !params.is_answer() {
        respond(
            &mut stream,
            "400 Bad Request",
            "This is not a sign-in answer.",
        )
        .await;
        return None;
    }
    if params.state.as_deref() != Some(expected_state) {
        respond(
            &mut stream,
            "400 Bad Request",
            "This sign-in link does not belong to the sign-in coyote is waiting for. Nothing was \
             stored; start the sign-in again.",
        )
        .await;
        return Some(Arrival::Mismatch);
    }
    let page = match &params.error {
        None => "Signed in. You can close this tab and go back to coyote.",
        Some(_) => "The sign-in was refused. coyote shows the reason; you can close this tab.",
    };
    respond(&mut stream, "200 OK", page).await;
    Some(Arrival::Answer(params))
}

async fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        if buf.len() >= MAX_REQUEST_BYTES {
            return None;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8(buf).ok()
}

async fn respond(stream: &mut TcpStream, status: &str, text: &str) {
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>coyote sign-in</title></head>\
         <body><p>{text}</p></body></html>"
    );
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n\
         Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(READ_DEADLINE, async {
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(uri: &str, path: &str) -> String {
        let authority = uri
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap()
            .replace("localhost", "127.0.0.1");
        let mut stream = TcpStream::connect(&authority).await.unwrap();
        let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.unwrap();
        answer
    }

    #[tokio::test]
    async fn the_answer_with_the_right_state_is_returned() {
        let loopback = Loopback::bind(None).await.unwrap();
        let uri = loopback.redirect_uri().to_owned();
        assert!(
            uri.starts_with("http://127.0.0.1:") && uri.ends_with("/callback"),
            "{uri}"
        );
        let waiting = tokio::spawn(loopback.wait("s1"));
        // An idle connection (a browser preconnect) and a stray path change nothing.
        let idle = TcpStream::connect(
            uri.trim_start_matches("http://")
                .trim_end_matches("/callback"),
        )
        .await
        .unwrap();
        assert!(get(&uri, "/favicon.ico").await.starts_with("HTTP/1.1 404"));
        let page = get(&uri, "/callback?code=c1&state=s1").await;
        assert!(
            page.starts_with("HTTP/1.1 200") && page.contains("Signed in"),
            "{page}"
        );
        let params = waiting.await.unwrap().unwrap();
        assert_eq!(params.code.as_deref(), Some("c1"));
        drop(idle);
    }

    #[tokio::test]
    async fn a_wrong_state_ends_the_sign_in() {
        let loopback = Loopback::bind(None).await.unwrap();
        let uri = loopback.redirect_uri().to_owned();
        let waiting = tokio::spawn(loopback.wait("expected"));
        let page = get(&uri, "/callback?code=c1&state=forged").await;
        assert!(page.starts_with("HTTP/1.1 400"), "{page}");
        let error = waiting.await.unwrap().unwrap_err();
        assert!(
            matches!(error, AuthFailure::StateMismatch { .. }),
            "{error:?}"
        );
        assert!(error.to_string().contains(&uri), "{error}");
    }

    #[tokio::test]
    async fn a_fixed_port_is_named_localhost_and_a_taken_one_is_a_clear_error() {
        let first = Loopback::bind(None).await.unwrap();
        let port: u16 = first
            .redirect_uri()
            .rsplit(':')
            .next()
            .unwrap()
            .trim_end_matches("/callback")
            .parse()
            .unwrap();
        let error = Loopback::bind(Some(port)).await.err().unwrap();
        assert!(
            error.to_string().contains(&format!("127.0.0.1:{port}")),
            "{error}"
        );
        assert!(error.to_string().contains("redirectPort"), "{error}");
        drop(first);
        let fixed = Loopback::bind(Some(port)).await.unwrap();
        assert_eq!(
            fixed.redirect_uri(),
            format!("http://localhost:{port}/callback")
        );
    }
}
