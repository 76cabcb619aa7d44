//! `@SERVER:URI` mentions in a user message: each one is replaced by the resource's
//! content, read through the content policy (pages, spilled binaries) and labelled with its
//! URI, inside the user's own message — never a tool call, never a synthetic turn.
//!
//! Invariants:
//! - A mention starts with `@` at the start of the text or after whitespace; SERVER runs to the
//!   first `:`, the URI to the next whitespace. Only a configured server the session selects
//!   makes a mention: anything else (an e-mail address, `@someone:`) is left exactly as typed.
//! - A template's placeholders are filled inline, `{name=value}`; the read expands the
//!   template with those values (`mcp_read_`'s `arguments`).
//! - The read is bound to the declaration set: the request's declarations are
//!   computed first and the mention runs only through the `mcp_read_<server>` they declare
//!   (resolved in a [`coyote_mcp::meta::Callable`] snapshot), so a server the request may not
//!   read — not selected, starting, failed, without resources — is an error.
//! - Any mention that cannot be read makes the whole expansion an error: the caller sends
//!   nothing.

use std::collections::BTreeMap;
use std::ops::Range;

use coyote_mcp::meta::{DispatchBody, RetrieveContext};
use coyote_mcp::{MetaKind, ServerState};
use serde_json::{Value, json};

use crate::session::Session;
use crate::tools::declarations;

/// One `@SERVER:URI` of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// Where the mention is in the text (the `@` to the end of the URI).
    pub range: Range<usize>,
    /// The server named.
    pub server: String,
    /// The URI, or a template whose `{name=value}` placeholders became `{name}`.
    pub uri: String,
    /// The values typed inline for the template's placeholders.
    pub arguments: BTreeMap<String, String>,
}

impl Mention {
    /// The mention as typed (`@server:uri`), for messages.
    pub fn typed<'a>(&self, text: &'a str) -> &'a str {
        &text[self.range.clone()]
    }
}

/// A mention that could not be read; nothing was sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read `{mention}`: {reason}; nothing was sent")]
pub struct MentionError {
    /// The mention as typed.
    pub mention: String,
    /// Why it could not be read.
    pub reason: String,
}

/// The mentions in `text` of the servers `is_server` accepts, in order.
pub fn find_mentions(text: &str, is_server: &dyn Fn(&str) -> bool) -> Vec<Mention> {
    let mut found = Vec::new();
    let mut previous: Option<char> = None;
    for (start, c) in text.char_indices() {
        let at_word_start = previous.is_none_or(char::is_whitespace);
        previous = Some(c);
        if c != '@' || !at_word_start {
            continue;
        }
        let body_start = start + 1;
        let end = text[body_start..]
            .find(char::is_whitespace)
            .map_or(text.len(), |i| body_start + i);
        let Some((server, uri)) = text[body_start..end].split_once(':') else {
            continue;
        };
        if server.is_empty() || uri.is_empty() || !is_server(server) {
            continue;
        }
        let (uri, arguments) = fill_placeholders(uri);
        found.push(Mention {
            range: start..end,
            server: server.to_owned(),
            uri,
            arguments,
        });
    }
    found
}

/// `demo://x/{id=3}` → (`demo://x/{id}`, {id: 3}); placeholders without `=` stay as typed.
fn fill_placeholders(typed: &str) -> (String, BTreeMap<String, String>) {
    let mut uri = String::with_capacity(typed.len());
    let mut arguments = BTreeMap::new();
    let mut rest = typed;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|i| open + i) else {
            break;
        };
        uri.push_str(&rest[..open]);
        let inside = &rest[open + 1..close];
        match inside.split_once('=') {
            Some((name, value)) => {
                uri.push('{');
                uri.push_str(name);
                uri.push('}');
                arguments.insert(name.to_owned(), value.to_owned());
            }
            None => uri.push_str(&rest[open..=close]),
        }
        rest = &rest[close + 1..];
    }
    uri.push_str(rest);
    (uri, arguments)
}

