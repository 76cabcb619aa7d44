//! Resources: `coolify://overview` and `coolify://application/{uuid}`,
//! instance-scoped in fleet mode (`coolify://{instance}/…`, no unscoped URI).
//!
//! Invariants:
//! - reads use the same client and sanitizer as the tools: the overview text is
//!   byte-identical to `get_infrastructure_overview`, the application text is the
//!   2-space JSON of `get_application`'s `data`; no URI takes `reveal`;
//! - an empty `{instance}` or `{uuid}` is an error, an unknown instance is an error and
//!   never falls back to the default;
//! - `resources/list` fans out per instance concurrently, each bounded by the listing
//!   deadline (default 5 s, a deliberate improvement over the reference), so a hanging
//!   instance drops out instead of stalling the listing; every title is unique.

use std::time::Duration;

use futures::future::join_all;
use serde_json::{Value, json};

use crate::instances::{Instance, Instances, UnknownInstance};
use crate::projection::{self as proj, str_of};
use crate::sanitize::Reveal;
use crate::tools::reads;

/// Title of `coolify://overview`.
pub const OVERVIEW_TITLE: &str = "Infrastructure overview";
/// Description of `coolify://overview`.
pub const OVERVIEW_DESCRIPTION: &str = "Counts and current status for every server, project, application, database and service. The same snapshot `get_infrastructure_overview` returns.";
/// Title of the `coolify://application/{uuid}` template.
pub const APP_TITLE: &str = "Application detail";
/// Description of the `coolify://application/{uuid}` template.
pub const APP_DESCRIPTION: &str = "Full configuration and status for one application. Credentials are masked, as they are on `get_application` without `reveal`.";
const MIME: &str = "application/json";

/// Which path a per-instance listing took (tests assert the path, not the clock).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListingOutcome {
    /// The instance answered in time.
    Listed,
    /// The instance answered with an error.
    Failed,
    /// The listing deadline passed first.
    DeadlineExceeded,
}

/// `resources/list` entries plus the per-instance outcome.
pub async fn list(
    instances: &Instances,
    deadline: Duration,
) -> (Vec<Value>, Vec<(String, ListingOutcome)>) {
    let fleet = instances.is_fleet();
    let mut entries = Vec::new();
    if fleet {
        for i in instances.all() {
            let n = i.name();
            entries.push(json!({"uri": format!("coolify://{n}/overview"), "name": format!("{n} overview"), "title": format!("{n} overview"), "description": format!("Every resource on the \"{n}\" instance."), "mimeType": MIME}));
        }
    } else {
        entries.push(json!({"uri": "coolify://overview", "name": "overview", "title": OVERVIEW_TITLE, "description": OVERVIEW_DESCRIPTION, "mimeType": MIME}));
    }
    let listings = join_all(
        instances
            .all()
            .iter()
            .map(|i| list_instance(i, fleet, deadline)),
    )
    .await;
    let mut outcomes = Vec::new();
    for (i, (apps, outcome)) in instances.all().iter().zip(listings) {
        entries.extend(apps);
        outcomes.push((i.name().to_string(), outcome));
    }
    (entries, outcomes)
}

async fn list_instance(
    instance: &Instance,
    fleet: bool,
    deadline: Duration,
) -> (Vec<Value>, ListingOutcome) {
    let client = instance.client();
    let apps =
        match tokio::time::timeout(deadline, reads::list_applications_raw(&client, None, None))
            .await
        {
            Err(_) => return (Vec::new(), ListingOutcome::DeadlineExceeded),
            Ok(Err(_)) => return (Vec::new(), ListingOutcome::Failed),
            Ok(Ok(v)) => v,
        };
    let n = instance.name();
    let entries = proj::as_array(&apps)
        .iter()
        .map(|a| {
            let uuid = str_of(a, "uuid");
            let (uri, title) = if fleet {
                (
                    format!("coolify://{n}/application/{uuid}"),
                    format!("{} ({n})", str_of(a, "name")),
                )
            } else {
                (
                    format!("coolify://application/{uuid}"),
                    str_of(a, "name").to_string(),
                )
            };
            let parts: Vec<&str> = [str_of(a, "status"), str_of(a, "fqdn")]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect();
            let mut e = json!({"title": title, "mimeType": MIME, "uri": uri, "name": title});
            if !parts.is_empty() {
                e["description"] = json!(parts.join(" — "));
            }
            e
        })
        .collect();
    (entries, ListingOutcome::Listed)
}

/// `resources/templates/list` entries.
pub fn templates(fleet: bool) -> Vec<Value> {
    if fleet {
        vec![
            json!({"name": "overview", "uriTemplate": "coolify://{instance}/overview", "title": OVERVIEW_TITLE, "description": OVERVIEW_DESCRIPTION, "mimeType": MIME}),
            json!({"name": "application", "uriTemplate": "coolify://{instance}/application/{uuid}", "title": APP_TITLE, "description": APP_DESCRIPTION, "mimeType": MIME}),
        ]
    } else {
        vec![
            json!({"name": "application", "uriTemplate": "coolify://application/{uuid}", "title": APP_TITLE, "description": APP_DESCRIPTION, "mimeType": MIME}),
        ]
    }
}

