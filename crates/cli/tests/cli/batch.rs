//! `coyote mcp batch`: many commands in one process, each server spawned once;
//! errors, `--fail-fast`, JSON lines, comments, stdin EOF; and every command's output in a
//! batch equal to its output run alone (server-everything).

use coyote_test_support::{Event, ResourceBody, Scenario, ScenarioFile, ToolBehavior};
use serde_json::{Value, json};

use super::common::{Home, everything_entry};

/// A fake server `fake` with `echo`, a `fail` tool (isError) and one resource; every event
/// it sees is logged.
fn fake_home() -> (Home, ScenarioFile) {
    let home = Home::new();
    let scenario = Scenario::builder()
        .tool("echo", ToolBehavior::Echo)
        .tool(
            "fail",
            ToolBehavior::Error {
                text: "it broke".into(),
            },
        )
        .resource(
            "fake://doc",
            "doc",
            ResourceBody::Text {
                text: "the document\n".into(),
            },
        )
        .event_log(&home.path().join("events.jsonl"))
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "fake": scenario.mcp_json_entry() }));
    (home, scenario)
}

/// `coyote mcp batch ARGS` with `input` on stdin: (exit code, stdout, stderr).
fn batch(home: &Home, args: &[&str], input: &str) -> (i32, String, String) {
    let out = home
        .coyote()
        .args(["mcp", "batch"])
        .args(args)
        .write_stdin(input)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn spawns(scenario: &ScenarioFile) -> usize {
    scenario
        .events()
        .events
        .iter()
        .filter(|e| matches!(e, Event::Started { .. }))
        .count()
}

#[test]
fn a_batch_spawns_each_server_once_for_all_its_commands() {
    let (home, scenario) = fake_home();
    let input = "tools fake\ncall fake echo text=one\nresources fake\n\
                 read fake fake://doc\ncall fake echo text=two\ncall fake echo text=three\n";
    let (code, out, err) = batch(&home, &[], input);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("one\n") && out.contains("three\n"), "{out}");
    assert_eq!(scenario.events().tool_calls("echo"), 3);
    assert_eq!(spawns(&scenario), 1, "{:?}", scenario.events());
    // The same commands run alone spawn the server once each.
    home.run(&["mcp", "call", "fake", "echo", "text=alone"]);
    assert_eq!(spawns(&scenario), 2);
}

#[test]
fn a_failing_command_does_not_stop_the_batch_which_exits_with_the_highest_code() {
    let (home, _scenario) = fake_home();
    let input = "call fake echo text=first\ncall fake fail\ntools nope\ncall fake echo text=last\n";
    let (code, out, err) = batch(&home, &[], input);
    assert_eq!(code, 2, "{err}");
    assert_eq!(out, "first\nit broke\nlast\n");
    assert!(err.contains("unknown MCP server 'nope'"), "{err}");

    let (code, out, err) = batch(&home, &["--fail-fast"], input);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out, "first\nit broke\n");
    assert!(!err.contains("nope"), "{err}");
}

