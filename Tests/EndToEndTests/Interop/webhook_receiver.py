"""A webhook receiver on loopback, for the watch tests: every POST body becomes one line of
RECEIVED, and the port it listens on is written to READY once it accepts connections.

Usage: webhook_receiver.py READY RECEIVED
"""
import http.server
import sys

ready, received = sys.argv[1], sys.argv[2]


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with open(received, "ab") as output:
            output.write(self.headers.get("Content-Type", "").encode() + b"\t" + body.replace(b"\n", b" ") + b"\n")
        self.send_response(204)
        self.end_headers()

    def log_message(self, *arguments):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
with open(ready + ".tmp", "w") as marker:
    marker.write(str(server.server_address[1]))
import os

os.rename(ready + ".tmp", ready)
server.serve_forever()
