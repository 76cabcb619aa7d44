//! [`AppConfigError`]: everything that can be wrong with config.yaml or a model choice, each
//! message naming the file, the key and the fix.

use std::path::{Path, PathBuf};

use super::ModelOrigin;

/// Everything that can be wrong with config.yaml or a model choice. Messages name the file,
/// the key and the fix.
#[derive(Debug, thiserror::Error)]
pub enum AppConfigError {
    /// config.yaml could not be read.
    #[error("cannot read {}: {source}{}", path.display(), crate::bounded::read_fix(source, ". Fix: check that you may read the file"))]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },

    /// YAML syntax or shape (wrong type, unknown key); `message` carries the key path and the
    /// line/column from the YAML parser.
    #[error(
        "{}: {message}. Fix: correct that entry (the format is described in `coyote help configuration`)",
        path.display()
    )]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The parser's message, with key path, line and column.
        message: String,
    },

    /// A value is out of its allowed range or set.
    #[error("{}: `{key}`: {problem}. Fix: {fix}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The key, as a path (`clients[0].api_base`).
        key: String,
        /// What is wrong.
        problem: String,
        /// How to fix it.
        fix: String,
    },

    /// No model is set and none can be detected.
    #[error(
        "no model configured. Fix: set `model: <client>:<model>` with a `clients:` entry in {}, \
         or export OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST, or pass -m <client>:<model> \
         (see `coyote help chat`)",
        path.display()
    )]
    NoModel {
        /// The config file, named in the fix.
        path: PathBuf,
    },

    /// Clients exist but none lists a model (`OPENAI_BASE_URL` alone serves models coyote
    /// cannot guess).
    #[error(
        "no model chosen: {} list{} no models (a server at a custom URL, e.g. OPENAI_BASE_URL, \
         serves models coyote cannot guess). Fix: pass -m {}:MODEL with a model that server \
         has, or set `model: {}:MODEL` in {} (see `coyote help chat`)",
        quoted_list(clients),
        if clients.len() == 1 { "s" } else { "" },
        clients.first().map_or("CLIENT", String::as_str),
        clients.first().map_or("CLIENT", String::as_str),
        path.display()
    )]
    ModellessClients {
        /// The config file, named in the fix.
        path: PathBuf,
        /// The clients without models.
        clients: Vec<String>,
    },

    /// The model names a client that is not configured.
    #[error(
        "{}: no client named \"{client}\"; {}. Fix: use one of those names, or add the client \
         to `clients:` in {}",
        origin_label(*origin, path),
        known_clients(known),
        path.display()
    )]
    UnknownClient {
        /// The config file.
        path: PathBuf,
        /// What named the model.
        origin: ModelOrigin,
        /// The client asked for.
        client: String,
        /// The configured client names.
        known: Vec<String>,
    },

    /// The model names a client but no model, and the client lists none.
    #[error(
        "{}: \"{requested}\" names no model and client \"{client}\" lists none. Fix: write it \
         as {client}:<model>, or list the client's models under `models:` in {}",
        origin_label(*origin, path),
        path.display()
    )]
    NoModelForClient {
        /// The config file.
        path: PathBuf,
        /// What named the model.
        origin: ModelOrigin,
        /// The text as given.
        requested: String,
        /// The client.
        client: String,
    },

    /// The client's API key variable is not set.
    #[error(
        "client \"{client}\" reads its API key from ${variable} (`api_key_env` in {}), which is \
         not set. Fix: export {variable}=<your key>, or choose another model with -m",
        path.display()
    )]
    MissingKey {
        /// The config file.
        path: PathBuf,
        /// The client.
        client: String,
        /// The variable named by `api_key_env`.
        variable: String,
    },

    /// A Bedrock client found no AWS credentials.
    #[error(
        "client \"{client}\" (bedrock) found no AWS credentials: AWS_ACCESS_KEY_ID and \
         AWS_SECRET_ACCESS_KEY are not set and profile \"{profile}\" of ~/.aws/credentials has \
         none. Fix: export them (for SSO: eval \"$(aws configure export-credentials --format \
         env)\"), or set `profile:` on the client to a profile that has keys"
    )]
    MissingAwsCredentials {
        /// The client.
        client: String,
        /// The profile looked in.
        profile: String,
    },
}

fn origin_label(origin: ModelOrigin, path: &Path) -> String {
    match origin {
        ModelOrigin::CommandLine => "-m/--model".to_owned(),
        ModelOrigin::ConfigFile => format!("{}: `model`", path.display()),
        ModelOrigin::Default => "the default model".to_owned(),
    }
}

/// `client "a"` or `clients "a", "b"`.
fn quoted_list(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    match quoted.len() {
        1 => format!("client {}", quoted[0]),
        _ => format!("clients {}", quoted.join(", ")),
    }
}

fn known_clients(known: &[String]) -> String {
    if known.is_empty() {
        "no clients are configured".to_owned()
    } else {
        format!("clients: {}", known.join(", "))
    }
}
