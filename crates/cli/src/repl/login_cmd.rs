//! `.mcp login NAME`: the REPL's sign-in to a remote server — the same flow as
//! `coyote mcp login NAME` (URL on screen, $BROWSER, loopback redirect), then the server is
//! restarted in this REPL with its new tokens. Ctrl-C abandons the sign-in.

use std::sync::Arc;

use coyote_mcp::auth::BrowserAuthorizer;

use super::{Repl, interrupt_signals, next_interrupt};

impl Repl {
    pub(super) fn login(&mut self, name: &str) {
        let Some(spec) = self.specs.iter().find(|s| s.name == name).cloned() else {
            let known: Vec<&str> = self.specs.iter().map(|s| s.name.as_str()).collect();
            self.screen.line(&format!(
                "coyote: unknown MCP server '{name}'; configured: {}",
                known.join(", ")
            ));
            return;
        };
        let Some(paths) = self.paths.clone() else {
            self.screen
                .line("coyote: no state directory is known, so a sign-in cannot be stored");
            return;
        };
        let screen = self.screen.clone();
        let authorizer = Arc::new(BrowserAuthorizer::from_env(Arc::new(move |m: &str| {
            screen.line(m)
        })));
        let options = crate::client::RuntimeOptionsBuilder::new(&paths).build();
        let outcome = self.runtime_handle.block_on(async {
            let login = coyote_mcp::login(spec, options, authorizer);
            tokio::pin!(login);
            let mut interrupts = interrupt_signals();
            tokio::select! {
                outcome = &mut login => Some(outcome),
                () = next_interrupt(&mut interrupts) => None,
            }
        });
        match outcome {
            None => self.screen.line("coyote: sign-in abandoned"),
            Some(Err(error)) => self.screen.line(&format!("coyote: {error}")),
            Some(Ok(report)) => {
                if report.signed_in {
                    self.print(&format!(
                        "Signed in to MCP server '{name}' ({} tools); the tokens are kept in {}.\n",
                        report.tools, report.store
                    ));
                } else {
                    self.print(&format!(
                        "MCP server '{name}' answered without asking for sign-in.\n"
                    ));
                }
                self.restart(name);
            }
        }
    }
}
