#!/usr/bin/env python3
"""A stand-in OpenAI-compatible provider for `reparto bench analyze` (never shipped in the binary).

Speaks the chat-completions and embeddings wire format, answers every request after --delay
seconds (200 ms by default), many at once (a thread per request). GET /stats returns how many
requests it answered and the instants of the first and last arrival, so run.sh can report the
request rate the provider saw.
"""
import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
ARRIVALS = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path != "/stats":
            return self.reply(404, {"error": {"message": "not found"}})
        with LOCK:
            arrivals = sorted(ARRIVALS)
        span = arrivals[-1] - arrivals[0] if len(arrivals) > 1 else 0
        self.reply(200, {"requests": len(arrivals), "first": arrivals[0] if arrivals else None,
                         "last": arrivals[-1] if arrivals else None, "span_seconds": span,
                         "rate": (len(arrivals) - 1) / span if span > 0 else 0})

    def do_POST(self):
        arrived = time.time()
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        with LOCK:
            ARRIVALS.append(arrived)
        time.sleep(self.server.delay)
        if self.path.endswith("/chat/completions"):
            prompt = (request.get("messages") or [{}])[-1].get("content", "")
            first = prompt.split("\n")[1] if "\n" in prompt else prompt[:40]
            return self.reply(200, {
                "id": "chatcmpl-bench", "object": "chat.completion", "created": int(arrived),
                "model": request.get("model") or "bench-chat",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "A stand-in answer about " + first + "."}}],
                "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 12,
                          "total_tokens": len(prompt) // 4 + 12}})
        if self.path.endswith("/embeddings"):
            texts = request.get("input") or []
            if isinstance(texts, str):
                texts = [texts]
            data = [{"object": "embedding", "index": i,
                     "embedding": [((len(t) * (k + 3)) % 97) / 97.0 for k in range(16)]} for i, t in enumerate(texts)]
            return self.reply(200, {"object": "list", "data": data, "model": request.get("model") or "bench-embed",
                                    "usage": {"prompt_tokens": sum(len(t) // 4 for t in texts),
                                              "total_tokens": sum(len(t) // 4 for t in texts)}})
        self.reply(404, {"error": {"message": "unknown path " + self.path}})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=18431)
    parser.add_argument("--delay", type=float, default=0.2)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.delay = args.delay
    server.serve_forever()


if __name__ == "__main__":
    main()
