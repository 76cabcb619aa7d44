//! `coyote models`: the clients and models coyote can use — from config.yaml and from the
//! environment (zero-config) — with the default marked; offline, nothing is sent to a server.
//! `coyote models CLIENT` asks that client's server which models it serves (`/v1/models`,
//! Ollama's `/api/tags`, Gemini's and Bedrock's model lists).
//! Never prints a key: only where it comes from and whether it is set.

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
    /// `none`, `set`, `missing`, `command`.
    status: &'static str,
    variable: Option<String>,
    /// Where a key that is not a variable comes from: `api_key_cmd`, an AWS profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<String>,
}

#[derive(Debug, Serialize)]
struct ModelView {
    /// `client:model`, what `-m` takes.
    id: String,
    max_tokens: Option<u32>,
    context_window: Option<u32>,
    default: bool,
}

pub async fn run(global: &GlobalArgs, client: Option<String>, out: OutputArgs) -> CliResult {
    let paths = crate::setup::paths(global)?;
    let app = load_app_config(&paths, &ProcessEnv).map_err(|e| CliError::usage(e.to_string()))?;
    if let Some(client) = client {
        return served(&app, &client, out).await;
    }
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
        let key = match (&client.key.variable, &client.key.source, client.key.status) {
            (Some(var), _, status) => format!("${var} ({status})"),
            (None, Some(source), status) => format!("{source} ({status})"),
            (None, None, _) => "none".to_owned(),
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
    let key = |status, variable: Option<String>, source: Option<String>| KeyView {
        status,
        variable,
        source,
    };
    let key = match &client.key {
        KeyStatus::NotNeeded => key("none", None, None),
        KeyStatus::Resolved { variable } => key(
            "set",
            Some(variable.clone()).filter(|v| !v.is_empty()),
            None,
        ),
        KeyStatus::Missing { variable } => key("missing", Some(variable.clone()), None),
        KeyStatus::Command { .. } => key("command", None, Some("api_key_cmd".to_owned())),
        KeyStatus::Aws { source } => key("set", None, Some(format!("AWS {source}"))),
        KeyStatus::MissingAws { profile } => key(
            "missing",
            None,
            Some(format!("AWS credentials (profile {profile})")),
        ),
    };
    ClientView {
        client: provider.name.clone(),
        kind: provider.preset.unwrap_or(provider.kind.as_str()),
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

#[derive(Debug, Serialize)]
struct ServedView {
    /// `client:model`, what `-m` takes.
    id: String,
}

/// `coyote models CLIENT`: the models the client's server says it serves.
async fn served(app: &AppConfig, client: &str, out: OutputArgs) -> CliResult {
    let config = app
        .usable_client(client)
        .map_err(|e| CliError::usage(e.to_string()))?;
    let provider =
        coyote_llm::build_provider(config.clone()).map_err(|e| CliError::usage(e.to_string()))?;
    let models = provider
        .list_models()
        .await
        .map_err(|e| CliError::failure(e.to_string()))?;
    let views: Vec<ServedView> = models
        .iter()
        .map(|m| ServedView {
            id: format!("{client}:{m}"),
        })
        .collect();
    if out.json {
        return print_json(&views);
    }
    let mut table = Table::new(vec!["model"]);
    for view in views {
        table.row(vec![view.id]);
    }
    print_table(&table, out.wide)
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
