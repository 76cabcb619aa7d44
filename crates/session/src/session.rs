//! [`Session`]: everything a conversation's turns share — the model, the MCP runtime and its
//! dispatcher, the options, and what the user approved "always" — built once by the front-end
//! with [`SessionBuilder`]. The conversation itself is not in here: it is a plain value the
//! front-end owns and passes to [`Session::run_turn`].

use std::sync::Arc;

use coyote_llm::{Provider, StreamMode};
use coyote_mcp::meta::{ExposurePolicies, MetaDispatcher};
use coyote_mcp::render::{ResultBudgets, default_result_bytes};
use coyote_mcp::{McpRuntime, SpillStore};
use tokio_util::sync::CancellationToken;

use crate::approval::{ApprovalMemory, ApprovalPolicies, Approver};
use crate::compact::ContextPolicy;
use crate::delegate::Delegates;
use crate::event::EventSink;
use crate::tools::ServerSelection;

/// Tool rounds per turn unless configured (`max_tool_rounds` in config.yaml).
pub const DEFAULT_MAX_TOOL_ROUNDS: u32 = 25;

/// MCP calls of one round that run at the same time; the rest wait for a free slot.
pub const MAX_CONCURRENT_TOOL_CALLS: usize = 8;

/// The model and its request options.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSettings {
    /// The model id the server knows.
    pub name: String,
    /// Output limit per response (`max_tokens` of the model's config entry).
    pub max_tokens: Option<u32>,
    /// Sampling temperature; `None` leaves the provider's default.
    pub temperature: Option<f64>,
}

impl ModelSettings {
    /// A model with no output limit or temperature set.
    pub fn named(name: impl Into<String>) -> Self {
        ModelSettings {
            name: name.into(),
            max_tokens: None,
            temperature: None,
        }
    }
}

/// Per-turn behaviour.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionOptions {
    /// Rounds of tool calls per turn before the turn stops with
    /// [`crate::StopReason::MaxToolRounds`].
    pub max_tool_rounds: u32,
    /// Streamed or whole answers.
    pub stream: StreamMode,
    /// Which servers the model may use.
    pub servers: ServerSelection,
    /// When tool calls need the user's approval.
    pub approvals: ApprovalPolicies,
    /// How each server's tools are declared (`expose`). Read when the session is
    /// built: the dispatcher owns it from then on.
    pub exposure: ExposurePolicies,
    /// The servers' result budgets (`maxResultBytes`, `toolLimits`). Read when the
    /// session is built; the default comes from the context window ([`ContextPolicy`]).
    pub budgets: ResultBudgets,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            max_tool_rounds: DEFAULT_MAX_TOOL_ROUNDS,
            stream: StreamMode::Streaming,
            servers: ServerSelection::All,
            approvals: ApprovalPolicies::default(),
            exposure: ExposurePolicies::default(),
            budgets: ResultBudgets::default(),
        }
    }
}

/// What the front-end lends one turn: where events go, who answers approval questions, and the
/// token that cancels the turn (Ctrl-C).
pub struct TurnContext<'a> {
    /// Where the turn's events go.
    pub events: &'a dyn EventSink,
    /// Who answers approval questions.
    pub approver: &'a dyn Approver,
    /// Cancelled to stop the turn (Ctrl-C).
    pub cancel: CancellationToken,
}

impl std::fmt::Debug for TurnContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnContext")
            .field("cancelled", &self.cancel.is_cancelled())
            .finish_non_exhaustive()
    }
}

/// The shared state of a conversation's turns.
#[derive(Debug)]
pub struct Session {
    pub(crate) provider: Arc<dyn Provider>,
    pub(crate) model: ModelSettings,
    pub(crate) runtime: McpRuntime,
    pub(crate) dispatcher: MetaDispatcher,
    pub(crate) options: SessionOptions,
    pub(crate) approvals: ApprovalMemory,
    /// The agents this session may delegate to (`agent_delegate_*`, see `delegate.rs`).
    pub(crate) delegates: Option<Delegates>,
    /// Where compaction keeps old tool results (the same store the dispatcher spills to).
    pub(crate) spill: SpillStore,
    /// The context window and when to compact (see `compact.rs`).
    pub(crate) context: ContextPolicy,
}

/// Builds a [`Session`].
#[derive(Debug)]
pub struct SessionBuilder {
    provider: Arc<dyn Provider>,
    model: ModelSettings,
    runtime: McpRuntime,
    spill: SpillStore,
    options: SessionOptions,
    context: Option<ContextPolicy>,
    delegates: Option<Delegates>,
}

impl SessionBuilder {
    /// The context window and compaction threshold (default: derived from the model name,
    /// [`ContextPolicy::for_model`]).
    pub fn context(mut self, context: ContextPolicy) -> Self {
        self.context = Some(context);
        self
    }

