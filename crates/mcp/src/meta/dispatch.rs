//! THE dispatcher: a function name and its JSON arguments become one of the five behaviours.
//! A name is resolved only against the declaration set of the current request
//! ([`MetaDispatcher::declarations`] records it, [`MetaDispatcher::resolve`] reads it): a name
//! that set does not declare is an error naming the callable functions, never a request to a
//! server. A caller that needs the target before running it (the session's approval) resolves
//! with [`MetaDispatcher::resolve`] and runs that very target with
//! [`MetaDispatcher::dispatch_target`]; the CLI's `coyote mcp search|describe|read|prompt`
//! build their target from the server and kind the user named. Arguments are parsed into typed
//! requests (`call`) — with errors that tell the model exactly which parameter to fix — before
//! any request reaches a server. A server that is not Ready answers with its health line.
//!
//! A direct tool name resolves to its `(server, tool)` and becomes the very `Invoke`
//! call an `mcp_invoke_` would: same server lookup, timeout, result bounding and output text.

use std::sync::{Arc, Mutex};

use coyote_protocol::FunctionDeclaration;

use serde_json::{Map, Value};

use super::actions;
use super::annotations::AnnotationMemo;
use super::call::{Args, Call, json_type, parse_call};
use super::callable::Callable;
pub use super::error::DispatchError;
use super::exposure::{ExposurePolicies, ExposureReport};
pub use super::outcome::{DispatchBody, DispatchOutcome, result_header};
use super::page_cache::PageCache;
use super::retrieve::{RetrieveContext, Retrieved};
use super::surface::Surface;
use super::{FunctionTarget, MetaFunction, MetaKind};
use crate::catalog::CatalogKind;
use crate::error::McpError;
use crate::render::RESULT_HANDLE_SCHEME;
use crate::render::{ResultBudgets, SpillStore};
use crate::runtime::McpRuntime;

/// Runs meta-functions and direct tools against a runtime's servers; cheap to clone (clones
/// share the exposure state and the name table of the latest declaration set).
#[derive(Debug, Clone)]
pub struct MetaDispatcher {
    runtime: McpRuntime,
    spill: SpillStore,
    annotations: AnnotationMemo,
    surface: Arc<Surface>,
    budgets: Arc<Mutex<ResultBudgets>>,
    pages: Arc<PageCache>,
}

impl MetaDispatcher {
    /// `spill` is where binaries and oversized results go (`<cache>/mcp-resources`).
    pub fn new(runtime: McpRuntime, spill: SpillStore) -> Self {
        MetaDispatcher {
            runtime,
            spill,
            annotations: AnnotationMemo::default(),
            surface: Arc::new(Surface::default()),
            budgets: Arc::new(Mutex::new(ResultBudgets::default())),
            pages: Arc::new(PageCache::default()),
        }
    }

    /// The result budgets (default: none of the servers' own and the largest default — what
    /// `coyote mcp call/read` use; the session sets the model's).
    pub fn with_budgets(mut self, budgets: ResultBudgets) -> Self {
        self.budgets = Arc::new(Mutex::new(budgets));
        self
    }

    /// The budgets in force.
    pub fn budgets(&self) -> ResultBudgets {
        self.budgets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Changes the default budget (the model changed); shared by the dispatcher's clones.
    pub fn set_default_budget(&self, bytes: usize) {
        let mut budgets = self.budgets.lock().unwrap_or_else(|p| p.into_inner());
        *budgets = budgets.clone().with_default(bytes);
    }

    fn output(&self, server: &str, tool: Option<&str>) -> actions::Output<'_> {
        actions::Output {
            spill: &self.spill,
            max_result_bytes: self.budgets().for_call(server, tool),
            pages: &self.pages,
        }
    }

    /// How each server's tools are exposed (default: every server `auto`).
    pub fn with_exposure(mut self, policies: ExposurePolicies) -> Self {
        self.surface = Arc::new(Surface::new(policies));
        self
    }

    /// How each server's tools are exposed.
    pub fn exposure(&self) -> &ExposurePolicies {
        &self.surface.policies
    }

    /// The servers this dispatcher runs calls against.
    pub fn runtime(&self) -> &McpRuntime {
        &self.runtime
    }

    /// Where binaries and oversized results are stored.
    pub fn spill_store(&self) -> &SpillStore {
        &self.spill
    }

