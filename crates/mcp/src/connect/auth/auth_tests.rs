use std::sync::Arc;
use std::time::Duration;

use coyote_protocol::{HttpSpec, OAuthSpec};

use super::server_auth::{Attempts, Verdict};
use super::*;
use crate::connect::challenge::Challenge;

fn spec(url: &str) -> HttpSpec {
    HttpSpec {
        url: url.to_owned(),
        headers: Vec::new(),
        bearer_token_env: None,
        oauth: OAuthSpec::default(),
        fallback_to_sse: false,
    }
}

/// No Rust type names, no generics, no debug dumps in a message a person reads.
fn assert_sentence(text: &str) {
    let without_urls = text.replace("://", "");
    assert!(!without_urls.contains("::"), "{text}");
    for word in [
        "Observed<",
        "rmcp",
        "Error {",
        "Some(",
        "None",
        "Transport [",
    ] {
        assert!(!text.contains(word), "{word} in: {text}");
    }
}

#[test]
fn every_sign_in_failure_is_a_sentence_that_says_what_to_do() {
    let url = "https://mcp.example/mcp".to_owned();
    let failures = [
        AuthFailure::Discovery {
            url: url.clone(),
            detail: "https://mcp.example/.well-known/oauth-protected-resource answered HTTP 500"
                .into(),
        },
        AuthFailure::NoMetadata {
            url: url.clone(),
            endpoint: "https://mcp.example/register".into(),
            answer: "HTTP 404 Not Found".into(),
        },
        AuthFailure::Registration {
            endpoint: "https://as.example/register".into(),
            answer: "HTTP 403 Forbidden".into(),
        },
        AuthFailure::Unusable {
            detail: "it does not offer the \"code\" response type".into(),
        },
        AuthFailure::Token {
            endpoint: "https://as.example/token".into(),
            answer: "HTTP 500 Internal Server Error".into(),
            grant: GrantKind::AuthorizationCode,
        },
        AuthFailure::StateMismatch {
            redirect_uri: "http://127.0.0.1:9/callback".into(),
        },
        AuthFailure::Denied {
            error: "access_denied".into(),
            description: Some("the user said no".into()),
        },
        AuthFailure::TimedOut {
            after: Duration::from_secs(300),
            redirect_uri: "http://127.0.0.1:9/callback".into(),
        },
        AuthFailure::Listener {
            address: "127.0.0.1:8765".into(),
            reason: "Address in use".into(),
        },
        AuthFailure::StillUnauthorized { url: url.clone() },
        AuthFailure::ScopeRetryLimit {
            url,
            scope: "admin".into(),
            attempts: 3,
        },
        AuthFailure::PrivateKey {
            what: "file /k.pem".into(),
            reason: "not PEM".into(),
        },
        AuthFailure::Store {
            reason: "disk full".into(),
        },
        AuthFailure::Authorizer {
            reason: "no redirect".into(),
        },
        AuthFailure::ExternalToken {
            what: "workload token from file /run/t".into(),
            reason: "No such file; check the path".into(),
        },
        AuthFailure::IdentityProvider {
            issuer: "https://login.acme.example".into(),
            detail: "https://login.acme.example/.well-known/openid-configuration answered HTTP 404"
                .into(),
        },
        AuthFailure::NotBound {
            url: "https://mcp.example/mcp".into(),
            token_type: "Bearer".into(),
        },
        AuthFailure::Token {
            endpoint: "https://idp.example/token".into(),
            answer: "HTTP 400 Bad Request (invalid_grant)".into(),
            grant: GrantKind::TokenExchange,
        },
        AuthFailure::Token {
            endpoint: "https://as.example/token".into(),
            answer: "HTTP 400 Bad Request (invalid_grant)".into(),
            grant: GrantKind::JwtBearer,
        },
        AuthFailure::Token {
            endpoint: "https://as.example/token".into(),
            answer: "HTTP 401 Unauthorized (invalid_client)".into(),
            grant: GrantKind::IdentityAssertion,
        },
    ];
    for failure in failures {
        let text = McpError::SignIn {
            server: "remote".into(),
            failure,
        }
        .to_string();
        assert!(
            text.starts_with("MCP server 'remote': sign-in failed: "),
            "{text}"
        );
        assert!(text.contains(';'), "no advice: {text}");
        assert_sentence(&text);
    }
    let timed_out = AuthFailure::TimedOut {
        after: Duration::from_secs(300),
        redirect_uri: "http://127.0.0.1:9/callback".into(),
    };
    assert!(
        timed_out.to_string().contains("within 5 min"),
        "{timed_out}"
    );
    for error in [
        McpError::NeedsAuth {
            server: "remote".into(),
        },
        McpError::NeedsScope {
            server: "remote".into(),
            scope: "repo:write".into(),
        },
    ] {
        let text = error.to_string();
        assert!(text.contains("`coyote mcp login remote`"), "{text}");
        assert_sentence(&text);
    }
}