    /// Replaces every per-turn option.
    pub fn options(mut self, options: SessionOptions) -> Self {
        self.options = options;
        self
    }

    /// Sets the rounds of tool calls per turn (at least 1).
    pub fn max_tool_rounds(mut self, rounds: u32) -> Self {
        self.options.max_tool_rounds = rounds.max(1);
        self
    }

    /// Sets streamed or whole answers.
    pub fn stream(mut self, stream: StreamMode) -> Self {
        self.options.stream = stream;
        self
    }

    /// Sets which servers the model may use.
    pub fn servers(mut self, servers: ServerSelection) -> Self {
        self.options.servers = servers;
        self
    }

    /// Sets the approval policies.
    pub fn approvals(mut self, approvals: ApprovalPolicies) -> Self {
        self.options.approvals = approvals;
        self
    }

    /// Per-server tool exposure, usually `ExposurePolicies::from_specs(&specs)`.
    pub fn exposure(mut self, exposure: ExposurePolicies) -> Self {
        self.options.exposure = exposure;
        self
    }

    /// Per-server result budgets, usually `ResultBudgets::from_specs(&specs)`; the default
    /// budget is derived from the context window when the session is built.
    pub fn budgets(mut self, budgets: ResultBudgets) -> Self {
        self.options.budgets = budgets;
        self
    }

    /// The agents the model may delegate to (one `agent_delegate_<name>` function each).
    pub fn delegates(mut self, delegates: Delegates) -> Self {
        self.delegates = Some(delegates);
        self
    }

    /// The session, with the context policy derived from the model when none was set.
    pub fn build(self) -> Session {
        let context = self
            .context
            .unwrap_or_else(|| ContextPolicy::for_model(&self.model.name, None));
        let budgets = self
            .options
            .budgets
            .clone()
            .with_default(default_result_bytes(u64::from(context.window)));
        Session {
            dispatcher: MetaDispatcher::new(self.runtime.clone(), self.spill.clone())
                .with_exposure(self.options.exposure.clone())
                .with_budgets(budgets),
            spill: self.spill,
            context,
            provider: self.provider,
            model: self.model,
            runtime: self.runtime,
            options: self.options,
            approvals: ApprovalMemory::default(),
            delegates: self.delegates,
        }
    }
}

impl Session {
    /// `spill` is where binaries and oversized tool results go (`<cache>/mcp-resources`).
    pub fn builder(
        provider: Arc<dyn Provider>,
        model: ModelSettings,
        runtime: McpRuntime,
        spill: SpillStore,
    ) -> SessionBuilder {
        SessionBuilder {
            provider,
            model,
            runtime,
            spill,
            options: SessionOptions::default(),
            context: None,
            delegates: None,
        }
    }

    /// `client:model` style label: the provider's name and the model id.
    pub fn model_label(&self) -> String {
        format!("{}:{}", self.provider.name(), self.model.name)
    }

    /// The model and its request options.
    pub fn model(&self) -> &ModelSettings {
        &self.model
    }

    /// The provider the model is requested from.
    pub fn provider(&self) -> &Arc<dyn Provider> {
        &self.provider
    }

    /// Switches the model for the next turns (`.model`); the conversation carries over.
    pub fn set_model(&mut self, provider: Arc<dyn Provider>, model: ModelSettings) {
        self.provider = provider;
        self.model = model;
    }

    /// The MCP servers of this session.
    pub fn runtime(&self) -> &McpRuntime {
        &self.runtime
    }

    /// The dispatcher that runs the model's function calls.
    pub fn dispatcher(&self) -> &MetaDispatcher {
        &self.dispatcher
    }

    /// The per-turn options.
    pub fn options(&self) -> &SessionOptions {
        &self.options
    }

    /// Changes which servers the model may use from the next request on (`.mcp enable`).
    pub fn set_servers(&mut self, servers: ServerSelection) {
        self.options.servers = servers;
    }

    /// The context window and compaction threshold in force.
    pub fn context(&self) -> &ContextPolicy {
        &self.context
    }

    /// Changes the context policy (after `.model`, or a role that switches the model).
    pub fn set_context(&mut self, context: ContextPolicy) {
        self.context = context;
        self.dispatcher
            .set_default_budget(default_result_bytes(u64::from(context.window)));
    }

    /// The agents this session may delegate to.
    pub fn delegates(&self) -> Option<&Delegates> {
        self.delegates.as_ref()
    }

    /// `(server, tool)` pairs approved "always" in this session.
    pub fn always_approved(&self) -> Vec<(String, String)> {
        self.approvals.snapshot()
    }
}
