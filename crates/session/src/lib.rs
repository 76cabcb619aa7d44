//! coyote-session: the UI-free turn loop. A front-end (one-shot chat, the REPL, a delegate
//! agent) builds one [`Session`] — model, MCP runtime, options — owns a [`Conversation`] (a
//! plain serialisable value) and calls [`Session::run_turn`] with a [`TurnContext`]: an
//! [`EventSink`] for the typed [`SessionEvent`]s, an [`Approver`] for tool approval, and a
//! cancellation token. Knows no terminal, clap or config crate.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod approval;
mod calls;
mod compact;
mod compact_summary;
mod conversation;
mod delegate;
mod event;
mod instructions;
mod mentions;
mod repeat;
mod retrieval;
mod sampling;
mod session;
mod tools;
mod turn;

pub use approval::{
    ApprovalDecision, ApprovalPolicies, ApprovalReason, ApprovalRequest, ApproveAll, Approver,
    RefuseAll, ServerPolicy, ToolAnnotations, approval_reason,
};
pub use calls::CANCELLED_TEXT;
pub use compact::{
    AutoCompact, COMPACTED_RESULT_PREFIX, CompactError, CompactReport, CompactTrigger,
    ContextPolicy, ContextUsage, DEFAULT_COMPACT_THRESHOLD_PERCENT, DEFAULT_CONTEXT_WINDOW,
    DEFAULT_KEEP_LAST_TURNS, MIN_SPILLED_RESULT_BYTES, SUMMARY_LABEL, estimate_tokens,
    known_context_window,
};
pub use conversation::{Conversation, UsageTotals};
pub use delegate::{
    DELEGATE_PREFIX, DelegateError, DelegateInfo, DelegateLaunch, DelegateLauncher, DelegateRun,
    Delegates, MAX_DELEGATE_DEPTH, delegate_function_name,
};
pub use event::{EventLog, EventSink, NoEvents, SessionEvent, StopReason, ToolCallStatus};
pub use instructions::{INSTRUCTIONS_PREAMBLE, instructions_prompt, system_context};
pub use mentions::{Mention, MentionError, find_mentions};
pub use repeat::MAX_IDENTICAL_CALLS;
pub use sampling::{
    AllowSampling, ConsentDecision, Sampler, SamplingConsent, SamplingModel, SamplingModels,
    chat_request as sampling_chat_request,
};
pub use session::{
    DEFAULT_MAX_TOOL_ROUNDS, MAX_CONCURRENT_TOOL_CALLS, ModelSettings, Session, SessionBuilder,
    SessionOptions, TurnContext,
};
pub use tokio_util::sync::CancellationToken;
pub use tools::ServerSelection;
pub use turn::{ANSWER_FROM_RESULTS, SessionError, TurnOutcome};
