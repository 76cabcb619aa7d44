#!/usr/bin/env python3
"""A fixed-answer OpenAI-compatible model for scripts/bench: every POST .../chat/completions is
answered at once with the text "4" (streamed as SSE when the request asks for it), so a
one-shot run measures coyote's own time to answer. Binds 127.0.0.1 on a free port and prints
its api_base (http://127.0.0.1:PORT/v1) on the first line of stdout. With --log FILE, each
request body is appended to FILE as one JSON line (what a request declares: `bench tokens`).

Usage: fake_model.py [--log FILE]
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWER = "4"
LOG = None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) or b"{}"
        body = json.loads(raw)
        if LOG:
            with open(LOG, "a") as f:
                f.write(json.dumps(body) + "\n")
        usage = {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}
        if body.get("stream"):
            chunks = [
                {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ANSWER}}]},
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": usage},
            ]
            data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
            self.reply(data.encode(), "text/event-stream")
        else:
            answer = {
                "id": "bench",
                "object": "chat.completion",
                "model": body.get("model", "fake"),
                "choices": [{
                    "index": 0,
                    "message": {"role": "assistant", "content": ANSWER},
                    "finish_reason": "stop",
                }],
                "usage": usage,
            }
            self.reply(json.dumps(answer).encode(), "application/json")

    def reply(self, data, content_type):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    global LOG
    if sys.argv[1:2] == ["--log"] and len(sys.argv) == 3:
        LOG = sys.argv[2]
    elif sys.argv[1:]:
        sys.exit("usage: fake_model.py [--log FILE]")
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    sys.stdout.close()
    server.serve_forever()


if __name__ == "__main__":
    main()