#[test]
fn json_lines_report_each_command_with_its_id_and_its_own_json_document() {
    let (home, _scenario) = fake_home();
    let input = "# a comment, then a blank line\n\n\
                 {\"id\": \"first\", \"argv\": [\"call\", \"fake\", \"echo\", \"text=hi\"]}\n\
                 coyote mcp call fake fail   # the prefix and a trailing comment\n\
                 tools nope\n\
                 frobnicate\n\
                 {\"argv\": \"not a list\"}\n";
    let (code, out, err) = batch(&home, &["--json"], input);
    assert_eq!(code, 2, "{out}\n{err}");
    assert_eq!(err, "", "every command's stderr is in its line");
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 5, "{out}");
    let alone = home.json(&["mcp", "call", "fake", "echo", "text=hi"]);
    assert_eq!(
        lines[0],
        json!({"id": "first", "exit": 0, "stdout": alone, "stderr": ""})
    );
    assert_eq!(lines[1]["id"], 4);
    assert_eq!(lines[1]["exit"], 1);
    assert_eq!(lines[1]["stdout"]["is_error"], true);
    assert_eq!(lines[2]["id"], 5);
    assert_eq!(lines[2]["exit"], 2);
    assert_eq!(lines[2]["stdout"], Value::Null);
    let stderr = lines[2]["stderr"].as_str().unwrap();
    assert!(stderr.contains("unknown MCP server 'nope'"), "{stderr}");
    assert_eq!(lines[3]["id"], 6);
    assert_eq!(lines[3]["exit"], 2);
    let stderr = lines[3]["stderr"].as_str().unwrap();
    assert!(
        stderr.contains("unrecognized subcommand 'frobnicate'"),
        "{stderr}"
    );
    assert_eq!(lines[4]["id"], 7);
    assert_eq!(lines[4]["exit"], 2);
    let stderr = lines[4]["stderr"].as_str().unwrap();
    assert!(stderr.contains("line 7: not a batch JSON line"), "{stderr}");
}

#[test]
fn stdin_eof_ends_the_batch_cleanly_and_a_file_is_read_like_stdin() {
    let (home, scenario) = fake_home();
    assert_eq!(batch(&home, &[], ""), (0, String::new(), String::new()));
    assert_eq!(
        batch(&home, &["--json"], "\n# nothing\n"),
        (0, String::new(), String::new())
    );
    assert_eq!(spawns(&scenario), 0, "an empty batch starts no server");
    // The last line needs no newline.
    let (code, out, err) = batch(&home, &[], "call fake echo text=a\ncall fake echo text=b");
    assert_eq!((code, out.as_str()), (0, "a\nb\n"), "{err}");
    let file = home.path().join("commands.batch");
    std::fs::write(&file, "call fake echo 'text=from a file'\n").unwrap();
    let (code, out, err) = batch(
        &home,
        &[file.to_str().unwrap()],
        "call fake echo text=stdin\n",
    );
    assert_eq!((code, out.as_str()), (0, "from a file\n"), "{err}");
    let (code, _out, err) = batch(&home, &["/nonexistent/commands.batch"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot read the batch file"), "{err}");
}

#[test]
fn help_inside_a_batch_prints_what_it_prints_alone() {
    let (home, _scenario) = fake_home();
    let (code, alone, _) = home.run(&["mcp", "tools", "--help"]);
    assert_eq!(code, 0);
    let (code, out, err) = batch(&home, &[], "tools --help\n");
    assert_eq!((code, out), (0, alone), "{err}");
    let (code, out, _) = home.run(&["mcp", "batch", "--help"]);
    assert_eq!(code, 0);
    for needle in ["--fail-fast", "--json", "\"argv\"", "highest exit code"] {
        assert!(out.contains(needle), "{needle}: {out}");
    }
}

/// Commands whose output does not depend on the session (no timestamps).
const SAME_ALONE: &[&[&str]] = &[
    &["tools", "everything"],
    &["resources", "everything"],
    &["templates", "everything"],
    &["prompts", "everything"],
    &[
        "read",
        "everything",
        "demo://resource/static/document/features.md",
        "--pattern",
        "Resources",
    ],
    &["prompt", "everything", "args-prompt", "city=Paris"],
    &["call", "everything", "get-sum", "a=2", "b=3"],
    &["call", "everything", "echo", "message=two words"],
    &["describe", "everything", "get-sum"],
    &["search", "everything", "sum of two numbers"],
    &["tools", "no-such-server"],
];

#[test]
fn each_command_in_a_batch_prints_what_it_prints_alone() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    let quote = |w: &str| format!("'{w}'");
    let input: String = SAME_ALONE
        .iter()
        .map(|words| {
            format!(
                "{}\n",
                words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
            )
        })
        .collect();
    let (mut out_alone, mut err_alone, mut highest) = (String::new(), String::new(), 0);
    let mut json_alone = Vec::new();
    for words in SAME_ALONE {
        let mut args = vec!["mcp"];
        args.extend_from_slice(words);
        let (code, out, err) = home.run(&args);
        out_alone.push_str(&out);
        err_alone.push_str(&err);
        highest = highest.max(code);
        args.push("--json");
        let (code_json, out, err) = home.run(&args);
        let doc = if out.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&out).unwrap()
        };
        json_alone.push(json!({"exit": code_json, "stdout": doc, "stderr": err}));
    }
    assert_eq!(highest, 2, "the unknown server is a usage error");

    let (code, out, err) = batch(&home, &[], &input);
    assert_eq!(code, highest);
    assert_eq!(out, out_alone);
    assert_eq!(err, err_alone);

    let (code, out, err) = batch(&home, &["--json"], &input);
    assert_eq!(code, highest, "{err}");
    let lines = json_lines(&out);
    assert_eq!(lines.len(), SAME_ALONE.len(), "{out}");
    for (i, (line, alone)) in lines.iter().zip(&json_alone).enumerate() {
        assert_eq!(line["id"], i + 1);
        for key in ["exit", "stdout", "stderr"] {
            assert_eq!(line[key], alone[key], "{key} of {:?}", SAME_ALONE[i]);
        }
    }
}

