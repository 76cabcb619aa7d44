use serde_json::json;

use super::*;

fn tool(name: &str, description: &str) -> ToolInfo {
    ToolInfo {
        name: name.to_owned(),
        title: None,
        description: Some(description.to_owned()),
        input_schema: json!({"type": "object", "properties": {"id": {"type": "string"}}}),
        output_schema: None,
        annotations: None,
    }
}

fn tools() -> Vec<ToolInfo> {
    vec![
        tool("get_user", "Get one user by id."),
        tool("get_users", "List users."),
        tool("get_user_by_email", "Find a user by their email address."),
        tool("create_issue", "Open a new issue in a repository."),
        tool("close_issue", "Close an issue."),
        tool(
            "list_pull_requests",
            "List the pull requests of a repository.",
        ),
    ]
}

fn names(chosen: &[Retrieved]) -> Vec<(&str, String)> {
    chosen
        .iter()
        .map(|r| (r.tool.as_str(), r.why.label()))
        .collect()
}

#[test]
fn the_best_ranked_tools_are_chosen_within_k() {
    let settings = RetrieveSettings {
        top_k: 2,
        max_tokens: 10_000,
    };
    let chosen = select(
        "s",
        &tools(),
        &RetrieveContext::user("create an issue"),
        settings,
    );
    assert_eq!(
        names(&chosen),
        [
            ("create_issue", "rank 1".into()),
            ("close_issue", "rank 2".into())
        ]
    );
}

#[test]
fn mentions_and_used_tools_win_over_the_ranking() {
    let settings = RetrieveSettings {
        top_k: 1,
        max_tokens: 10_000,
    };
    let mut context = RetrieveContext::user("use get_users, or get-user-by-emal, for the issue");
    context
        .used
        .insert(("s".into(), "list_pull_requests".into()));
    context.used.insert(("other".into(), "get_user".into()));
    let chosen = select("s", &tools(), &context, settings);
    assert_eq!(
        names(&chosen),
        [
            ("list_pull_requests", "used earlier".into()),
            ("get_users", "mention".into()),
            ("get_user_by_email", "mention".into()),
            // The words that named tools do not rank: "the issue" does.
            ("close_issue", "rank 1".into()),
        ]
    );
}

#[test]
fn the_token_budget_holds_for_ranked_tools() {
    let one = select(
        "s",
        &tools(),
        &RetrieveContext::user("issue"),
        RetrieveSettings {
            top_k: 8,
            max_tokens: 10_000,
        },
    );
    assert_eq!(one.len(), 2);
    let budget = one[0].tokens;
    let chosen = select(
        "s",
        &tools(),
        &RetrieveContext::user("issue"),
        RetrieveSettings {
            top_k: 8,
            max_tokens: budget,
        },
    );
    assert_eq!(chosen.len(), 1, "{chosen:?}");
    assert!(chosen.iter().map(|r| r.tokens).sum::<usize>() <= budget);
}

#[test]
fn one_edit_away() {
    assert!(within_one_edit("get_user", "get_users"));
    assert!(within_one_edit("get_user", "get_usr"));
    assert!(within_one_edit("get_user", "get_usar"));
    assert!(within_one_edit("get_user", "get_user"));
    assert!(!within_one_edit("get_user", "get_uzzr"));
    assert!(!within_one_edit("abc", "abcde"));
}

#[test]
fn the_servers_own_name_does_not_rank_its_tools() {
    let settings = RetrieveSettings {
        top_k: 3,
        max_tokens: 10_000,
    };
    let mut listed = tools();
    listed.push(tool(
        "get_github_status",
        "Status of the GitHub service: whether GitHub is up.",
    ));
    let chosen = select(
        "github",
        &listed,
        &RetrieveContext::user("Use the GitHub server to list pull requests."),
        settings,
    );
    assert_eq!(chosen[0].tool, "list_pull_requests", "{chosen:?}");
    assert!(
        !chosen.iter().any(|r| r.tool == "get_github_status"),
        "the name of the server ranked a tool: {chosen:?}"
    );
    // Another server's tools still rank on the word.
    let chosen = select(
        "ci",
        &listed,
        &RetrieveContext::user("is github up"),
        settings,
    );
    assert_eq!(names(&chosen), [("get_github_status", "rank 1".into())]);
}

fn numbered(n: usize) -> Vec<ToolInfo> {
    (0..n)
        .map(|i| tool(&format!("tool_{i:03}"), &format!("Tool number {i}.")))
        .collect()
}

#[test]
fn a_bare_number_ranks_nothing_alone() {
    let settings = RetrieveSettings {
        top_k: 8,
        max_tokens: 10_000,
    };
    for text in ["apple-2", "2", "call 002 now"] {
        let chosen = select("s", &numbered(250), &RetrieveContext::user(text), settings);
        assert!(chosen.is_empty(), "{text}: {:?}", names(&chosen));
    }
    // The name itself still counts as a mention.
    let chosen = select(
        "s",
        &numbered(250),
        &RetrieveContext::user("run tool_002"),
        settings,
    );
    assert_eq!(names(&chosen), [("tool_002", "mention".into())]);
}

/// coolify-mcp's 45 tools, as its golden `tools/list` holds them.
fn coolify_tools() -> Vec<ToolInfo> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../coolify-mcp/tests/golden/single/tools-list.json");
    let list: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| ToolInfo {
            name: t["name"].as_str().unwrap().to_owned(),
            title: t["title"].as_str().map(str::to_owned),
            description: t["description"].as_str().map(str::to_owned),
            input_schema: t["inputSchema"].clone(),
            output_schema: None,
            annotations: None,
        })
        .collect()
}

#[test]
fn a_message_that_matches_nothing_well_declares_nothing() {
    let settings = RetrieveSettings::default();
    let tools = coolify_tools();
    assert_eq!(tools.len(), 45);
    for text in [
        "Echo back the text: hello from the bench",
        "Write a haiku about autumn leaves.",
        "Create an invoice of 120 EUR for customer 77.",
    ] {
        let chosen = select("coolify", &tools, &RetrieveContext::user(text), settings);
        assert!(chosen.is_empty(), "{text}: {:?}", names(&chosen));
    }
    // What the server is for still ranks.
    let chosen = select(
        "coolify",
        &tools,
        &RetrieveContext::user("Show the last 100 log lines of the web application."),
        settings,
    );
    assert!(
        names(&chosen).contains(&("logs", "rank 1".into())),
        "{:?}",
        names(&chosen)
    );
    let chosen = select(
        "coolify",
        &tools,
        &RetrieveContext::user("List the applications deployed on Coolify."),
        settings,
    );
    assert_eq!(chosen[0].tool, "list_applications", "{:?}", names(&chosen));
}
