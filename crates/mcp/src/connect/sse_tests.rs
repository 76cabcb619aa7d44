use futures::stream;

use super::*;

fn events(list: &[(&str, &str)]) -> BoxStream<'static, Result<Sse, SseError>> {
    let items: Vec<Result<Sse, SseError>> = list
        .iter()
        .map(|(event, data)| {
            Ok(Sse {
                event: Some((*event).to_owned()),
                data: Some((*data).to_owned()),
                id: None,
                retry: None,
            })
        })
        .collect();
    stream::iter(items).boxed()
}

#[tokio::test]
async fn endpoint_is_resolved_against_the_stream_url() {
    let mut s = events(&[("ping", ""), ("endpoint", "/messages?sessionId=abc")]);
    let url = endpoint("http://127.0.0.1:9/sse", &mut s).await.unwrap();
    assert_eq!(url, "http://127.0.0.1:9/messages?sessionId=abc");
    let mut s = events(&[("endpoint", "message?x=1")]);
    let url = endpoint("http://127.0.0.1:9/a/sse", &mut s).await.unwrap();
    assert_eq!(url, "http://127.0.0.1:9/a/message?x=1");
}

#[tokio::test]
async fn endpoint_on_another_origin_is_refused() {
    let mut s = events(&[("endpoint", "http://evil.example/messages")]);
    let error = endpoint("http://127.0.0.1:9/sse", &mut s)
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("not on the server's origin"),
        "{error}"
    );
}

#[tokio::test]
async fn a_stream_without_endpoint_says_so() {
    let mut s = events(&[("message", "{}")]);
    let error = endpoint("http://127.0.0.1:9/sse", &mut s)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("\"endpoint\" event"), "{error}");
}

#[tokio::test]
async fn message_events_become_lines_and_the_pipe_closes_with_the_stream() {
    let (writer, mut reader) = tokio::io::duplex(1024);
    let inbound = Arc::new(tokio::sync::Mutex::new(writer));
    let s = events(&[
        ("message", "{\"a\":\n1}"),
        ("other", "ignored"),
        ("message", "{\"b\":2}"),
    ]);
    read_events("t".into(), s, inbound).await;
    let mut text = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut reader, &mut text)
        .await
        .unwrap();
    assert_eq!(text, "{\"a\": 1}\n{\"b\":2}\n");
}
