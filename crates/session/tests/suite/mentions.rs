//! `@SERVER:URI` mentions at the session level: the mention becomes
//! the resource's text, labelled with its URI, inside the user's message — the request carries
//! no tool call and no extra message; e-mail addresses and servers outside the selection are
//! left alone; an unreadable mention is an error before anything is sent.

use coyote_session::{Conversation, ServerSelection, SessionOptions};
use coyote_test_support::fake_llm::{LlmWire, Reply, user_texts};
use coyote_test_support::{Capabilities, ResourceBody, Scenario};

use super::support::{Harness, SERVER};

const DOC: &str = "fake://doc";
const DOC_TEXT: &str = "The coyote field guide.\n";

fn scenario() -> Scenario {
    Scenario::builder()
        .capabilities(Capabilities::none().with_resources())
        .resource(
            DOC,
            "doc",
            ResourceBody::Text {
                text: DOC_TEXT.into(),
            },
        )
        .template("fake://items/{id}", "item", "item number {id}")
        .build()
}

async fn harness(options: SessionOptions) -> Harness {
    Harness::with(
        LlmWire::OpenAi,
        vec![Reply::text("done")],
        scenario(),
        options,
    )
    .await
}

#[tokio::test]
async fn a_mention_becomes_the_labelled_resource_inside_the_user_message() {
    let h = harness(SessionOptions::default()).await;
    let typed = "@fake:fake://doc summarize for bob@fake:example.com and @fake:fake://items/{id=7}";
    let message = h.session.expand_mentions(typed).await.unwrap();
    let mut conversation = Conversation::new();
    let (outcome, _) = h.turn(&mut conversation, &message).await;
    outcome.unwrap();

    let requests = h.llm.requests();
    assert_eq!(requests.len(), 1);
    let messages = requests[0]["messages"].as_array().unwrap();
    // The user's one message, nothing synthesized before or after it, no tool call.
    let roles: Vec<&str> = messages.iter().filter_map(|m| m["role"].as_str()).collect();
    assert_eq!(
        roles.iter().filter(|r| **r != "system").count(),
        1,
        "{roles:?}"
    );
    assert!(messages.iter().all(|m| m.get("tool_calls").is_none()));
    let texts = user_texts(LlmWire::OpenAi, &requests[0]);
    assert_eq!(
        texts.last().unwrap(),
        &format!(
            "<resource server=\"fake\" uri=\"fake://doc\">\n{DOC_TEXT}</resource> summarize for \
             bob@fake:example.com and <resource server=\"fake\" uri=\"fake://items/7\">\nitem \
             number 7\n</resource>"
        )
    );
    let events = h.server.events();
    assert_eq!(events.reads(DOC), 1);
    assert_eq!(events.reads("fake://items/7"), 1);
    h.shutdown().await;
}

#[tokio::test]
async fn an_unreadable_mention_is_an_error_before_anything_is_sent() {
    let h = harness(SessionOptions::default()).await;
    let error = h
        .session
        .expand_mentions("look at @fake:fake://missing please")
        .await
        .unwrap_err();
    assert_eq!(error.mention, "@fake:fake://missing");
    let shown = error.to_string();
    assert!(shown.ends_with("nothing was sent"), "{shown}");
    // A placeholder left unfilled cannot be read either.
    let error = h
        .session
        .expand_mentions("@fake:fake://items/{id}")
        .await
        .unwrap_err();
    assert!(error.reason.contains("id"), "{error}");
    assert!(h.llm.requests().is_empty());
    h.shutdown().await;
}

#[tokio::test]
async fn a_server_outside_the_selection_makes_no_mention() {
    let h = harness(SessionOptions {
        servers: ServerSelection::Only(Vec::new()),
        ..SessionOptions::default()
    })
    .await;
    let typed = format!("@{SERVER}:{DOC} summarize");
    assert_eq!(h.session.expand_mentions(&typed).await.unwrap(), typed);
    assert_eq!(h.server.events().reads(DOC), 0);
    h.shutdown().await;
}
