"""git as the oracle for `sextant apply`: real commits' diffs applied to their parents.

For each of the last N commits of a repository that have one parent, checks out the parent in
a scratch worktree, writes `git diff -M PARENT COMMIT` (renames, new and deleted files, mode
changes) through `sextant apply --write --check off`, and compares the worktree with the
commit's tree (`git diff --quiet COMMIT`, after `git add -A`). Reports how many trees came out
identical, how many patches sextant refused (with the error) and how many it applied wrongly,
listing each miss. Binary diffs are skipped (sextant edits text).

    python tests/oracle/patch_compare.py --sextant target/release/sextant --repo . --commits 100
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path


def git(repo, *args, check=True, text=True):
    return subprocess.run(["git", "-C", str(repo), *args], check=check, capture_output=True, text=text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--min-agreement", type=float, default=0.0)
    args = parser.parse_args()
    repo = Path(args.repo).resolve()
    commits = git(repo, "rev-list", "--no-merges", f"--max-count={args.commits}", "HEAD").stdout.split()
    same, refused, wrong, skipped = 0, [], [], 0
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "tree"
        git(repo, "worktree", "add", "--detach", str(tree), commits[0] if commits else "HEAD")
        try:
            for commit in commits:
                parent = git(repo, "rev-parse", "--verify", "--quiet", f"{commit}^", check=False).stdout.strip()
                if not parent:  # the first commit, or a shallow clone's last
                    skipped += 1
                    continue
                diff = git(repo, "diff", "-M", "--no-color", parent, commit, text=False).stdout
                if b"GIT binary patch" in diff or b"\nBinary files " in diff:
                    skipped += 1
                    continue
                git(tree, "checkout", "--quiet", "--force", "--detach", parent)
                git(tree, "clean", "-fdq")
                patch = Path(scratch) / "change.diff"
                patch.write_bytes(diff)
                run = subprocess.run(
                    [args.sextant, "--root", str(tree), "apply", "--write", "--check", "off", str(patch)],
                    capture_output=True, text=True,
                )
                if run.returncode != 0:
                    refused.append((commit, run.stderr.strip().splitlines()[0] if run.stderr else f"exit {run.returncode}"))
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
    print(f"{tried} commits applied ({skipped} skipped: binary, or no parent): {same} trees identical to git's, "
          f"{len(refused)} refused, {len(wrong)} different; agreement {agreement:.3f}")
    for commit, why in refused:
        print(f"  refused {commit[:10]}: {why}")
    for commit, names in wrong:
        print(f"  different {commit[:10]}: {names}")
    if not tried:
        print("nothing to compare: no commit with a parent and a text diff")
        return 0
    return 0 if agreement >= args.min_agreement else 1


if __name__ == "__main__":
    sys.exit(main())
