"""git as the oracle for `sextant apply`: real commits' diffs applied to their parents.

For each of the last N commits of a repository that have one parent, checks out the parent in
a scratch worktree, writes `git diff -M PARENT COMMIT` (renames, new and deleted files, mode
changes) through `sextant apply --write --check off`, and compares the worktree with the
commit's tree (`git diff --quiet COMMIT`, after `git add -A`). Reports how many trees came out
identical, how many patches sextant refused (with the error) and how many it applied wrongly,
listing each miss. Binary diffs are skipped (sextant edits text).

`--form envelope` sends each diff as the `*** Begin Patch` envelope instead (commits the
envelope cannot say are skipped: mode changes, a missing final newline). `--corrupt` breaks
each patch instead (a context line changed, a file that does not exist, a path leaving the
root, in turn) and checks that sextant refuses it and leaves the tree exactly as it was.

    python tests/oracle/patch_compare.py --sextant target/release/sextant --repo . --commits 100
"""

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def git(repo, *args, check=True, text=True):
    return subprocess.run(["git", "-C", str(repo), *args], check=check, capture_output=True, text=text)


def sections(diff: str):
    """The file sections of a `git diff`: (header lines, hunks), each hunk its `@@` line, then
    its lines."""
    found = []
    for chunk in re.split(r"(?m)^(?=diff --git )", diff):
        if not chunk.startswith("diff --git "):
            continue
        lines = chunk.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        header, hunks = [], []
        for line in lines:
            if line.startswith("@@"):
                hunks.append([line])
            elif hunks:
                hunks[-1].append(line)
            else:
                header.append(line)
        found.append((header, hunks))
    return found


def envelope(diff: str, old_text):
    """`diff` as the `*** Begin Patch` envelope, or None when the envelope cannot say it."""
    if "\n\\ No newline at end of file" in diff or "\nold mode " in diff or "\nnew file mode 1007" in diff:
        return None
    out = ["*** Begin Patch"]
    for header, hunks in sections(diff):
        paths = re.match(r"diff --git a/(.*) b/(.*)$", header[0])
        if not paths:
            return None
        old, new = paths.groups()
        if any(h.startswith("new file mode") for h in header):
            out.append(f"*** Add File: {new}")
            out += [line for hunk in hunks for line in hunk[1:]]
            continue
        if any(h.startswith("deleted file mode") for h in header):
            out.append(f"*** Delete File: {old}")
            continue
        out.append(f"*** Update File: {old}")
        if old != new:
            out.append(f"*** Move to: {new}")
        old_lines = old_text(old).split("\n")
        after = 0  # the old line where the previous chunk ended
        for hunk in hunks:
            # git's function context (the nearest definition line above the hunk) becomes
            # the envelope's `@@ context` line, as an agent names where a chunk goes, when
            # that line lies between the previous chunk and this one (git also names a
            # definition the previous chunk already passed, and cuts long lines).
            context = hunk[0].split("@@")[2].strip() if hunk[0].count("@@") >= 2 else ""
            start, count = (int(n) for n in (re.match(r"@@ -(\d+)(?:,(\d+))?", hunk[0]).groups("1")))
            between = [line.strip() for line in old_lines[after : max(start - 1, after)]]
            out.append(f"@@ {context}" if context and context in between else "@@")
            after = start - 1 + count
            out += hunk[1:]
    out.append("*** End Patch")
    return "\n".join(out) + "\n"


