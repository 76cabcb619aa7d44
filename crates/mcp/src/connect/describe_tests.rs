use rmcp::transport::streamable_http_client::{AuthRequiredError, InsufficientScopeError};

use super::*;

type HttpError = StreamableHttpError<reqwest::Error>;

#[test]
fn transport_auth_errors_are_classified() {
    let needs = HttpError::AuthRequired(AuthRequiredError::new("Bearer".into()));
    assert!(matches!(
        classify_auth("s", &needs),
        Some(McpError::NeedsAuth { server }) if server == "s"
    ));
    let scope = HttpError::InsufficientScope(InsufficientScopeError::new(
        "Bearer error=\"insufficient_scope\", scope=\"files:write\"".into(),
        None,
    ));
    assert!(matches!(
        classify_auth("s", &scope),
        Some(McpError::NeedsScope { scope, .. }) if scope == "files:write"
    ));
    let failed = HttpError::Io(std::io::Error::other(AuthFailure::StillUnauthorized {
        url: "u".into(),
    }));
    assert!(matches!(
        classify_auth("s", &failed),
        Some(McpError::SignIn {
            failure: AuthFailure::StillUnauthorized { .. },
            ..
        })
    ));
    assert!(classify_auth("s", &HttpError::UnexpectedEndOfStream).is_none());
}
