//! The servers of one `coyote mcp` process. The runtime is created when a command first needs
//! a server, and each server starts the first time a command needs it; later commands of the
//! same process (`coyote mcp batch`) reuse it. When the resolved server entries change between
//! two commands (a batch ran `mcp add` or `mcp remove`), every server is shut down and the
//! next command starts what it needs afresh, so it sees what it would see run alone; so does
//! a server that failed or closed since the command before.

use std::collections::HashSet;

use coyote_config::ConfigPaths;
use coyote_mcp::{McpRuntime, ServerState};
use coyote_protocol::McpServerSpec;

use crate::args::GlobalArgs;
use crate::client::Askers;
use crate::setup;

/// A lazily created runtime and the servers started in it.
pub struct ServerPool<'a> {
    global: &'a GlobalArgs,
    paths: &'a ConfigPaths,
    runtime: Option<McpRuntime>,
    /// The resolved entries the running servers were started from.
    config: Vec<McpServerSpec>,
    started: HashSet<String>,
    /// Who answers the servers' questions instead of this process's terminal (a session
    /// daemon's forwarder).
    askers: Option<Askers>,
}

impl<'a> ServerPool<'a> {
    /// A pool that has started nothing yet.
    pub fn new(global: &'a GlobalArgs, paths: &'a ConfigPaths) -> Self {
        ServerPool {
            global,
            paths,
            runtime: None,
            config: Vec::new(),
            started: HashSet::new(),
            askers: None,
        }
    }

    /// A pool whose servers' questions go to `askers`.
    pub fn with_askers(mut self, askers: Askers) -> Self {
        self.askers = Some(askers);
        self
    }

    /// The global options the commands run with.
    pub fn global(&self) -> &'a GlobalArgs {
        self.global
    }

    /// The resolved directories.
    pub fn paths(&self) -> &'a ConfigPaths {
        self.paths
    }

    /// The runtime with `specs` started (those not started yet start now, concurrently);
    /// `config` is every resolved entry of the command's configuration.
    pub async fn ready(
        &mut self,
        config: &[McpServerSpec],
        specs: Vec<McpServerSpec>,
    ) -> McpRuntime {
        if self.config != config {
            self.shutdown().await;
            config.clone_into(&mut self.config);
        }
        let runtime = self
            .runtime
            .get_or_insert_with(|| {
                setup::runtime_with(self.global, self.paths, self.askers.clone())
            })
            .clone();
        // A server that failed or closed since an earlier command (its process died, an HTTP
        // server restarted and rejected the session) starts afresh, as it would for a command
        // run alone.
        for spec in &specs {
            let broken = matches!(
                runtime.state(&spec.name),
                Some(ServerState::Failed(_) | ServerState::Closed)
            );
            if broken && self.started.remove(&spec.name) {
                tracing::info!(server = %spec.name, "starting a failed MCP server again");
                runtime.close_server(&spec.name).await;
            }
        }
        let fresh: Vec<McpServerSpec> = specs
            .into_iter()
            .filter(|spec| self.started.insert(spec.name.clone()))
            .collect();
        if !fresh.is_empty() {
            runtime.start_all(fresh).await;
        }
        runtime
    }

    /// Each server of the runtime with its state (`ready`, `failed: …`).
    pub fn statuses(&self) -> Vec<(String, String)> {
        self.runtime.as_ref().map_or_else(Vec::new, |runtime| {
            runtime
                .statuses()
                .into_iter()
                .map(|s| (s.name, s.state.to_string()))
                .collect()
        })
    }

    /// Closes `name` if it was started, so the next command that needs it starts it afresh
    /// (after a sign-in or sign-out its credentials changed).
    pub async fn restart(&mut self, name: &str) {
        if self.started.remove(name)
            && let Some(runtime) = &self.runtime
        {
            runtime.close_server(name).await;
        }
    }

    /// Shuts every started server down (process groups included); the pool can start again.
    pub async fn shutdown(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown().await;
        }
        self.started.clear();
    }
}
