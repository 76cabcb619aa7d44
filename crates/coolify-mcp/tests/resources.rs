//! Resources (docs/coolify-mcp.md), plus the hanging-instance deadline path.

use std::time::Duration;

use coolify_fixture::{Behaviour, FIXTURE_WEBHOOK_SECRET, Fixture, NotFoundMode};
use coolify_mcp::resources::ListingOutcome;
use serde_json::{Value, json};

use crate::common::{Harness, Setup, quick_timing, rpc_error};

fn titles_unique(resources: &[Value]) {
    let mut titles: Vec<&str> = resources
        .iter()
        .map(|r| r["title"].as_str().or(r["name"].as_str()).unwrap())
        .collect();
    let n = titles.len();
    titles.sort();
    titles.dedup();
    assert_eq!(titles.len(), n, "display titles are unique");
}

#[tokio::test]
async fn item_41_single_listing() {
    let h = Harness::start(Setup::default()).await.unwrap();
    let r = h.resources().await;
    assert_eq!(r.len(), 4);
    assert_eq!(
        r[0],
        json!({"uri": "coolify://overview", "name": "overview", "title": "Infrastructure overview", "description": "Counts and current status for every server, project, application, database and service. The same snapshot `get_infrastructure_overview` returns.", "mimeType": "application/json"})
    );
    assert_eq!(r[2]["uri"], "coolify://application/app-api");
    assert_eq!(r[2]["title"], "api-gateway");
    assert_eq!(r[2]["name"], "api-gateway");
    assert_eq!(
        r[2]["description"],
        "exited:unhealthy — https://api.example.test"
    );
    titles_unique(&r);
    let t = h.templates().await;
    assert_eq!(t.len(), 1);
    assert_eq!(t[0]["uriTemplate"], "coolify://application/{uuid}");
    assert!(
        !serde_json::to_string(&(r, t)).unwrap().contains("reveal="),
        "no reveal in any URI"
    );
}

#[tokio::test]
async fn item_42_fleet_listing() {
    let h = Harness::start(Setup::default().fleet()).await.unwrap();
    let r = h.resources().await;
    assert_eq!(r.len(), 8);
    assert_eq!(r[0]["uri"], "coolify://default/overview");
    assert_eq!(r[1]["title"], "staging overview");
    assert_eq!(
        r[1]["description"],
        "Every resource on the \"staging\" instance."
    );
    assert!(r.iter().any(|e| e["title"] == "api-gateway (staging)"
        && e["uri"] == "coolify://staging/application/app-api"));
    titles_unique(&r);
    assert!(r.iter().all(|e| {
        !e["uri"].as_str().unwrap().starts_with("coolify://overview")
            && !e["uri"]
                .as_str()
                .unwrap()
                .starts_with("coolify://application")
    }));
    let t = h.templates().await;
    let uris: Vec<&str> = t
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "coolify://{instance}/overview",
            "coolify://{instance}/application/{uuid}"
        ]
    );
}