def corrupted(diff: str, kind: int):
    """`diff` broken the `kind`th way (0, 1, 2 in turn), and what was broken."""
    if kind == 0:
        lines = diff.split("\n")
        for at, line in enumerate(lines):
            if line.startswith(" ") and line.strip() and not lines[at - 1].startswith("+++"):
                lines[at] = line + "  # changed"
                return "\n".join(lines), "a context line changed"
        kind = 1
    if kind == 1:
        match = re.search(r"(?m)^--- a/(.*)$", diff)
        if match:
            missing = "no/such/" + match.group(1)
            return diff.replace(f"a/{match.group(1)}", f"a/{missing}").replace(f"b/{match.group(1)}", f"b/{missing}"), "a file that does not exist"
    outside = "../outside.txt"
    return diff + f"diff --git a/{outside} b/{outside}\nnew file mode 100644\n--- /dev/null\n+++ b/{outside}\n@@ -0,0 +1 @@\n+x\n", "a path outside the root"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--form", choices=["unified", "envelope"], default="unified")
    parser.add_argument("--corrupt", action="store_true", help="break each patch; every one must be refused")
    parser.add_argument("--min-agreement", type=float, default=0.0)
    args = parser.parse_args()
    repo = Path(args.repo).resolve()
    commits = git(repo, "rev-list", "--no-merges", f"--max-count={args.commits}", "HEAD").stdout.split()
    same, refused, wrong, skipped = 0, [], [], 0
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "tree"
        git(repo, "worktree", "add", "--detach", str(tree), commits[0] if commits else "HEAD")
        try:
            for number, commit in enumerate(commits):
                parent = git(repo, "rev-parse", "--verify", "--quiet", f"{commit}^", check=False).stdout.strip()
                if not parent:  # the first commit, or a shallow clone's last
                    skipped += 1
                    continue
                raw = git(repo, "diff", "-M", "--no-color", parent, commit, text=False).stdout
                # At a line's start only: a diff adding these words to a file is text.
                if re.search(rb"(?m)^(GIT binary patch|Binary files )", raw):
                    skipped += 1
                    continue
                try:
                    diff = raw.decode("utf-8")
                except UnicodeDecodeError:
                    skipped += 1
                    continue
                broken = None
                if args.corrupt:
                    diff, broken = corrupted(diff, number % 3)
                elif args.form == "envelope":
                    diff = envelope(diff, lambda path: git(repo, "show", f"{parent}:{path}").stdout)
                    if diff is None:
                        skipped += 1
                        continue
                git(tree, "checkout", "--quiet", "--force", "--detach", parent)
                git(tree, "clean", "-fdq")
                patch = Path(scratch) / "change.patch"
                patch.write_bytes(diff.encode("utf-8"))
                run = subprocess.run(
                    [args.sextant, "--root", str(tree), "apply", "--write", "--check", "off", str(patch)],
                    capture_output=True, text=True,
                )
                error = run.stderr.strip().splitlines()[0] if run.stderr.strip() else f"exit {run.returncode}"
                if broken:
                    untouched = git(tree, "status", "--porcelain").stdout == "" and not (Path(scratch) / "outside.txt").exists()
                    if run.returncode == 2 and untouched:
                        same += 1
                    else:
                        wrong.append((commit, f"{broken}: exit {run.returncode}, tree untouched: {untouched}"))
                    continue
                if run.returncode != 0:
                    refused.append((commit, error))
                    continue
                git(tree, "add", "-A")
                differs = git(tree, "diff", "--cached", "--quiet", commit, check=False).returncode != 0
                if differs:
                    names = git(tree, "diff", "--cached", "--name-status", commit).stdout.split("\n")[:5]
                    wrong.append((commit, ", ".join(n for n in names if n)))
                else:
                    same += 1
        finally:
            git(repo, "worktree", "remove", "--force", str(tree), check=False)
    tried = same + len(refused) + len(wrong)
    agreement = same / tried if tried else 0.0
    if args.corrupt:
        print(f"{tried} corrupted patches ({skipped} skipped): {same} refused with nothing written, "
              f"{len(wrong)} not; agreement {agreement:.3f}")
    else:
        print(f"{tried} commits applied as {args.form} patches ({skipped} skipped: binary, no parent, "
              f"or not sayable in the form): {same} trees identical to git's, {len(refused)} refused, "
              f"{len(wrong)} different; agreement {agreement:.3f}")
    for commit, why in refused:
        print(f"  refused {commit[:10]}: {why}")
    for commit, why in wrong:
        print(f"  {'accepted' if args.corrupt else 'different'} {commit[:10]}: {why}")
    if not tried:
        print("nothing to compare: no commit with a parent and a text diff")
        return 0
    return 0 if agreement >= args.min_agreement else 1


if __name__ == "__main__":
    sys.exit(main())
