//! `coyote models`: the clients and models coyote can use — from config.yaml and from the
//! environment (zero-config) — with the default marked. Offline: nothing is sent to a server.
//! Never prints a key: only the name of the variable it comes from and whether it is set.

use coyote_config::{AppConfig, ClientEntry, KeyStatus, ProcessEnv, load_app_config};
use serde::Serialize;

use crate::args::{GlobalArgs, OutputArgs};
use crate::exit::{CliError, CliResult};
use crate::output::{Table, print_json, print_table, print_wrapped};

#[derive(Debug, Serialize)]
struct ClientView {
    client: String,
    #[serde(rename = "type")]
    kind: &'static str,
    api_base: String,
    /// `config.yaml` or `environment`.
    source: String,
    key: KeyView,
    models: Vec<ModelView>,
}

#[derive(Debug, Serialize)]
struct KeyView {
    /// `none`, `set`, `missing`.
    status: &'static str,
    variable: Option<String>,
}

#[derive(Debug, Serialize)]
struct ModelView {
    /// `client:model`, what `-m` takes.
    id: String,
    max_tokens: Option<u32>,
    context_window: Option<u32>,
    default: bool,
}

pub async fn run(global: &GlobalArgs, out: OutputArgs) -> CliResult {
    let paths = crate::setup::paths(global)?;
    let app = load_app_config(&paths, &ProcessEnv).map_err(|e| CliError::usage(e.to_string()))?;
    let views = views(&app);
    if out.json {
        return print_json(&views);
    }
    if views.is_empty() {
        return print_wrapped(&format!(
            "No models configured. Add `clients:` to {} or export OPENAI_API_KEY, \
             ANTHROPIC_API_KEY or OLLAMA_HOST (see `coyote help chat`).\n",
            app.path.display()
        ));
    }
    let mut table = Table::new(vec!["model", "type", "api base", "key", "source"]);
    for client in &views {
        let key = match (&client.key.variable, client.key.status) {
            (Some(var), status) => format!("${var} ({status})"),
            (None, _) => "none".to_owned(),
        };
        let rows: Vec<String> = if client.models.is_empty() {
            vec![format!("{}:<any>", client.client)]
        } else {
            client
                .models
                .iter()
                .map(|m| {
                    if m.default {
                        format!("{} (default)", m.id)
                    } else {
                        m.id.clone()
                    }
                })
                .collect()
        };
        for model in rows {
            table.row(vec![
                model,
                client.kind.to_owned(),
                client.api_base.clone(),
                key.clone(),
                client.source.clone(),
            ]);
        }
    }
    print_table(&table, out.wide)
}

fn views(app: &AppConfig) -> Vec<ClientView> {
    let default = app.resolve_model(None).ok().map(|m| m.id());
    app.clients
        .iter()
        .map(|client| view(client, default.as_deref()))
        .collect()
}

fn view(client: &ClientEntry, default: Option<&str>) -> ClientView {
    let provider = &client.provider;
    let key = match &client.key {
        KeyStatus::NotNeeded => KeyView {
            status: "none",
            variable: None,
        },
        KeyStatus::Resolved { variable } => KeyView {
            status: "set",
            variable: Some(variable.clone()).filter(|v| !v.is_empty()),
        },
        KeyStatus::Missing { variable } => KeyView {
            status: "missing",
            variable: Some(variable.clone()),
        },
    };
    ClientView {
        client: provider.name.clone(),
        kind: provider.kind.as_str(),
        api_base: redact_url(&provider.api_base),
        source: client.origin.to_string(),
        key,
        models: provider
            .models
            .iter()
            .map(|m| {
                let id = format!("{}:{}", provider.name, m.name);
                ModelView {
                    default: default == Some(id.as_str()),
                    id,
                    max_tokens: m.max_tokens,
                    context_window: m.context_window,
                }
            })
            .collect(),
    }
}

/// A base URL without credentials or query (they may hold secrets).
fn redact_url(url: &str) -> String {
    let without_query = url.split(['?', '#']).next().unwrap_or(url);
    let Some((scheme, rest)) = without_query.split_once("://") else {
        return without_query.to_owned();
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    match authority.rsplit_once('@') {
        Some((_, host)) => format!("{scheme}://***@{host}{path}"),
        None => without_query.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_credentials_and_queries() {
        assert_eq!(
            redact_url("http://127.0.0.1:8080/v1"),
            "http://127.0.0.1:8080/v1"
        );
        assert_eq!(
            redact_url("https://user:pw@host.example/v1?key=abc"),
            "https://***@host.example/v1"
        );
    }
}
