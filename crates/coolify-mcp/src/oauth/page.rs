//! The HTML of `/authorize`: the sign-in form and the error page. Every interpolated value is
//! HTML-escaped; the form never carries the Coolify token back and names the host the code is
//! sent to.

use std::collections::BTreeMap;

/// Escape for HTML text and double-quoted attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}input[type=password]{width:100%;padding:.5rem;font-size:1rem}button{margin-top:1rem;padding:.5rem 1.5rem;font-size:1rem}.error{color:#b00020}";

/// Where a redirect URI sends the browser, as the user should judge it: its host (with a
/// non-default port), or for an app's own scheme the scheme (`myapp:`).
pub fn destination(redirect_uri: &str) -> String {
    match url::Url::parse(redirect_uri) {
        Ok(u) => match u.host_str() {
            Some(host) => match u.port() {
                Some(port) => format!("{host}:{port}"),
                None => host.to_string(),
            },
            None => format!("{}:", u.scheme()),
        },
        Err(_) => redirect_uri.to_string(),
    }
}

/// The form: who asks (the client's self-chosen name) and where the code goes (the redirect
/// host, which the name cannot fake), the OAuth parameters as hidden fields, one password field
/// for the token.
pub fn form(
    params: &BTreeMap<String, String>,
    client_name: &str,
    destination: &str,
    error: Option<&str>,
) -> String {
    let hidden: String = params
        .iter()
        .filter(|(k, _)| k.as_str() != "coolify_token")
        .map(|(k, v)| {
            format!(
                "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
                escape(k),
                escape(v)
            )
        })
        .collect();
    let error = error
        .map(|e| format!("<p class=\"error\">{}</p>", escape(e)))
        .unwrap_or_default();
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Sign in to coolify-mcp</title><style>{STYLE}</style></head><body><h1>Sign in to coolify-mcp</h1><p><strong>{}</strong> asks to use this Coolify MCP server on your behalf.</p><p>If you allow it, you are sent back to <strong>{}</strong> with the sign-in. Allow it only if you started this sign-in from there.</p><p>Paste a Coolify API token of yours to prove you have access. It is checked once against Coolify and not stored.</p>{error}<form method=\"post\" action=\"authorize\">{hidden}<label for=\"coolify_token\">Coolify API token</label><input type=\"password\" id=\"coolify_token\" name=\"coolify_token\" autocomplete=\"off\" required><button type=\"submit\">Allow</button></form></body></html>",
        escape(client_name),
        escape(destination)
    )
}

/// A page for an error that cannot be redirected to the client.
pub fn error_page(message: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Sign-in error</title><style>{STYLE}</style></head><body><h1>Sign-in error</h1><p class=\"error\">{}</p></body></html>",
        escape(message)
    )
}
