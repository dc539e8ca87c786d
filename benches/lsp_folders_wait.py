#!/usr/bin/env python3
"""How long `sextant lsp` takes to answer a question over every workspace folder when
several folders are slow: still in their first index, or with real work to do.

    python3 benches/lsp_folders_wait.py --sextant target/debug/sextant \
        [--baseline OTHER_BUILD] [--folders 4] [--files 300] [--rounds 3]

Makes one small folder and --folders folders of --files Python files each, and runs two
cases, each in a fresh server per round:

- `indexing`: every large folder is named `slow`, and the server runs with the test hook
  `SEXTANT_TEST_LOAD_PAUSE_MS=slow:600000`: each builds its first shard of the symbol index,
  then stays in its first index. Each question waits at most a second (from when it is
  asked) for a folder's index; `workspace/symbol` then answers a slow folder from its first
  shard, `workspace/diagnostic` leaves it out.
- `checking`: `--no-background-check`, every folder indexed (asked until `workspace/symbol`
  finds each folder's marker), then the first `workspace/diagnostic`, which checks every
  file of every folder.

The table gives each build's median, and with --baseline the two builds' ratio (measured
in the same run, the baseline first). In the `checking` case both builds' answers must be
equal (the script exits 1 otherwise); while indexing, which folders have built a shard
within the second depends on the machine.
"""


import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


class Server:
    """`sextant lsp` spoken to over its stdio, one request at a time."""

    def __init__(self, sextant: str, folders: list[Path], extra: list[str], env: dict[str, str]):
        self.proc = subprocess.Popen(
            [sextant, "--no-cache", "lsp", *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **env},
        )
        params = {
            "processId": None,
            "capabilities": {},
            "workspaceFolders": [{"uri": f.as_uri(), "name": f.name} for f in folders],
        }
        self.request(1, "initialize", params)
        self.send({"method": "initialized", "params": {}})

    def send(self, message: dict):
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def receive(self) -> dict:
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("the server closed its output")
            if line == b"\r\n":
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(self.proc.stdout.read(length))

    def request(self, id: int, method: str, params: dict) -> dict:
        self.send({"id": id, "method": method, "params": params})
        while True:
            message = self.receive()
            if "method" not in message and message.get("id") == id:
                return message

    def kill(self):
        # A build that cannot stop a first index would wait out the pause at shutdown.
        self.proc.kill()
        self.proc.wait()


def make_folders(base: Path, name: str, count: int, files: int) -> list[Path]:
    fast = base / "fast"
    fast.mkdir()
    (fast / "a.py").write_text("import os\n\n\ndef served():\n    pass\n\n\ndef marker_fast():\n    pass\n")
    folders = [fast.resolve()]
    for n in range(count):
        root = base / f"f{n}" / name
        root.mkdir(parents=True)
        (root / "marker.py").write_text(f"def marker_{n}():\n    pass\n")
        for i in range(files):
            body = "".join(f"\n\ndef f{j}(x):\n    y = x + {j}\n    return [y for _ in range(x)]\n" for j in range(20))
            (root / f"m{i:03}.py").write_text(f"import sys\nimport os\n\n\ndef served_{n}_{i:03}():\n    pass\n{body}")
        folders.append(root.resolve())
    return folders


def measure(sextant: str, folders: list[Path], case: str, rounds: int) -> tuple[dict, dict]:
    """Each question's median seconds over `rounds` fresh servers, and its last answer."""
    if case == "indexing":
        extra, env = [], {"SEXTANT_TEST_LOAD_PAUSE_MS": "slow:600000"}
        questions = [("workspace/symbol", {"query": "served"}), ("workspace/diagnostic", {"previousResultIds": []})]
    else:
        extra, env = ["--no-background-check"], {}
        questions = [("workspace/diagnostic", {"previousResultIds": []})]
    times: dict[str, list[float]] = {method: [] for method, _ in questions}
    answers = {}
    for _ in range(rounds):
        server = Server(sextant, folders, extra, env)
        try:
            if case == "checking":
                while len(server.request(2, "workspace/symbol", {"query": "marker_"})["result"]) < len(folders):
                    time.sleep(0.2)
            for id, (method, params) in enumerate(questions, start=3):
                started = time.perf_counter()
                answer = server.request(id, method, params)
                times[method].append(time.perf_counter() - started)
                answers[method] = answer.get("result", answer.get("error"))
        finally:
            server.kill()
    return {m: statistics.median(t) for m, t in times.items()}, answers


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--baseline")
    parser.add_argument("--folders", type=int, default=4, help="large folders (default 4)")
    parser.add_argument("--files", type=int, default=300, help="files in each (default 300)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    builds = ([("baseline", args.baseline)] if args.baseline else []) + [("this build", args.sextant)]
    print(f"one small folder and {args.folders} of {args.files} files, median of {args.rounds} servers each")
    header = "| case | question | " + " | ".join(label for label, _ in builds) + (" | baseline / this |" if args.baseline else " |")
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    differ = False
    for case, name in [("indexing", "slow"), ("checking", "work")]:
        with tempfile.TemporaryDirectory() as tmp:
            folders = make_folders(Path(tmp), name, args.folders, args.files)
            results = {label: measure(binary, folders, case, args.rounds) for label, binary in builds}
        for method in results["this build"][0]:
            row = [f"{results[label][0][method]:.2f} s" for label, _ in builds]
            if args.baseline:
                row.append(f"{results['baseline'][0][method] / results['this build'][0][method]:.1f}×")
            print(f"| {case} | `{method}` | " + " | ".join(row) + " |")
        # While indexing, which folders have built a shard within the second is up to the
        # machine: only the indexed folders' answers are compared.
        if case == "checking" and args.baseline and results["baseline"][1] != results["this build"][1]:
            print(f"{case}: the builds' answers differ")
            differ = True
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
