//! A TCP proxy between the client and the S3 server that injects faults at a chosen byte.

#![allow(dead_code)]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// What the proxy does to the traffic.
#[derive(Debug, Clone)]
pub enum Fault {
    /// Nothing: every byte passes.
    None,
    /// Once this many bytes of responses (over all connections) have passed, close the
    /// connection carrying the next one, and every connection after it: the server is gone.
    DropAfter(u64),
    /// Once this many bytes of responses have passed, forward nothing more but keep every
    /// connection open, and accept new ones without answering: the server hangs.
    StallAfter(u64),
    /// Close any connection whose requests contain these bytes (say, one part of a
    /// multipart upload), and let everything else pass.
    DropRequestsWith(Vec<u8>),
}

/// The proxy, listening on 127.0.0.1; it stops when dropped.
pub struct Proxy {
    pub port: u16,
    task: JoinHandle<()>,
    /// True once the fault has been applied.
    pub tripped: Arc<AtomicBool>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Proxy {
    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// A proxy to the server on `upstream`.
    pub async fn start(upstream: u16, fault: Fault) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let passed = Arc::new(AtomicU64::new(0));
        let tripped = Arc::new(AtomicBool::new(false));
        let t = tripped.clone();
        let task = tokio::spawn(async move {
            let mut conns = tokio::task::JoinSet::new();
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    return;
                };
                let (fault, passed, tripped) = (fault.clone(), passed.clone(), t.clone());
                conns.spawn(serve(client, upstream, fault, passed, tripped));
            }
        });
        Proxy {
            port,
            task,
            tripped,
        }
    }
}

async fn serve(
    client: TcpStream,
    upstream: u16,
    fault: Fault,
    passed: Arc<AtomicU64>,
    tripped: Arc<AtomicBool>,
) {
    if tripped.load(Ordering::SeqCst) {
        match fault {
            Fault::DropAfter(_) => return, // dropping `client` closes it
            Fault::StallAfter(_) => {
                let _held = client;
                std::future::pending::<()>().await;
                return;
            }
            _ => {}
        }
    }
    let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)).await else {
        return;
    };
    let (mut cr, mut cw) = client.into_split();
    let (mut sr, mut sw) = server.into_split();
    let pattern = match &fault {
        Fault::DropRequestsWith(p) => Some(p.clone()),
        _ => None,
    };
    let t_up = tripped.clone();
    // Requests: client to server, watched for the pattern.
    let up = async move {
        let mut buf = vec![0u8; 64 * 1024];
        let mut tail: Vec<u8> = Vec::new();
        loop {
            let n = match cr.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            if let Some(p) = &pattern {
                tail.extend_from_slice(&buf[..n]);
                if tail.windows(p.len()).any(|w| w == &p[..]) {
                    t_up.store(true, Ordering::SeqCst);
                    return; // ends the connection: both halves are dropped below
                }
                let keep = tail.len().saturating_sub(p.len());
                tail.drain(..keep);
            }
            if sw.write_all(&buf[..n]).await.is_err() {
                return;
            }
        }
    };
    // Responses: server to client, counted for the byte faults.
    let down = async move {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match sr.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            let limit = match fault {
                Fault::DropAfter(at) | Fault::StallAfter(at) => at,
                _ => u64::MAX,
            };
            let before = passed.fetch_add(n as u64, Ordering::SeqCst);
            let allowed = limit.saturating_sub(before).min(n as u64) as usize;
            if cw.write_all(&buf[..allowed]).await.is_err() {
                return;
            }
            if allowed < n {
                tripped.store(true, Ordering::SeqCst);
                if let Fault::StallAfter(_) = fault {
                    let _held = (cw, sr);
                    std::future::pending::<()>().await;
                }
                return;
            }
        }
    };
    // Either direction ending ends the connection (both sockets close when dropped).
    tokio::select! {
        () = up => {}
        () = down => {}
    }
}
