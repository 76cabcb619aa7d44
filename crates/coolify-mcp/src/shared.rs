//! [`Shared`]: the state every session and every request of one process shares (instances,
//! mode, registered tools and prompts, policies, clocks, the audit sink, the confirmation
//! seal and the MCP tasks). Built once by `server`; read by `call` and `server`.
//!
//! Below `call` and `server` (both import it; it imports neither).

use std::sync::OnceLock;

use rmcp::model::Tool;

use crate::audit::Audit;
use crate::call_ctx::{Mode, Timing};
use crate::config::{AccessMode, ElicitationSetting, HumanPolicy};
use crate::instances::Instances;
use crate::prompts::PromptName;
use crate::request_state::ConfirmationSeal;
use crate::tasks::TaskStore;
use crate::tools::{self, ToolSet};

/// State shared by every session of one process.
pub struct Shared {
    /// The configured instances.
    pub instances: Instances,
    /// Fleet and read-only flags.
    pub mode: Mode,
    /// The registered tools.
    pub tools: ToolSet,
    /// The registered prompts.
    pub prompts: Vec<PromptName>,
    /// Which tools are registered.
    pub access: AccessMode,
    /// What happens to a guarded operation when the client cannot be asked.
    pub human: HumanPolicy,
    /// Whether the client may be asked.
    pub elicitation: ElicitationSetting,
    /// Deadlines and intervals of long-running operations.
    pub timing: Timing,
    /// The `instructions` sent in `initialize`.
    pub instructions: String,
    /// Audit lines, when enabled.
    pub audit: Audit,
    /// Seals 2026-07-28 confirmation state.
    pub seal: ConfirmationSeal,
    /// The MCP tasks of this process.
    pub tasks: TaskStore,
    pub(crate) tool_defs: OnceLock<Vec<Tool>>,
}

impl Shared {
    /// `tools/list` entries, built on first use.
    pub fn tool_definitions(&self) -> &[Tool] {
        self.tool_defs
            .get_or_init(|| tools::definitions(&self.tools))
    }
}
