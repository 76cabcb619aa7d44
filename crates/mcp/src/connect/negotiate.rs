//! Which protocol revision a connection speaks, and the handshake that settles it: protocol
//! 2026-07-28's `server/discover` first, falling back to the 2025-11-25 `initialize`
//! handshake on the same transport when the server does not speak 2026-07-28 (what the
//! version-negotiation rules of 2026-07-28 ask of a client); or one of the two alone when a
//! revision is pinned; or `initialize` first when the catalog cache remembers that the server
//! answered it last time.
//!
//! Invariants:
//! - Neither step has a time limit of its own: the whole handshake runs under the caller's
//!   start-up deadline, so a slow server (`npx -y` fetching a package, eleven servers starting
//!   at once) is waited for instead of being abandoned — and no request is ever abandoned
//!   mid-way, so no late answer can arrive for it.
//! - A fallback reuses the transport of the first attempt ([`Home`]): the stdio child and its
//!   pipes, or the HTTP client, stay the same.
//! - Only a server's own answer (a JSON-RPC error that is not a 2026-07-28 rejection, a list of
//!   supported revisions without 2026-07-28, a result of the wrong kind) counts as "does not
//!   speak it"; a closed connection or a transport error fails the start.

use std::future::Future;
use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::model::{ErrorCode, ProtocolVersion};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService,
    RxJsonRpcMessage, TxJsonRpcMessage,
};
use rmcp::transport::Transport;
use serde::{Deserialize, Serialize};
use tokio::sync::{Mutex, watch};

use super::Observed;
use super::client_tasks::ClientTasks;
use super::log_opt_in::LogOptIn;
use crate::client_handler::Handler;

/// Which protocol revisions a connection offers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ProtocolRevisions {
    /// Pinned to 2025-11-25 through the `initialize` handshake (a server may answer an older
    /// revision).
    #[default]
    Initialize,
    /// 2026-07-28 first (`server/discover`, per-request `_meta`), falling back to `initialize`
    /// with 2025-11-25 when the server does not speak it; what a server answered is
    /// remembered in the catalog cache.
    Newest,
    /// Pinned to 2026-07-28: `server/discover` only; a server that does not speak it fails to
    /// start with an error that says so.
    Discover,
}

/// The handshake a server answered: what the catalog cache remembers of a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lifecycle {
    /// `server/discover` (protocol 2026-07-28 and later).
    Discover,
    /// `initialize` (protocol 2025-11-25 and earlier).
    Initialize,
}

/// The handshake steps of one start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plan {
    /// `initialize` only.
    Initialize,
    /// `server/discover` only.
    Discover,
    /// `server/discover`, then `initialize` when the server does not speak 2026-07-28.
    DiscoverThenInitialize,
    /// `initialize` (remembered), then `server/discover` when the server refuses it.
    InitializeThenDiscover,
}

impl Plan {
    /// The plan for `offered` revisions given what the cache remembers of the server.
    pub(crate) fn new(offered: ProtocolRevisions, remembered: Option<Lifecycle>) -> Plan {
        match (offered, remembered) {
            (ProtocolRevisions::Initialize, _) => Plan::Initialize,
            (ProtocolRevisions::Discover, _) => Plan::Discover,
            (ProtocolRevisions::Newest, Some(Lifecycle::Initialize)) => {
                Plan::InitializeThenDiscover
            }
            (ProtocolRevisions::Newest, _) => Plan::DiscoverThenInitialize,
        }
    }

    /// Whether the start learns what the server speaks (a pinned start does not).
    fn learns(self) -> bool {
        matches!(
            self,
            Plan::DiscoverThenInitialize | Plan::InitializeThenDiscover
        )
    }
}

/// A handshake that succeeded.
pub(crate) struct Negotiated {
    pub(crate) service: RunningService<RoleClient, Handler>,
    /// Becomes `true` once the transport stops delivering messages.
    pub(crate) ended: watch::Receiver<bool>,
    /// What the server answered, when this start was free to choose (not pinned).
    pub(crate) learned: Option<Lifecycle>,
}

/// A handshake that failed: rmcp's error and the step it failed in.
#[derive(Debug)]
pub(crate) struct Refused {
    pub(crate) error: ClientInitializeError,
    pub(crate) step: Lifecycle,
    /// 2026-07-28 was pinned and the server answered that it does not speak it.
    pub(crate) pinned_modern_refused: bool,
}

