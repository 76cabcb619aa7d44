//! Live completion of `@SERVER:URI` mentions in a chat line: `@<TAB>` offers the
//! enabled servers that have resources (local state, as `@server:`), `@server:<TAB>` that
//! server's resources and templates (a template's placeholders as `{name=}`, ready for the
//! value), listed live on every Tab — or, for an idle server, from its cached catalog.
//!
//! The same bounds as the rest of the completer: each listing is bounded by the completer's
//! RPC timeout (2 s) and silently empty on error or timeout; no server is started; at most
//! [`MAX_MENTION_CANDIDATES`] candidates are shown.

use coyote_mcp::{ResourceInfo, ResourceTemplateInfo};

use super::{Candidate, CompletionSource};

/// Candidates offered for one mention word.
pub const MAX_MENTION_CANDIDATES: usize = 100;

/// Whether the word ending at the cursor is a mention being typed: it starts with `@` and the
/// line is chat (not a `.command` or `!shell` line). Returns the word's start.
pub fn mention_start(before: &str) -> Option<usize> {
    let trimmed = before.trim_start();
    if trimmed.starts_with('.') || trimmed.starts_with('!') {
        return None;
    }
    let start = before.rfind(char::is_whitespace).map_or(0, |i| {
        i + before[i..].chars().next().map_or(1, char::len_utf8)
    });
    before[start..].starts_with('@').then_some(start)
}

/// `demo://x/{id}` → `demo://x/{id=}`.
fn fillable(template: &str) -> String {
    template.replace('}', "=}")
}

impl CompletionSource {
    /// The candidates for the mention word `partial` (`@…`).
    pub(super) async fn mention_candidates(&self, partial: &str) -> Vec<Candidate> {
        let typed = partial.trim_start_matches('@');
        let all: Vec<Candidate> = match typed.split_once(':') {
            None => self
                .runtime
                .server_features()
                .into_iter()
                .filter(|f| f.resources && (self.enabled)(&f.name))
                .map(|f| Candidate {
                    value: format!("@{}:", f.name),
                    description: None,
                    append_whitespace: false,
                })
                .collect(),
            Some((server, _)) => {
                let (resources, templates) = self.list_resources(server).await;
                let resources = resources.into_iter().map(|r| Candidate {
                    value: format!("@{server}:{}", r.uri),
                    description: r.title.or(Some(r.name)),
                    append_whitespace: true,
                });
                let templates = templates.into_iter().map(|t| Candidate {
                    value: format!("@{server}:{}", fillable(&t.uri_template)),
                    description: t.title.or(Some(t.name)),
                    append_whitespace: false,
                });
                resources.chain(templates).collect()
            }
        };
        all.into_iter()
            .filter(|c| c.value.starts_with(partial))
            .take(MAX_MENTION_CANDIDATES)
            .collect()
    }

    /// An enabled server's resources and templates: live from a Ready server (each listing
    /// bounded), from the cached catalog of an idle one; empty otherwise and on any failure.
    async fn list_resources(&self, server: &str) -> (Vec<ResourceInfo>, Vec<ResourceTemplateInfo>) {
        if !(self.enabled)(server) {
            return (Vec::new(), Vec::new());
        }
        let Ok(handle) = self.runtime.server(server) else {
            return self
                .runtime
                .cached_catalog(server)
                .map(|c| (c.resources.clone(), c.templates.clone()))
                .unwrap_or_default();
        };
        if !handle.features().resources {
            return (Vec::new(), Vec::new());
        }
        let bound = self.rpc_timeout;
        let (resources, templates) = tokio::join!(
            tokio::time::timeout(bound, handle.list_resources()),
            tokio::time::timeout(bound, handle.list_resource_templates()),
        );
        let resources = match resources {
            Ok(Ok(list)) => list,
            Ok(Err(error)) => {
                tracing::debug!(server, %error, "mention completion: listing resources failed");
                Vec::new()
            }
            Err(_) => Vec::new(),
        };
        let templates = match templates {
            Ok(Ok(list)) => list,
            _ => Vec::new(),
        };
        (resources, templates)
    }
}

#[cfg(test)]
#[path = "mentions_tests.rs"]
mod tests;
