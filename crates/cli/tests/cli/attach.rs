//! Attachments and reasoning (images, caps, and the reasoning display): `-f` with a
//! text file and a PNG against the fake OpenAI-compatible and Anthropic endpoints, the caps,
//! models that take no images, `-f -`; reasoning hidden, shown with `--show-reasoning`, shown
//! as 3 lines in the REPL with `.reasoning` for the rest, and never sent back to the model.

use std::time::Duration;

use coyote_test_support::fake_llm::paced::{PacedLlm, Piece};
use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, user_texts};
use coyote_test_support::{PNG_BYTES, png_base64};
use serde_json::{Value, json};

use super::common::{Home, output_async};
use super::terminal::{Terminal, tmux_available};

fn write_config(home: &Home, wire: LlmWire, api_base: &str, extra_model_keys: &str) {
    let kind = match wire {
        LlmWire::OpenAi => "openai-compatible",
        LlmWire::Anthropic => "anthropic",
    };
    let text = format!(
        "model: fake:fake-model\nclients:\n  - type: {kind}\n    name: fake\n    api_base: \
         {api_base}\n    models:\n      - name: fake-model\n{extra_model_keys}"
    );
    std::fs::write(home.config_dir().join("config.yaml"), text).unwrap();
}

/// The image parts of the last user message, as (media type, base64 data).
fn images(wire: LlmWire, body: &Value) -> Vec<(String, String)> {
    let user = body["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .cloned()
        .unwrap_or(Value::Null);
    let mut out = Vec::new();
    for part in user["content"].as_array().into_iter().flatten() {
        match (wire, part["type"].as_str()) {
            (LlmWire::OpenAi, Some("image_url")) => {
                let url = part["image_url"]["url"].as_str().unwrap_or_default();
                let (head, data) = url.split_once(";base64,").unwrap_or_default();
                out.push((head.trim_start_matches("data:").to_owned(), data.to_owned()));
            }
            (LlmWire::Anthropic, Some("image")) => out.push((
                part["source"]["media_type"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                part["source"]["data"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )),
            _ => {}
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_and_images_reach_both_wire_formats() {
    for wire in [LlmWire::OpenAi, LlmWire::Anthropic] {
        let llm = FakeLlm::start(wire, vec![Reply::text("seen")]).await;
        let home = Home::new();
        // OpenAI-compatible servers take no images unless the entry says so.
        let keys = match wire {
            LlmWire::OpenAi => "        supports_images: true\n",
            LlmWire::Anthropic => "",
        };
        write_config(&home, wire, &llm.api_base(), keys);
        let notes = home.work_dir().join("notes.txt");
        std::fs::write(&notes, "the notes\n").unwrap();
        std::fs::write(home.work_dir().join("pixel.png"), PNG_BYTES).unwrap();
        let (code, out, err) = home
            .run_async(&["-f", "notes.txt", "--file", "pixel.png", "describe these"])
            .await;
        assert_eq!(code, 0, "{wire:?}: {err}");
        assert_eq!(out, "seen\n");
        let request = &llm.requests()[0];
        assert_eq!(
            user_texts(wire, request),
            ["describe these\n\n<file path=\"notes.txt\">\nthe notes\n</file>"],
            "{wire:?}"
        );
        assert_eq!(
            images(wire, request),
            [("image/png".to_owned(), png_base64())],
            "{wire:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn big_files_unknown_kinds_and_image_blind_models_are_refused() {
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("from stdin")]).await;
    let home = Home::new();
    write_config(&home, LlmWire::OpenAi, &llm.api_base(), "");
    let big = home.work_dir().join("big.bin");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len(50 * 1024 * 1024).unwrap();
    let (code, _, err) = home.run_async(&["-f", "big.bin", "look"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("limited to 20 MiB"), "{err}");
    std::fs::write(home.work_dir().join("pixel.png"), PNG_BYTES).unwrap();
    let (code, _, err) = home.run_async(&["-f", "pixel.png", "look"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("fake:fake-model does not take images"),
        "{err}"
    );
    assert!(err.contains("supports_images: true"), "{err}");
    assert_eq!(llm.requests().len(), 0);
    // `-f -` attaches stdin (and it is not appended a second time).
    let mut cmd = home.coyote();
    cmd.args(["-f", "-", "what is this?"])
        .write_stdin("piped words");
    let (code, _, err) = output_async(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        user_texts(LlmWire::OpenAi, &llm.requests()[0]),
        ["what is this?\n\n<file path=\"stdin\">\npiped words\n</file>"]
    );
}

fn reasoning_answer(text: &str) -> Vec<Piece> {
    vec![
        Piece::Reasoning("think one\nthink two\n".into()),
        Piece::Reasoning("think three\nthink four\nthink five".into()),
        Piece::Text(text.into()),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shot_hides_reasoning_unless_asked() {
    let llm = PacedLlm::start(vec![
        reasoning_answer("answer one"),
        reasoning_answer("answer two"),
    ])
    .await
    .unwrap();
    let home = Home::new();
    write_config(&home, LlmWire::OpenAi, &llm.api_base(), "");
    let (code, out, err) = home.run_async(&["why?"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "answer one\n");
    assert!(!err.contains("think"), "{err}");
    let (code, out, err) = home.run_async(&["--show-reasoning", "why?"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "answer two\n");
    assert_eq!(
        err,
        "think one\nthink two\nthink three\nthink four\nthink five\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_repl_shows_three_lines_of_reasoning_and_never_sends_it_back() {
    if !tmux_available() {
        return;
    }
    let llm = PacedLlm::start(vec![
        reasoning_answer("first answer"),
        vec![
            Piece::Pause(Duration::from_millis(10)),
            Piece::Text("second answer".into()),
        ],
    ])
    .await
    .unwrap();
    let home = Home::new();
    home.write_servers(json!({}));
    write_config(&home, LlmWire::OpenAi, &llm.api_base(), "");
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;
    term.type_text("ponder it");
    term.keys(&["Enter"]);
    term.wait_text("first answer").await;
    let screen = term.wait_prompts(2).await;
    assert!(
        screen.contains("think one\nthink two\nthink three\n… 2 more lines (.reasoning)"),
        "{screen}"
    );
    assert!(!screen.contains("think four"), "{screen}");
    term.type_text(".reasoning");
    term.keys(&["Enter"]);
    let screen = term.wait_prompts(3).await;
    assert!(screen.contains("think four\nthink five"), "{screen}");
    term.type_text("and now?");
    term.keys(&["Enter"]);
    term.wait_text("second answer").await;
    term.wait_prompts(4).await;
    let second = &llm.requests()[1];
    let sent = second.to_string();
    assert!(sent.contains("first answer"), "{sent}");
    assert!(!sent.contains("think"), "reasoning was sent back: {sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_repl_attaches_files_to_the_next_message_only() {
    if !tmux_available() {
        return;
    }
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![Reply::text("read it"), Reply::text("plain again")],
    )
    .await;
    let home = Home::new();
    home.write_servers(json!({}));
    write_config(&home, LlmWire::OpenAi, &llm.api_base(), "");
    std::fs::write(home.work_dir().join("notes.txt"), "remember the milk\n").unwrap();
    std::fs::write(home.work_dir().join("pixel.png"), PNG_BYTES).unwrap();
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;
    // This model takes no images: the message is not sent, and says why.
    term.type_text(".file pixel.png");
    term.keys(&["Enter"]);
    term.wait_text("Attached pixel.png").await;
    term.type_text("what is it?");
    term.keys(&["Enter"]);
    term.wait_text("fake:fake-model does not take images").await;
    term.wait_prompts(3).await;
    term.type_text(".file notes.txt");
    term.keys(&["Enter"]);
    term.wait_prompts(4).await;
    term.type_text("summarise");
    term.keys(&["Enter"]);
    term.wait_text("read it").await;
    term.wait_prompts(5).await;
    term.type_text("and now?");
    term.keys(&["Enter"]);
    term.wait_text("plain again").await;
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        user_texts(LlmWire::OpenAi, &requests[0]),
        ["summarise\n\n<file path=\"notes.txt\">\nremember the milk\n</file>"]
    );
    assert!(images(LlmWire::OpenAi, &requests[0]).is_empty());
    assert_eq!(
        user_texts(LlmWire::OpenAi, &requests[1])
            .last()
            .map(String::as_str),
        Some("and now?")
    );
}