/// A parsed resource URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `coolify://overview` (fleet: `coolify://{instance}/overview`).
    Overview {
        /// The instance segment, in fleet mode.
        instance: Option<String>,
    },
    /// `coolify://application/{uuid}` (fleet: `coolify://{instance}/application/{uuid}`).
    Application {
        /// The instance segment, in fleet mode.
        instance: Option<String>,
        /// As captured (still percent-encoded): `Path::id` decodes it once, as Coolify decodes
        /// the reference's raw request path.
        uuid: String,
    },
}

/// Why a read failed; the server maps these to JSON-RPC errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// -32602 `Resource URI <uri> is invalid`, `data: {uri, reason: "invalid_uri"}`.
    #[error("Resource URI {0} is invalid")]
    InvalidUri(String),
    /// -32602 `Resource not found: <uri>`, `data: {uri}`.
    #[error("Resource not found: {0}")]
    NotFound(String),
    /// A fleet-mode URI without an instance segment.
    #[error("Resource URI is missing its instance segment")]
    MissingInstance,
    /// An application URI without a UUID.
    #[error("Resource URI is missing its application uuid")]
    MissingUuid,
    /// The URI names an instance that is not configured.
    #[error("{0}")]
    UnknownInstance(#[from] UnknownInstance),
    /// Upstream failure (-32603 with the client message).
    #[error("{0}")]
    Upstream(String),
}

/// One template variable: `([^/,]+)` in the SDK's matcher (never empty, no `/` or `,`).
fn variable(s: &str) -> Option<&str> {
    (!s.is_empty() && !s.contains(['/', ','])).then_some(s)
}

/// Match a URI against the templates of the mode, as the reference's SDK does: parse it
/// as a WHATWG URL (unparseable → [`ReadError::InvalidUri`]), then match the normalized
/// form. Returns the target and the normalized URI (what a read answers with).
pub fn parse(uri: &str, fleet: bool) -> Result<(Target, String), ReadError> {
    let href = url::Url::parse(uri)
        .map_err(|_| ReadError::InvalidUri(uri.to_string()))?
        .to_string();
    let not_found = || ReadError::NotFound(uri.to_string());
    let rest = href.strip_prefix("coolify://").ok_or_else(not_found)?;
    let parts: Vec<&str> = rest.split('/').collect();
    let target = if fleet {
        match parts.as_slice() {
            [inst, "overview"] => Target::Overview {
                instance: Some(variable(inst).ok_or_else(not_found)?.to_string()),
            },
            [inst, "application", uuid] => Target::Application {
                instance: Some(variable(inst).ok_or_else(not_found)?.to_string()),
                uuid: variable(uuid).ok_or_else(not_found)?.to_string(),
            },
            _ => return Err(not_found()),
        }
    } else {
        match parts.as_slice() {
            ["overview"] => Target::Overview { instance: None },
            ["application", uuid] => Target::Application {
                instance: None,
                uuid: variable(uuid).ok_or_else(not_found)?.to_string(),
            },
            _ => return Err(not_found()),
        }
    };
    Ok((target, href))
}

/// Read a resource: its normalized URI and the text of its single `application/json`
/// content.
pub async fn read(instances: &Instances, uri: &str) -> Result<(String, String), ReadError> {
    let (target, href) = parse(uri, instances.is_fleet())?;
    let resolve = |name: Option<&str>| match name {
        Some("") => Err(ReadError::MissingInstance),
        Some(n) => Ok(instances.resolve_exact(n)?),
        None => Ok(instances.default_instance()),
    };
    let text = match target {
        Target::Overview { instance } => {
            let client = resolve(instance.as_deref())?.client();
            crate::json::pretty(&reads::overview(&client).await)
        }
        Target::Application { instance, uuid } => {
            let client = resolve(instance.as_deref())?.client();
            if uuid.is_empty() {
                return Err(ReadError::MissingUuid);
            }
            let app = reads::application_data(&client, &uuid, Reveal::Masked)
                .await
                .map_err(|e| ReadError::Upstream(e.message))?;
            crate::json::pretty(&app)
        }
    };
    Ok((href, text))
}

/// `completion/complete` values for a template argument.
pub async fn complete(
    instances: &Instances,
    argument: &str,
    value: &str,
    instance_arg: Option<&str>,
    deadline: Duration,
) -> Vec<String> {
    match argument {
        "instance" => instances
            .names()
            .into_iter()
            .filter(|n| n.starts_with(value))
            .collect(),
        "uuid" => {
            let Ok(instance) = (match instance_arg {
                Some(n) if !n.is_empty() => instances.resolve_exact(n),
                _ => Ok(instances.default_instance()),
            }) else {
                return Vec::new();
            };
            let client = instance.client();
            match tokio::time::timeout(deadline, reads::list_applications_raw(&client, None, None))
                .await
            {
                Ok(Ok(apps)) => proj::as_array(&apps)
                    .iter()
                    .map(|a| str_of(a, "uuid").to_string())
                    .filter(|u| !u.is_empty() && u.starts_with(value))
                    .take(100)
                    .collect(),
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    }
}