#[test]
fn the_documented_workflow_file_runs_against_the_example_config() {
    if coyote_test_support::peers::require(coyote_test_support::peers::server_everything_entry())
        .is_none()
    {
        return;
    }
    let root = coyote_test_support::peers::repo_root();
    let workflow = std::fs::read_to_string(root.join("examples/workflow.batch")).unwrap();
    let commands = workflow
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .count();
    assert_eq!(commands, 26, "the reference workflow is 26 commands");
    let home = Home::new();
    let out = home
        .coyote()
        .current_dir(&root)
        .args(["--config-dir", "examples", "mcp", "batch", "--json"])
        .arg("examples/workflow.batch")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 26);
    assert!(lines.iter().all(|l| l["exit"] == 0), "{stdout}");
    assert_eq!(
        lines[25]["stdout"]["content"][0]["text"],
        "The sum of 2 and 3 is 5."
    );
}

/// A huge line and a line that is not UTF-8 are each reported with their line number and
/// skipped; the batch goes on with the next line. Before, the first invalid line ended the
/// batch ("stream did not contain valid UTF-8", no line number) and a long line was held whole.
#[test]
fn an_oversized_or_invalid_line_is_reported_by_number_and_the_batch_goes_on() {
    let (home, _scenario) = fake_home();
    let mut input = b"call fake echo message=one\n".to_vec();
    input.extend(std::iter::repeat_n(b'x', 5 * 1024 * 1024));
    input.extend(b"\ncall fake echo message=\xff\xfe\ncall fake echo message=four\n");
    let out = home
        .coyote()
        .args(["mcp", "batch"])
        .write_stdin(input)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("one") && stdout.contains("four"),
        "{stdout}"
    );
    assert!(
        stderr.contains("line 2: 5242880 bytes is longer than a batch line may be"),
        "{stderr}"
    );
    assert!(stderr.contains("line 3: not valid UTF-8"), "{stderr}");
}

/// Text that does not end its line (a resource read) gets a line end before the next
/// command's output, so two reads do not run together.
#[test]
fn text_without_a_line_end_does_not_run_into_the_next_command() {
    let home = Home::new();
    let scenario = Scenario::builder()
        .resource(
            "fake://bare",
            "bare",
            ResourceBody::Text {
                text: "no line end".into(),
            },
        )
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "fake": scenario.mcp_json_entry() }));
    let (code, out, err) = batch(&home, &[], "read fake fake://bare\nread fake fake://bare\n");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "no line end\nno line end\n");
    // Alone and piped, the exact bytes are kept.
    let (code, out, _) = home.run(&["mcp", "read", "fake", "fake://bare"]);
    assert_eq!((code, out.as_str()), (0, "no line end"));
}