    /// The declarations of one request for the selected `servers` (by name): Ready servers
    /// direct or through meta-functions per their exposure, others by one health line. THE
    /// computation of what a request may call: the same set becomes the callable one that
    /// [`MetaDispatcher::resolve`] answers from until the next call.
    pub async fn declarations(&self, servers: &[String]) -> Vec<FunctionDeclaration> {
        self.declarations_for(servers, &RetrieveContext::default())
            .await
    }

    /// [`MetaDispatcher::declarations`] for a request whose conversation is `context`: the
    /// `retrieve` servers declare the tools that fit it.
    pub async fn declarations_for(
        &self,
        servers: &[String],
        context: &RetrieveContext,
    ) -> Vec<FunctionDeclaration> {
        self.surface
            .declarations(&self.runtime, servers, context)
            .await
    }

    /// The tools `retrieve` servers declared in the latest declaration set, and why.
    pub fn retrieved(&self) -> Vec<Retrieved> {
        self.surface.retrieved()
    }

    /// What `retrieve` would declare of `server` for `context` (`coyote mcp retrieve`);
    /// `None` when the server's tools cannot be listed now.
    pub async fn retrieve_preview(
        &self,
        server: &str,
        context: &RetrieveContext,
    ) -> Option<Vec<Retrieved>> {
        self.surface.preview(&self.runtime, server, context).await
    }

    /// What a called function name addresses in the latest declaration set; `None` for a
    /// name that set does not declare.
    pub fn resolve(&self, name: &str) -> Option<FunctionTarget> {
        self.surface.callable().resolve(name).cloned()
    }

    /// The function names the latest declaration set declares, sorted.
    pub fn callable_names(&self) -> Vec<String> {
        self.surface.callable().names()
    }

    /// A snapshot of the latest declaration set's callable functions. A caller that must
    /// check calls against the request that produced them while later requests are declared
    /// (a batch of calls, a server's sampling request, a mention typed before a `.mcp`
    /// change) keeps this value, resolves with [`Callable::resolve`] and runs the target with
    /// [`MetaDispatcher::dispatch_target`].
    pub fn callable(&self) -> Callable {
        self.surface.callable()
    }

    /// One server's configured and effective exposure and declaration token estimate.
    pub async fn exposure_report(&self, server: &str) -> ExposureReport {
        self.surface.report(&self.runtime, server).await
    }

    /// Runs the meta-function `name` with `args` (a JSON object; `null` counts as `{}`).
    pub async fn dispatch(
        &self,
        name: &str,
        args: Value,
    ) -> Result<DispatchOutcome, DispatchError> {
        let target = self
            .resolve(name)
            .ok_or_else(|| DispatchError::NotDeclared {
                name: name.to_string(),
                callable: self.callable_names(),
            })?;
        self.dispatch_target(name, target, args).await
    }