#[tokio::test]
async fn item_43_overview_text_equals_the_tool_text() {
    let h = Harness::start(Setup::default()).await.unwrap();
    assert_eq!(
        h.read_text("coolify://overview").await,
        h.call("get_infrastructure_overview", json!({})).await
    );
    let h = Harness::start(Setup::default().fleet()).await.unwrap();
    let text = h.read_text("coolify://staging/overview").await;
    assert_eq!(
        text,
        h.call(
            "get_infrastructure_overview",
            json!({"instance": "staging"})
        )
        .await
    );
    let v: Value = serde_json::from_str(&text).unwrap();
    assert!(v["summary"]["applications"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn item_44_application_text_is_get_application_data() {
    let h = Harness::start(Setup::default()).await.unwrap();
    let read = h.read("coolify://application/app-api").await.unwrap();
    assert_eq!(read["contents"][0]["mimeType"], "application/json");
    assert_eq!(read["contents"][0]["uri"], "coolify://application/app-api");
    let text = read["contents"][0]["text"].as_str().unwrap();
    let tool: Value = h
        .call_json("get_application", json!({"uuid": "app-api"}))
        .await;
    assert_eq!(text, coolify_mcp::json::pretty(&tool["data"]));
    assert!(text.contains("\"manual_webhook_secret_github\": \"***\""));
    assert!(!text.contains(FIXTURE_WEBHOOK_SECRET));
    let h = Harness::start(Setup::default().fleet()).await.unwrap();
    let v: Value =
        serde_json::from_str(&h.read_text("coolify://staging/application/app-api").await).unwrap();
    assert_eq!(v["uuid"], "app-api");
}

/// The JSON-RPC error of a failed read: code, message and data.
fn read_error(e: &rmcp::ServiceError) -> (i32, String, Value) {
    match e {
        rmcp::ServiceError::McpError(d) => (
            d.code.0,
            d.message.to_string(),
            d.data.clone().unwrap_or(Value::Null),
        ),
        other => (0, other.to_string(), Value::Null),
    }
}

#[tokio::test]
async fn item_45_empty_segments_are_errors_without_requests() {
    // As in the reference's SDK, an empty template variable never matches: the read is
    // -32602 `Resource not found: <uri>` with `data.uri`, and nothing is sent.
    let h = Harness::start(Setup::default()).await.unwrap();
    let h2 = Harness::start(Setup::default().fleet()).await.unwrap();
    for (harness, uri) in [
        (&h, "coolify://application/"),
        (&h, "coolify://application/a/b"),
        (&h, "coolify://application/a,b"),
        (&h2, "coolify://staging/application/"),
        (&h2, "coolify:///overview"),
        (&h2, "coolify://overview"),
    ] {
        let err = harness.read(uri).await.unwrap_err();
        assert_eq!(
            read_error(&err),
            (
                -32602,
                format!("Resource not found: {uri}"),
                json!({"uri": uri})
            ),
            "{uri}"
        );
    }
    // A URI that does not parse: -32602 with the reference's `invalid_uri` reason.
    let err = h.read("not a uri").await.unwrap_err();
    assert_eq!(
        read_error(&err),
        (
            -32602,
            "Resource URI not a uri is invalid".to_string(),
            json!({"uri": "not a uri", "reason": "invalid_uri"})
        )
    );
    assert!(h.log().is_empty() && h2.log().is_empty());
}

#[tokio::test]
async fn application_uuids_in_uris_are_percent_decoded_once() {
    // The reference passes the capture raw into the request path, where Coolify decodes it
    // once; decoding here and encoding the id as one segment reaches the same application.
    let h = Harness::start(Setup::default()).await.unwrap();
    let v = h.read("coolify://application/app%2Dapi").await.unwrap();
    assert_eq!(v["contents"][0]["uri"], "coolify://application/app%2Dapi");
    let app: Value = serde_json::from_str(v["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(app["uuid"], "app-api");
    assert_eq!(h.log(), ["GET /api/v1/applications/app-api"]);
    // An encoded slash cannot escape the segment: refused before anything is sent.
    h.fixture.clear_requests();
    let err = h
        .read("coolify://application/..%2Fservers")
        .await
        .unwrap_err();
    assert_eq!(read_error(&err).0, -32603);
    assert!(h.log().is_empty());
}

#[tokio::test]
async fn item_46_unknown_instance_never_falls_back() {
    let h = Harness::start(Setup::default().fleet()).await.unwrap();
    for uri in [
        "coolify://stagng/overview",
        "coolify://STAGING/application/app-api",
    ] {
        let err = h.read(uri).await.unwrap_err();
        let (code, msg) = rpc_error(&err);
        assert_eq!(code, -32603);
        assert!(msg.starts_with("Unknown instance"), "{msg}");
    }
    assert!(h.log().is_empty());
}

#[tokio::test]
async fn item_47_upstream_404_is_a_json_rpc_error() {
    let f = Fixture::builder()
        .not_found(NotFoundMode::Real404)
        .start()
        .await
        .unwrap();
    let h = Harness::with_fixture(f, Setup::default()).await.unwrap();
    let err = h
        .read("coolify://application/app-missing")
        .await
        .unwrap_err();
    let (code, msg) = rpc_error(&err);
    assert_eq!(code, -32603);
    assert!(msg.contains("not found"), "{msg}");
}

#[tokio::test]
async fn item_48_refused_and_hanging_instances_drop_out() {
    // A refused port: bind then drop a listener to get a closed loopback port.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let setup = Setup {
        timing: quick_timing(),
        ..Setup::default()
    }
    .instance("down", Some(format!("http://{closed}")));
    let h = Harness::start(setup).await.unwrap();
    let r = h.resources().await;
    assert!(
        r.iter()
            .any(|e| e["uri"] == "coolify://default/application/app-api")
    );
    assert!(!r.iter().any(|e| {
        e["uri"]
            .as_str()
            .unwrap()
            .starts_with("coolify://down/application/")
    }));

    // Deliberate difference: a hanging instance drops out through the listing deadline
    // (the reference waits out the HTTP timeout).
    let hanging = Fixture::builder()
        .behaviour(Behaviour::Hanging)
        .start()
        .await
        .unwrap();
    let mut setup = Setup {
        timing: quick_timing(),
        ..Setup::default()
    }
    .instance("hung", Some(hanging.url().to_string()));
    setup.timing.listing_deadline = Duration::from_millis(200);
    let h = Harness::start(setup).await.unwrap();
    let (entries, outcomes) = h.server.list_resources_with_outcomes().await;
    assert_eq!(
        outcomes,
        vec![
            ("default".to_string(), ListingOutcome::Listed),
            ("hung".to_string(), ListingOutcome::DeadlineExceeded)
        ]
    );
    assert_eq!(
        entries
            .iter()
            .filter(|e| e["uri"]
                .as_str()
                .unwrap()
                .starts_with("coolify://default/application/"))
            .count(),
        3
    );
    assert!(
        entries
            .iter()
            .any(|e| e["uri"] == "coolify://hung/overview")
    );
}

#[tokio::test]
async fn item_49_completion() {
    let h = Harness::start(Setup::default().fleet()).await.unwrap();
    let complete = |arg: &str, value: &str, ctx: Value| {
        let params: rmcp::model::CompleteRequestParams = serde_json::from_value(json!({
            "ref": {"type": "ref/resource", "uri": "coolify://{instance}/application/{uuid}"},
            "argument": {"name": arg, "value": value},
            "context": {"arguments": ctx}
        }))
        .unwrap();
        let peer = h.client.peer().clone();
        async move {
            serde_json::to_value(peer.complete(params).await.unwrap()).unwrap()["completion"]
                .clone()
        }
    };
    assert_eq!(
        complete("instance", "st", json!({})).await,
        json!({"values": ["staging"], "total": 1, "hasMore": false})
    );
    // Deliberate difference: uuid completes from the application list (reference: []).
    assert_eq!(
        complete("uuid", "app-a", json!({"instance": "staging"})).await["values"],
        json!(["app-api"])
    );
    let single = Harness::start(Setup::default()).await.unwrap();
    let caps =
        serde_json::to_value(single.client.peer().peer_info().unwrap()).unwrap()["capabilities"]
            .clone();
    assert!(caps.get("completions").is_none());
    let params: rmcp::model::CompleteRequestParams = serde_json::from_value(json!({
        "ref": {"type": "ref/resource", "uri": "coolify://application/{uuid}"}, "argument": {"name": "uuid", "value": ""}
    }))
    .unwrap();
    let err = single.client.peer().complete(params).await.unwrap_err();
    assert_eq!(rpc_error(&err).0, -32601);
}
