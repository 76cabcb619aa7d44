//! The sign-in authorizer of a person at a computer: a loopback redirect listener plus a
//! browser. `$BROWSER` is a `:`-separated list of commands; each runs without a shell, split
//! on whitespace, with `%s` replaced by the URL (or the URL appended when there is no `%s`);
//! the first that starts wins. Without `$BROWSER`: `xdg-open` (Linux) or `open` (macOS) — the
//! launcher is [`crate::browser`], shared with URL elicitation. A browser that does not start
//! is not an error — the URL is always shown through the notice callback (the CLI prints it on
//! stderr), so the user can open it anywhere.

use std::sync::Arc;

use futures::future::BoxFuture;

use super::authorizer::{
    AuthorizationPrompt, Authorizer, BeginRequest, PendingSignIn, RedirectParams,
};
use super::loopback::Loopback;
use crate::browser::{browser_commands, open_with};
use crate::error::AuthFailure;

/// Receives what the user must see (the URL to open, browser problems).
pub type Notice = Arc<dyn Fn(&str) + Send + Sync>;

/// Opens the system browser and waits on a loopback port.
#[derive(Clone)]
pub struct BrowserAuthorizer {
    browsers: Vec<Vec<String>>,
    notice: Notice,
}

impl std::fmt::Debug for BrowserAuthorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrowserAuthorizer")
            .field("browsers", &self.browsers)
            .finish_non_exhaustive()
    }
}

impl BrowserAuthorizer {
    /// Browsers from `browser_env` (the value of `$BROWSER`, if set), else the platform's opener.
    pub fn new(browser_env: Option<&str>, notice: Notice) -> Self {
        BrowserAuthorizer {
            browsers: browser_commands(browser_env),
            notice,
        }
    }

    /// Reads `$BROWSER` from the process environment.
    pub fn from_env(notice: Notice) -> Self {
        let env = std::env::var("BROWSER").ok();
        Self::new(env.as_deref(), notice)
    }
}

struct BrowserSignIn {
    loopback: Loopback,
    browsers: Vec<Vec<String>>,
    notice: Notice,
}

impl Authorizer for BrowserAuthorizer {
    fn begin<'a>(
        &'a self,
        request: BeginRequest<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn PendingSignIn>, AuthFailure>> {
        Box::pin(async move {
            let loopback = Loopback::bind(request.redirect_port).await?;
            Ok(Box::new(BrowserSignIn {
                loopback,
                browsers: self.browsers.clone(),
                notice: self.notice.clone(),
            }) as Box<dyn PendingSignIn>)
        })
    }
}

impl PendingSignIn for BrowserSignIn {
    fn redirect_uri(&self) -> &str {
        self.loopback.redirect_uri()
    }

    fn finish(
        self: Box<Self>,
        prompt: AuthorizationPrompt,
    ) -> BoxFuture<'static, Result<RedirectParams, AuthFailure>> {
        Box::pin(async move {
            let url = &prompt.authorization_url;
            // The authorization server chose this URL: the same rule as a server's page to
            // open (no javascript:, file:, custom schemes, or plain http across the network).
            if let Err(why) = crate::browser::openable_origin(url) {
                let shown: String = url.chars().take(200).collect();
                return Err(AuthFailure::Unusable {
                    detail: format!("its sign-in page {shown} is not opened: {why}"),
                });
            }
            (self.notice)(&format!(
                "Sign in to MCP server '{}': open this URL in a browser (waiting for the \
                 redirect to {}):\n  {url}",
                prompt.server,
                self.loopback.redirect_uri()
            ));
            if open_with(&self.browsers, url).is_none() {
                (self.notice)(
                    "No browser could be started ($BROWSER, xdg-open or open); open the URL \
                     above yourself.",
                );
            }
            self.loopback.wait(&prompt.state).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::with_url;

    #[test]
    fn browser_list_and_url_placement() {
        let list = browser_commands(Some("firefox --new-tab %s::w3m"));
        assert_eq!(
            list,
            vec![
                vec!["firefox".to_owned(), "--new-tab".into(), "%s".into()],
                vec!["w3m".to_owned()],
            ]
        );
        assert_eq!(with_url(&list[0], "U"), ["firefox", "--new-tab", "U"]);
        assert_eq!(with_url(&list[1], "U"), ["w3m", "U"]);
        let default = browser_commands(None);
        assert!(default[0][0] == "xdg-open" || default[0][0] == "open");
        assert_eq!(browser_commands(Some(" : ")), default);
    }

    #[tokio::test]
    async fn the_first_browser_that_starts_wins() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("opened");
        // `sh -c 'echo "$0" > FILE' URL`: the shell is this test's browser, not coyote's.
        let browsers = vec![
            vec!["/nonexistent/browser".to_owned()],
            vec![
                "sh".into(),
                "-c".into(),
                format!("echo \"$0\" > {}", out.display()),
                "%s".into(),
            ],
        ];
        assert_eq!(
            open_with(&browsers, "https://x/?a=1&b=2").as_deref(),
            Some("sh")
        );
        for _ in 0..100 {
            if let Ok(text) = std::fs::read_to_string(&out)
                && !text.is_empty()
            {
                assert_eq!(text.trim(), "https://x/?a=1&b=2");
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("the browser command never ran");
    }

    #[test]
    fn no_browser_starts() {
        assert_eq!(open_with(&[vec!["/nonexistent/x".into()]], "u"), None);
    }
}