    /// Runs `target`, which [`Self::resolve`] made of the called `name` (kept for messages): a
    /// caller that resolved a call once — to ask for approval, say — runs exactly what it
    /// checked, without the name being parsed again.
    pub async fn dispatch_target(
        &self,
        name: &str,
        target: FunctionTarget,
        args: Value,
    ) -> Result<DispatchOutcome, DispatchError> {
        // A server that cannot serve answers with its health line whatever the arguments; an
        // Idle one (declared from its cached catalog) starts now.
        let handle = match self.runtime.acquire(target.server()).await {
            Ok(handle) => handle,
            Err(McpError::ServerNotReady { server, state }) => {
                return Err(DispatchError::Unavailable { server, state });
            }
            Err(e) => return Err(e.into()),
        };
        let (function, call) = match target {
            FunctionTarget::Meta(function) => {
                let args = Args::new(&function, args)?;
                let call = parse_call(&function, args)?;
                (function, call)
            }
            // A direct tool is an invoke whose arguments are the tool's own.
            FunctionTarget::Direct(direct) => {
                let arguments = match args {
                    Value::Object(map) => map,
                    Value::Null => Map::new(),
                    other => {
                        return Err(DispatchError::BadArguments {
                            function: name.to_string(),
                            problem: format!(
                                "arguments must be a JSON object, got {}",
                                json_type(&other)
                            ),
                        });
                    }
                };
                let call = Call::Invoke {
                    tool: direct.tool,
                    arguments,
                };
                (MetaFunction::new(MetaKind::Invoke, direct.server), call)
            }
        };
        let tool = match &call {
            Call::Invoke { tool, .. } => Some(tool.clone()),
            Call::Search(_)
            | Call::Describe(_)
            | Call::Read(_)
            | Call::Prompt(_)
            | Call::Task(_) => None,
        };
        if self.surface.declared_from_cache(handle.name()) {
            self.check_still_offered(&handle, &call).await?;
        }
        let (body, is_error) = match call {
            Call::Search(req) => {
                let out = actions::search(&handle, req).await?;
                self.annotations.learn(handle.name(), &out);
                (DispatchBody::Json(out), false)
            }
            Call::Describe(req) => {
                let out = actions::describe(&handle, req).await?;
                self.annotations.learn(handle.name(), &out);
                (DispatchBody::Json(out), false)
            }
            Call::Invoke { tool, arguments } => {
                let out = self.output(handle.name(), Some(&tool));
                let (value, is_error) = actions::invoke(&handle, out, &tool, arguments).await?;
                (DispatchBody::Json(value), is_error)
            }
            Call::Task(id) => {
                let out = self.output(handle.name(), None);
                let (value, is_error) = actions::task(&handle, out, &id).await?;
                (DispatchBody::Json(value), is_error)
            }
            Call::Read(req) => {
                let out = self.output(handle.name(), None);
                let skills = self.surface.skills_of(&handle).await;
                let mut out = match super::skills::read(&handle, skills.as_deref(), out, &req).await
                {
                    Some(read) => read?,
                    None => actions::read(&handle, out, req).await?,
                };
                self.annotations.annotate(handle.name(), &mut out);
                (DispatchBody::Json(out), false)
            }
            Call::Prompt(req) => {
                let out = self.output(handle.name(), None);
                (
                    DispatchBody::Text(actions::prompt(&handle, out, req).await?),
                    false,
                )
            }
        };
        if carries_handle(&body) {
            self.surface.note_handle(handle.name());
        }
        if carries_running_task(&body) {
            self.surface.note_task_handle(handle.name());
        }
        Ok(DispatchOutcome {
            function,
            body,
            is_error,
            tool,
        })
    }
}

impl MetaDispatcher {
    /// A call of a tool or prompt declared from the server's cached catalog: the item must
    /// still be in the live list, else the catalog changed under the declaration.
    async fn check_still_offered(
        &self,
        handle: &crate::handle::ServerHandle,
        call: &Call,
    ) -> Result<(), DispatchError> {
        let (kind, id, offered) = match call {
            Call::Invoke { tool, .. } => {
                let tools = handle.list_tools().await?;
                (
                    CatalogKind::Tool,
                    tool,
                    tools.iter().any(|t| &t.name == tool),
                )
            }
            Call::Prompt(req) => {
                let prompts = handle.list_prompts().await?;
                (
                    CatalogKind::Prompt,
                    &req.name,
                    prompts.iter().any(|p| p.name == req.name),
                )
            }
            Call::Search(_) | Call::Describe(_) | Call::Read(_) | Call::Task(_) => return Ok(()),
        };
        if offered {
            return Ok(());
        }
        Err(DispatchError::CatalogChanged {
            server: handle.name().to_owned(),
            kind,
            id: id.clone(),
        })
    }
}

/// Whether a result is a tool call still running as an MCP task (`{"task": {"status": …}}`).
fn carries_running_task(body: &DispatchBody) -> bool {
    let DispatchBody::Json(value) = body else {
        return false;
    };
    value
        .pointer("/task/status")
        .and_then(Value::as_str)
        .is_some_and(|s| !matches!(s, "completed" | "failed" | "cancelled"))
}

/// Whether a result names a `coyote-result://` handle (then its server keeps `mcp_read_`).
fn carries_handle(body: &DispatchBody) -> bool {
    fn walk(value: &Value) -> bool {
        match value {
            Value::String(s) => s.starts_with(RESULT_HANDLE_SCHEME),
            Value::Array(items) => items.iter().any(walk),
            Value::Object(map) => map.values().any(walk),
            Value::Null | Value::Bool(_) | Value::Number(_) => false,
        }
    }
    match body {
        DispatchBody::Json(value) => walk(value),
        DispatchBody::Text(text) => text.contains(RESULT_HANDLE_SCHEME),
    }
}

#[cfg(test)]
#[path = "dispatch_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "budget_tests.rs"]
mod budget_tests;

#[cfg(test)]
#[path = "content_tests.rs"]
mod content_tests;