#[test]
fn entries_with_their_own_credentials_do_not_sign_in() {
    let mut http = spec("https://h/mcp");
    assert!(uses_oauth(&http));
    http.headers
        .push(("authorization".into(), "Bearer x".into()));
    assert!(!uses_oauth(&http));
    let mut http = spec("https://h/mcp");
    http.bearer_token_env = Some("TOKEN".into());
    assert!(!uses_oauth(&http));
}

async fn never_signing_in(url: &str) -> Arc<ServerAuth> {
    let context = AuthContext::new(AuthOptions::default());
    ServerAuth::new("remote", &spec(url), &context)
        .await
        .unwrap()
}

#[tokio::test]
async fn without_a_sign_in_a_challenge_passes_on_and_a_step_up_is_remembered() {
    let auth = never_signing_in("http://127.0.0.1:9/mcp").await;
    let mut attempts = Attempts::default();
    let verdict = auth
        .answer(
            Challenge::Unauthorized {
                header: "Bearer".into(),
            },
            auth.generation(),
            &mut attempts,
        )
        .await;
    assert!(matches!(verdict, Verdict::PassOn), "{verdict:?}");
    let verdict = auth
        .answer(
            Challenge::InsufficientScope {
                header: "Bearer error=\"insufficient_scope\", scope=\"a b\"".into(),
                scope: vec!["a".into(), "b".into()],
            },
            auth.generation(),
            &mut attempts,
        )
        .await;
    assert!(matches!(verdict, Verdict::PassOn), "{verdict:?}");
    // The next `coyote mcp login` asks for them.
    assert_eq!(auth.cell.get().pending_scopes, ["a", "b"]);
    // A challenge that raced with a finished sign-in retries instead.
    let verdict = auth
        .answer(
            Challenge::Unauthorized {
                header: "Bearer".into(),
            },
            auth.generation() + 1,
            &mut attempts,
        )
        .await;
    assert!(matches!(verdict, Verdict::Retry), "{verdict:?}");
}

/// Step-up is bounded: a challenge for scopes this request already asked for ends it instead
/// of starting another grant (the authorization server did not grant them the first time).
#[tokio::test]
async fn a_repeated_step_up_challenge_is_asked_once() {
    let mut http = spec("http://127.0.0.1:9/mcp");
    http.oauth.client_id = Some("bot".into());
    http.oauth.client_secret = Some("s".into());
    http.oauth.grant = coyote_protocol::OAuthGrant::ClientCredentials(Default::default());
    let auth = ServerAuth::new("remote", &http, &AuthContext::new(AuthOptions::default()))
        .await
        .unwrap();
    let challenge = || Challenge::InsufficientScope {
        header: "Bearer error=\"insufficient_scope\", scope=\"admin\"".into(),
        scope: vec!["admin".into()],
    };
    let mut attempts = Attempts::default();
    // The first one runs the grant (which fails here: nothing listens).
    let first = auth
        .answer(challenge(), auth.generation(), &mut attempts)
        .await;
    assert!(
        matches!(&first, Verdict::Failed(f) if !matches!(f, AuthFailure::ScopeRetryLimit { .. })),
        "{first:?}"
    );
    let again = auth
        .answer(challenge(), auth.generation(), &mut attempts)
        .await;
    assert!(
        matches!(
            &again,
            Verdict::Failed(AuthFailure::ScopeRetryLimit { attempts: 1, .. })
        ),
        "{again:?}"
    );
}
