//! Test-only: the REPL the unit tests drive — a session on the fake OpenAI-compatible model
//! `fake:m` over a given MCP runtime, no terminal (questions are not interactive), history and
//! spill files under the test's directory.

use std::path::Path;

use coyote_config::AppConfig;
use coyote_llm::{ModelConfig, ProviderConfig, ProviderKind};
use coyote_mcp::{McpRuntime, SpillStore};
use coyote_session::{ModelSettings, Session};

use super::views::Redactor;
use super::{Repl, ReplParts};
use crate::ui::questions::{Interactivity, Questions};
use crate::ui::screen::Screen;

/// A [`Repl`] whose model `m` of client `fake` answers at `api_base`.
pub(super) fn fake_model_repl(
    rt: &tokio::runtime::Runtime,
    runtime: McpRuntime,
    api_base: &str,
    dir: &Path,
    app_config: Option<AppConfig>,
) -> Repl {
    let provider = coyote_llm::build_provider(
        ProviderConfig::new(ProviderKind::OpenAiCompatible, "fake", api_base)
            .with_models(vec![ModelConfig::named("m")]),
    )
    .unwrap();
    let spill = SpillStore::new(dir.join("spill"));
    let session =
        Session::builder(provider, ModelSettings::named("m"), runtime, spill.clone()).build();
    let screen = Screen::new();
    Repl::new(ReplParts {
        runtime_handle: rt.handle().clone(),
        session,
        questions: Questions::new(screen.clone(), Interactivity::None),
        screen,
        specs: Vec::new(),
        spill,
        redactor: Redactor::default(),
        app_config,
        history_file: dir.join("history.txt"),
        log_file: None,
    })
}