/// Runs `plan` over `transport` with clones of `handler`.
pub(crate) async fn serve<T>(
    handler: Handler,
    transport: T,
    plan: Plan,
) -> Result<Negotiated, Refused>
where
    T: Transport<RoleClient> + Send + 'static,
{
    let home = Home::new(transport);
    let (first, second) = match plan {
        Plan::Initialize => (Lifecycle::Initialize, None),
        Plan::Discover => (Lifecycle::Discover, None),
        Plan::DiscoverThenInitialize => (Lifecycle::Discover, Some(Lifecycle::Initialize)),
        Plan::InitializeThenDiscover => (Lifecycle::Initialize, Some(Lifecycle::Discover)),
    };
    let learned = |step| plan.learns().then_some(step);
    match attempt(handler.clone(), &home, first).await {
        Ok((service, ended)) => Ok(Negotiated {
            service,
            ended,
            learned: learned(first),
        }),
        Err(error) => match second {
            Some(next) if answered_without_it(&error, first) => {
                tracing::debug!(
                    "the server answered {} without speaking it ({error}); trying {}",
                    step_name(first),
                    step_name(next)
                );
                match attempt(handler, &home, next).await {
                    Ok((service, ended)) => Ok(Negotiated {
                        service,
                        ended,
                        learned: learned(next),
                    }),
                    Err(error) => Err(Refused {
                        error,
                        step: next,
                        pinned_modern_refused: false,
                    }),
                }
            }
            _ => Err(Refused {
                pinned_modern_refused: plan == Plan::Discover
                    && answered_without_it(&error, Lifecycle::Discover),
                error,
                step: first,
            }),
        },
    }
}

/// The request that opens `step`.
pub(crate) fn step_name(step: Lifecycle) -> &'static str {
    match step {
        Lifecycle::Discover => "server/discover",
        Lifecycle::Initialize => "initialize",
    }
}

/// One handshake over a transport lent from `home`.
fn attempt<T>(
    handler: Handler,
    home: &Home<T>,
    step: Lifecycle,
) -> impl Future<
    Output = Result<
        (RunningService<RoleClient, Handler>, watch::Receiver<bool>),
        ClientInitializeError,
    >,
> + Send
where
    T: Transport<RoleClient> + Send + 'static,
{
    let opted_in = LogOptIn::new(home.lend(), handler.generations());
    let tasks = ClientTasks::new(opted_in, handler.generations());
    let (transport, ended) = Observed::new(tasks);
    async move {
        let service = match step {
            Lifecycle::Initialize => handler.serve(transport).await?,
            Lifecycle::Discover => {
                let lifecycle = ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                };
                handler.serve_with_lifecycle(transport, lifecycle).await?
            }
        };
        Ok((service, ended))
    }
}

/// Whether `error` is the server's own answer that it does not speak the revision `step`
/// opens (so the other handshake may follow on the same transport).
pub(crate) fn answered_without_it(error: &ClientInitializeError, step: Lifecycle) -> bool {
    match error {
        // A 2026-07-28 server that rejects the request's metadata speaks 2026-07-28.
        ClientInitializeError::JsonRpcError(data) => {
            step == Lifecycle::Initialize
                || !matches!(
                    data.code,
                    ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY | ErrorCode::HEADER_MISMATCH
                )
        }
        // Its supported revisions all have the `initialize` handshake.
        ClientInitializeError::NoCompatibleProtocolVersion {
            server_supported, ..
        } => step == Lifecycle::Discover && server_supported.iter().all(|v| v.has_initialize()),
        // It answered with a result of another kind (an old server that answers every
        // unknown method with `{}`).
        ClientInitializeError::ExpectedInitResult(Some(_)) => true,
        _ => false,
    }
}

/// The transport of a start, lent to one handshake attempt at a time: an attempt that fails
/// drops its [`Lent`] and the next attempt borrows the same transport.
struct Home<T> {
    shared: Arc<Mutex<T>>,
}

impl<T> Home<T> {
    fn new(transport: T) -> Self {
        Home {
            shared: Arc::new(Mutex::new(transport)),
        }
    }

    fn lend(&self) -> Lent<T> {
        Lent {
            shared: self.shared.clone(),
        }
    }
}

/// A send of the inner transport.
type Sending<E> = std::pin::Pin<Box<dyn Future<Output = Result<(), E>> + Send + 'static>>;

/// A lent transport: every call goes to the shared one. Calls never overlap (rmcp holds the
/// transport by `&mut`), so the lock is only ever free when taken.
struct Lent<T> {
    shared: Arc<Mutex<T>>,
}

impl<T: Transport<RoleClient> + Send + 'static> Transport<RoleClient> for Lent<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        // Taken at once, so messages go out in the order they were given. (Boxed: the inner
        // future is `'static` but its type names the guard's borrow.)
        let sent: Result<Sending<T::Error>, _> = match self.shared.try_lock() {
            Ok(mut inner) => Ok(Box::pin(inner.send(item))),
            Err(_) => Err((self.shared.clone(), item)),
        };
        async move {
            match sent {
                Ok(sent) => sent.await,
                Err((shared, item)) => {
                    let sent: Sending<T::Error> = Box::pin(shared.lock().await.send(item));
                    sent.await
                }
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        self.shared.lock().await.receive().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.shared.lock().await.close().await
    }
}

#[cfg(test)]
#[path = "negotiate_tests.rs"]
mod tests;
