use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientResult, CustomRequest, ErrorCode, ErrorData, JsonRpcMessage, RequestId,
    ServerNotification, ServerRequest,
};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::ClientTasks;
use crate::client_handler::Generations;

/// A transport fed by the test, recording what the layer sends.
struct Scripted {
    incoming: mpsc::UnboundedReceiver<RxJsonRpcMessage<RoleClient>>,
    sent: Arc<Mutex<Vec<Value>>>,
}

impl Transport<RoleClient> for Scripted {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.sent
            .lock()
            .unwrap()
            .push(serde_json::to_value(&item).unwrap());
        futures::future::ready(Ok(()))
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

struct Rig {
    layer: ClientTasks<Scripted>,
    feed: mpsc::UnboundedSender<RxJsonRpcMessage<RoleClient>>,
    sent: Arc<Mutex<Vec<Value>>>,
    generations: Arc<Generations>,
}

fn rig() -> Rig {
    let (feed, incoming) = mpsc::unbounded_channel();
    let sent = Arc::new(Mutex::new(Vec::new()));
    let generations = Arc::new(Generations::default());
    let inner = Scripted {
        incoming,
        sent: sent.clone(),
    };
    Rig {
        layer: ClientTasks::new(inner, generations.clone()),
        feed,
        sent,
        generations,
    }
}

fn server_request(id: i64, method: &str, params: Value) -> RxJsonRpcMessage<RoleClient> {
    let raw = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    serde_json::from_value(raw).unwrap()
}

fn tasks_request(id: i64, method: &str, task_id: &str) -> RxJsonRpcMessage<RoleClient> {
    let request = ServerRequest::CustomRequest(CustomRequest::new(
        method,
        Some(json!({ "taskId": task_id })),
    ));
    JsonRpcMessage::request(request, RequestId::Number(id))
}

impl Rig {
    /// Lets the spawned sends run, then takes what was sent.
    async fn sent(&self) -> Vec<Value> {
        tokio::task::yield_now().await;
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        std::mem::take(&mut *self.sent.lock().unwrap())
    }

    /// An elicitation the server asks to run as a task: returns (task id, our request id).
    async fn start_task(&mut self) -> (String, RequestId) {
        let params = json!({"task": {"ttl": 60000}, "message": "Name?",
            "requestedSchema": {"type": "object", "properties": {}}});
        let raw =
            json!({"jsonrpc": "2.0", "id": 5, "method": "elicitation/create", "params": params});
        self.generations
            .tasks
            .tap(&serde_json::to_vec(&raw).unwrap());
        self.feed
            .send(server_request(5, "elicitation/create", params))
            .unwrap();
        let passed = self.layer.receive().await.unwrap();
        let JsonRpcMessage::Request(request) = passed else {
            panic!("the request is passed on")
        };
        assert!(matches!(request.request, ServerRequest::ElicitRequest(_)));
        let ack = self.sent().await;
        assert_eq!(ack.len(), 1, "{ack:?}");
        assert_eq!(ack[0]["id"], 5);
        assert_eq!(ack[0]["result"]["task"]["status"], "working");
        let task_id = ack[0]["result"]["task"]["taskId"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_ne!(
            request.id,
            RequestId::Number(5),
            "passed on under our own id"
        );
        (task_id, request.id)
    }

    /// Feeds a `tasks/*` request; the layer answers it without passing it on.
    async fn ask(&mut self, id: i64, method: &str, task_id: &str) -> Vec<Value> {
        self.feed.send(tasks_request(id, method, task_id)).unwrap();
        let ping = server_request(99, "ping", json!({}));
        self.feed.send(ping).unwrap();
        let next = self.layer.receive().await.unwrap();
        let JsonRpcMessage::Request(request) = next else {
            panic!("expected the ping")
        };
        assert_eq!(
            request.id,
            RequestId::Number(99),
            "tasks/* never reaches rmcp"
        );
        self.sent().await
    }
}

#[tokio::test]
async fn a_task_request_is_acknowledged_then_served_from_the_handler_s_answer() {
    let mut rig = rig();
    let (task_id, ours) = rig.start_task().await;
    let got = rig.ask(6, "tasks/get", &task_id).await;
    assert_eq!(got[0]["result"]["status"], "working", "{got:?}");

    // A `tasks/result` before the end waits for it.
    assert!(rig.ask(7, "tasks/result", &task_id).await.is_empty());
    let answer: TxJsonRpcMessage<RoleClient> = JsonRpcMessage::response(
        serde_json::from_value::<ClientResult>(json!({"action": "accept", "content": {"n": "x"}}))
            .unwrap(),
        ours,
    );
    rig.layer.send(answer).await.unwrap();
    let sent = rig.sent().await;
    assert_eq!(
        sent.len(),
        1,
        "only the waiting tasks/result is answered: {sent:?}"
    );
    assert_eq!(sent[0]["id"], 7);
    assert_eq!(sent[0]["result"]["action"], "accept");
    assert_eq!(
        sent[0]["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        json!(task_id)
    );
    let got = rig.ask(8, "tasks/get", &task_id).await;
    assert_eq!(got[0]["result"]["status"], "completed");
    let listed = rig.ask(9, "tasks/list", "").await;
    assert_eq!(listed[0]["result"]["tasks"][0]["taskId"], json!(task_id));
}

#[tokio::test]
async fn a_cancelled_task_tells_the_handler_and_ignores_its_late_answer() {
    let mut rig = rig();
    let (task_id, ours) = rig.start_task().await;
    rig.feed
        .send(tasks_request(6, "tasks/cancel", &task_id))
        .unwrap();
    let inward = rig.layer.receive().await.unwrap();
    let JsonRpcMessage::Notification(notification) = inward else {
        panic!("the handler is told")
    };
    let ServerNotification::CancelledNotification(cancelled) = notification.notification else {
        panic!("a cancellation")
    };
    assert_eq!(cancelled.params.request_id, Some(ours.clone()));
    let sent = rig.sent().await;
    assert_eq!(sent[0]["result"]["status"], "cancelled", "{sent:?}");

    let late: TxJsonRpcMessage<RoleClient> = JsonRpcMessage::error(
        ErrorData::new(ErrorCode::INTERNAL_ERROR, "cancelled", None),
        Some(ours),
    );
    rig.layer.send(late).await.unwrap();
    assert!(
        rig.sent().await.is_empty(),
        "the late answer is not sent to the server"
    );
    let got = rig.ask(7, "tasks/get", &task_id).await;
    assert_eq!(got[0]["result"]["status"], "cancelled");
    let again = rig.ask(8, "tasks/cancel", &task_id).await;
    assert!(
        again[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("terminal"),
        "{again:?}"
    );
}

#[tokio::test]
async fn an_unknown_task_is_an_error_and_plain_requests_pass_through() {
    let mut rig = rig();
    let got = rig.ask(1, "tasks/get", "nope").await;
    assert_eq!(got[0]["error"]["code"], -32602, "{got:?}");
    let params =
        json!({"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}});
    rig.feed
        .send(server_request(2, "elicitation/create", params))
        .unwrap();
    let JsonRpcMessage::Request(request) = rig.layer.receive().await.unwrap() else {
        panic!("passed on")
    };
    assert_eq!(request.id, RequestId::Number(2), "no task asked: untouched");
    assert!(rig.sent().await.is_empty());
}
