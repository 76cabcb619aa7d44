use rmcp::model::{
    ClientCapabilities, ClientJsonRpcMessage, ClientRequest, Implementation, InitializeRequest,
    InitializeRequestParams, JsonRpcMessage, ListToolsRequest, RequestId,
};
use serde_json::{Value, json};

use super::with_task_capability;

fn initialize(capabilities: ClientCapabilities) -> ClientJsonRpcMessage {
    let params = InitializeRequestParams::new(capabilities, Implementation::new("coyote", "1"));
    JsonRpcMessage::request(
        ClientRequest::InitializeRequest(InitializeRequest::new(params)),
        RequestId::Number(0),
    )
}

#[test]
fn initialize_claims_task_requests_only_for_what_it_advertises() {
    let caps: ClientCapabilities =
        serde_json::from_value(json!({"elicitation": {"form": {}}})).unwrap();
    let sent: Value =
        serde_json::from_slice(&with_task_capability(&initialize(caps)).unwrap()).unwrap();
    let tasks = &sent["params"]["capabilities"]["tasks"];
    assert_eq!(
        tasks["requests"],
        json!({"elicitation": {"create": {}}}),
        "{sent}"
    );
    assert_eq!(tasks["list"], json!({}));
    assert_eq!(
        sent["params"]["capabilities"]["elicitation"],
        json!({"form": {}})
    );

    let other: ClientJsonRpcMessage = JsonRpcMessage::request(
        ClientRequest::ListToolsRequest(ListToolsRequest::default()),
        RequestId::Number(1),
    );
    assert!(
        with_task_capability(&other).is_none(),
        "other messages are left alone"
    );
}
