//! Sampling through a session's runtime: the [`Sampler`] asks its consent before a
//! model sees anything, a decline reaches the server (and the chat model through the tool's
//! result) while the sampling model receives nothing, an approved request carries the
//! server's system prompt and messages to the model, and a server may ask while another call
//! of the same round is still running.

use std::sync::{Arc, Mutex};

use coyote_mcp::{RuntimeOptions, SamplingRequest, SamplingResponse};
use coyote_session::{
    ApproveAll, ConsentDecision, Conversation, Sampler, SamplingConsent, SamplingModel,
    SamplingModels, ToolCallStatus,
};
use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, tool_results, user_texts};
use coyote_test_support::{Capabilities, Scenario, ToolBehavior};
use futures::future::BoxFuture;
use serde_json::json;

use super::support::{Harness, meta_options, provider, statuses};

/// The model sampling uses: a fake endpoint of its own, so what it received is separate.
struct FakeModels(Arc<dyn coyote_llm::Provider>);

impl SamplingModels for FakeModels {
    fn choose(&self, _hints: &[String]) -> Result<SamplingModel, String> {
        Ok(SamplingModel {
            provider: self.0.clone(),
            model: "sampler-model".into(),
            label: "fakellm:sampler-model".into(),
        })
    }
}

/// Answers every consent question with `decision` and records what it was shown.
struct Consent {
    decision: ConsentDecision,
    asked: Mutex<Vec<SamplingRequest>>,
    reviewed: Mutex<Vec<SamplingResponse>>,
}

impl Consent {
    fn new(decision: ConsentDecision) -> Arc<Consent> {
        Arc::new(Consent {
            decision,
            asked: Mutex::default(),
            reviewed: Mutex::default(),
        })
    }
}

impl SamplingConsent for Consent {
    fn ask<'a>(
        &'a self,
        request: &'a SamplingRequest,
        _: &'a str,
    ) -> BoxFuture<'a, ConsentDecision> {
        self.asked.lock().unwrap().push(request.clone());
        Box::pin(std::future::ready(self.decision.clone()))
    }

    fn review<'a>(
        &'a self,
        _: &'a SamplingRequest,
        response: &'a SamplingResponse,
    ) -> BoxFuture<'a, bool> {
        self.reviewed.lock().unwrap().push(response.clone());
        Box::pin(std::future::ready(true))
    }
}

fn scenario() -> Scenario {
    Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .safe_tool(
            "sample",
            ToolBehavior::Sample {
                prompt: "what is 2+2?".into(),
                system: Some("You are a calculator.".into()),
                max_tokens: 64,
                hints: vec![],
            },
        )
        .safe_tool(
            "slow",
            ToolBehavior::Slow {
                duration_ms: 1500,
                progress_every_ms: None,
            },
        )
        .build()
}

async fn harness(chat: Vec<Reply>, sampler_llm: &FakeLlm, consent: Arc<Consent>) -> Harness {
    let sampler = Sampler::new(Arc::new(FakeModels(provider(sampler_llm))), consent);
    Harness::with_runtime(
        LlmWire::OpenAi,
        chat,
        scenario(),
        meta_options(),
        RuntimeOptions {
            sampling: Some(Arc::new(sampler)),
            ..RuntimeOptions::default()
        },
    )
    .await
}

#[tokio::test]
async fn a_declined_request_reaches_no_model_and_the_server_reports_it() {
    let sampler_llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("4")]).await;
    let consent = Consent::new(ConsentDecision::Decline("the user said no".into()));
    let chat = vec![
        Reply::call("mcp_invoke_fake", json!({"tool": "sample"})),
        Reply::text("the server could not ask"),
    ];
    let h = harness(chat, &sampler_llm, consent.clone()).await;
    let (outcome, events) = h
        .turn_with(&mut Conversation::new(), "go", &ApproveAll)
        .await;
    outcome.unwrap();
    assert_eq!(consent.asked.lock().unwrap().len(), 1);
    assert_eq!(
        sampler_llm.requests().len(),
        0,
        "the model received nothing"
    );
    assert_eq!(statuses(&events), vec![ToolCallStatus::Error]);
    let requests = h.llm.requests();
    let results = tool_results(LlmWire::OpenAi, requests.last().unwrap());
    assert!(results[0].1.contains("the user said no"), "{results:?}");
    h.assert_requests_valid();
    h.shutdown().await;
}

#[tokio::test]
async fn a_server_asks_while_another_call_of_the_round_runs() {
    let sampler_llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("four")]).await;
    let consent = Consent::new(ConsentDecision::Approve);
    let chat = vec![
        Reply::calls(
            "",
            vec![
                ("mcp_invoke_fake", json!({"tool": "slow"})),
                ("mcp_invoke_fake", json!({"tool": "sample"})),
            ],
        ),
        Reply::text("done"),
    ];
    let h = harness(chat, &sampler_llm, consent.clone()).await;
    let (outcome, events) = h
        .turn_with(&mut Conversation::new(), "go", &ApproveAll)
        .await;
    outcome.unwrap();
    assert_eq!(
        statuses(&events),
        vec![ToolCallStatus::Ok, ToolCallStatus::Ok]
    );
    // The sampling model saw the server's system prompt and message.
    let sampled = sampler_llm.requests();
    assert_eq!(sampled.len(), 1);
    assert_eq!(
        sampled[0]["messages"][0]["content"],
        json!("You are a calculator.")
    );
    assert_eq!(
        user_texts(LlmWire::OpenAi, &sampled[0]),
        vec!["what is 2+2?"]
    );
    assert_eq!(sampled[0]["max_tokens"], json!(64));
    assert_eq!(consent.reviewed.lock().unwrap().len(), 1);
    // Its answer came back through the server to the chat model.
    let requests = h.llm.requests();
    let results = tool_results(LlmWire::OpenAi, requests.last().unwrap());
    assert!(
        results.iter().any(|(_, r)| r.contains("four")),
        "{results:?}"
    );
    assert!(
        results
            .iter()
            .any(|(_, r)| r.contains("done after 1500 ms")),
        "{results:?}"
    );
    h.assert_requests_valid();
    h.shutdown().await;
}

#[tokio::test]
async fn an_edited_request_is_what_the_model_receives() {
    let sampler_llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("six")]).await;
    let consent_request = |text: &str| {
        let mut request = SamplingRequest {
            server: "fake".into(),
            messages: vec![],
            system_prompt: None,
            max_tokens: 64,
            temperature: None,
            stop_sequences: vec![],
            model_hints: vec![],
            tools: vec![],
            tool_choice: None,
        };
        request.messages.push(coyote_mcp::SamplingMessage {
            role: coyote_mcp::SamplingRole::User,
            content: vec![coyote_mcp::SamplingContent::Text { text: text.into() }],
        });
        request
    };
    let consent = Consent::new(ConsentDecision::ApproveEdited(consent_request(
        "what is 3+3?",
    )));
    let chat = vec![
        Reply::call("mcp_invoke_fake", json!({"tool": "sample"})),
        Reply::text("ok"),
    ];
    let h = harness(chat, &sampler_llm, consent).await;
    h.turn_with(&mut Conversation::new(), "go", &ApproveAll)
        .await
        .0
        .unwrap();
    let sampled = sampler_llm.requests();
    assert_eq!(
        user_texts(LlmWire::OpenAi, &sampled[0]),
        vec!["what is 3+3?"]
    );
    h.shutdown().await;
}