impl Session {
    /// `text` with each mention of a configured, selected server replaced by the resource it
    /// names, labelled with its URI; the text is returned unchanged when it mentions nothing.
    pub async fn expand_mentions(&self, text: &str) -> Result<String, MentionError> {
        let configured = self.runtime.server_names();
        let selection = &self.options.servers;
        let is_server =
            |name: &str| configured.iter().any(|c| c == name) && selection.includes(name);
        let mentions = find_mentions(text, &is_server);
        if mentions.is_empty() {
            return Ok(text.to_owned());
        }
        // What a request made now may call: mentions read only through its `mcp_read_`.
        declarations(
            &self.runtime,
            &self.dispatcher,
            selection,
            &RetrieveContext::default(),
        )
        .await;
        let callable = self.dispatcher.callable();
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for mention in &mentions {
            let unreadable = |reason: String| MentionError {
                mention: mention.typed(text).to_owned(),
                reason,
            };
            let function = MetaKind::Read.function_name(&mention.server);
            let Some(target) = callable.resolve(&function).cloned() else {
                return Err(unreadable(self.why_not_readable(&mention.server)));
            };
            let args = json!({ "uri": mention.uri, "arguments": mention.arguments });
            let outcome = self
                .dispatcher
                .dispatch_target(&function, target, args)
                .await
                .map_err(|e| unreadable(e.to_string()))?;
            let value = match outcome.body {
                DispatchBody::Json(value) => value,
                DispatchBody::Text(text) => Value::String(text),
            };
            let block = labelled(mention, &value, &function).map_err(unreadable)?;
            out.push_str(&text[copied..mention.range.start]);
            out.push_str(&block);
            copied = mention.range.end;
        }
        out.push_str(&text[copied..]);
        Ok(out)
    }

    /// Why a selected server's `mcp_read_` is not declared.
    fn why_not_readable(&self, server: &str) -> String {
        match self.runtime.state(server) {
            Some(ServerState::Starting) => format!("MCP server `{server}` is still starting"),
            Some(ServerState::Failed(reason)) => format!("MCP server `{server}` failed: {reason}"),
            Some(ServerState::NeedsAuth) => {
                format!("MCP server `{server}` needs you to sign in (`.mcp login {server}`)")
            }
            Some(ServerState::Closed) => format!("MCP server `{server}` is stopped"),
            Some(ServerState::Ready | ServerState::Idle) | None => {
                format!("MCP server `{server}` offers no resources")
            }
        }
    }
}

/// The read's content as one labelled block: `<resource server="…" uri="…">`, the text (each
/// page's continuation named), binaries and other entries as their JSON, `</resource>`.
/// `Err` with the reason when every entry is an error.
fn labelled(mention: &Mention, value: &Value, read_function: &str) -> Result<String, String> {
    let items: Vec<&Value> = match value {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    let errors: Vec<&str> = items
        .iter()
        .filter_map(|i| i.get("error").and_then(Value::as_str))
        .collect();
    if !errors.is_empty() && errors.len() == items.len() {
        return Err(errors.join("; "));
    }
    let uri = items
        .first()
        .and_then(|i| i.get("uri"))
        .and_then(Value::as_str)
        .unwrap_or(&mention.uri);
    // The label is coyote's: a quote in a server's URI cannot end it early.
    let uri = uri.replace('"', "%22");
    let mut block = format!("<resource server=\"{}\" uri=\"{uri}\">\n", mention.server);
    for item in items {
        match item.get("text").and_then(Value::as_str) {
            Some(text) => {
                block.push_str(text);
                if !text.ends_with('\n') {
                    block.push('\n');
                }
                if let Some(next) = item.get("next_offset").and_then(Value::as_u64) {
                    let total = item.get("total_bytes").and_then(Value::as_u64).unwrap_or(0);
                    let item_uri = item.get("uri").and_then(Value::as_str).unwrap_or(&uri);
                    block.push_str(&format!(
                        "[cut at byte {next} of {total}; the rest: {read_function} with \
                         {{\"uri\": \"{item_uri}\", \"offset\": {next}}}]\n"
                    ));
                }
            }
            None => {
                block.push_str(&serde_json::to_string(item).unwrap_or_default());
                block.push('\n');
            }
        }
    }
    block.push_str("</resource>");
    Ok(block)
}

#[cfg(test)]
#[path = "mentions_tests.rs"]
mod tests;
