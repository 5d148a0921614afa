#!/usr/bin/env python3
"""Runs the Linux jobs of examples/ci/storekit-matrix.yml, step by step, in a copy of examples/app-repo: the
workflow a team copies is run here as far as Linux allows (the macOS job needs Xcode).

StoreKit Matrix comes from a clone of this repository's committed HEAD, tagged with the tool's version and named
by a file:// URL in place of the workflow's STOREKIT_MATRIX_URL (and of the URL in StoreTests/Package.swift).
`uses:` steps are GitHub's own actions (checkout, cache, artifacts): checkout is the copy, the others do nothing
here, so every cache is a miss. A step's `if:` is evaluated for the forms the workflow uses: always(), a
hashFiles(...) test and a step output compared with a string; any other form fails this script, so that the
workflow cannot grow a condition this run ignores.

With --prebuilt-tool PACKAGE_DIR the `matrix` job finds the tool as a cache hit would leave it: `.storekit-matrix` is
PACKAGE_DIR (a checkout of the same commit whose release build of `matrix` is done), and the step that clones and
builds it is skipped, as the workflow skips it on a cache hit. CI uses this, having built the release tool already.

Usage: scripts/run-ci-example.py [--prebuilt-tool PACKAGE_DIR] [WORK_DIR]   (needs PyYAML: run-ci-example.sh)
Exit status: 0 every step of the Linux jobs succeeded, 1 a step failed (its output is shown), 2 usage.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
WORKFLOW = os.path.join(ROOT, "examples", "ci", "storekit-matrix.yml")
LINUX_JOBS = ["store", "matrix"]
PLACEHOLDER_URL = "https://github.com/your-org/storekit-matrix.git"


def tool_version():
    text = open(os.path.join(ROOT, "Sources", "MatrixModel", "Model", "ToolVersion.swift"), encoding="utf-8").read()
    return re.search(r'public static let current = "([^"]+)"', text).group(1)


def expand(text, env, outputs):
    """GitHub's ${{ }} expressions of the forms the workflow uses."""
    def value(match):
        expression = match.group(1).strip()
        if expression.startswith("env."):
            return env[expression[4:]]
        if expression == "github.sha":
            return "ci-example"
        if expression == "runner.os":
            return "Linux"
        if expression.startswith("hashFiles("):
            return "hash"
        step = re.fullmatch(r"steps\.(\w+)\.outputs\.([\w-]+)", expression)
        if step:
            return outputs.get(step.group(1), {}).get(step.group(2), "")
        raise SystemExit(f"error: the workflow uses an expression this run does not know: ${{{{ {expression} }}}}")
    return re.sub(r"\$\{\{(.*?)\}\}", value, text)


def condition(text, workspace, outputs):
    """Whether a step's `if:` holds."""
    text = text.strip()
    if text == "always()":
        return True
    files = re.fullmatch(r"hashFiles\('([^']+)'\) != ''", text)
    if files:
        return os.path.exists(os.path.join(workspace, files.group(1)))
    output = re.fullmatch(r"steps\.(\w+)\.outputs\.([\w-]+) (==|!=) '([^']*)'", text)
    if output:
        actual = outputs.get(output.group(1), {}).get(output.group(2), "")
        return (actual == output.group(4)) == (output.group(3) == "==")
    raise SystemExit(f"error: the workflow has a condition this run does not know: {text}")


def run_job(name, job, env, workspace, outputs):
    print(f"== job {name}: {job.get('name', name)}", flush=True)
    path_file = os.path.join(workspace, ".github-path")
    extra_path = []
    for index, step in enumerate(job["steps"]):
        title = step.get("name") or step.get("uses") or f"step {index}"
        if "if" in step and not condition(step["if"], workspace, outputs):
            print(f"-- {title}: skipped (its condition does not hold)", flush=True)
            continue
        if "uses" in step:
            print(f"-- {title}: GitHub's action, nothing to do here", flush=True)
            continue
        output_file = os.path.join(workspace, ".github-output")
        open(output_file, "w").close()
        open(path_file, "w").close()
        step_env = dict(os.environ, **env, GITHUB_PATH=path_file, GITHUB_OUTPUT=output_file, GITHUB_SHA="ci-example",
                        RUNNER_TEMP=os.path.join(workspace, ".runner-temp"))
        step_env["PATH"] = os.pathsep.join(extra_path + [os.environ["PATH"]])
        os.makedirs(step_env["RUNNER_TEMP"], exist_ok=True)
        print(f"-- {title}", flush=True)
        script = expand(step["run"], env, outputs)
        result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=workspace, env=step_env)
        if result.returncode != 0:
            print(f"error: job {name}, step \"{title}\" exited {result.returncode}", file=sys.stderr)
            return False
        extra_path = [line.strip() for line in open(path_file, encoding="utf-8") if line.strip()] + extra_path
        if "id" in step:
            pairs = [line.strip().split("=", 1) for line in open(output_file, encoding="utf-8") if "=" in line]
            outputs[step["id"]] = dict(pairs)
    return True


def main(argv):
    prebuilt = None
    if argv[:1] == ["--prebuilt-tool"] and len(argv) >= 2:
        prebuilt = os.path.abspath(argv[1])
        argv = argv[2:]
    if len(argv) > 1 or any(argument.startswith("-") for argument in argv):
        print(__doc__, file=sys.stderr)
        return 2
    work = argv[0] if argv else tempfile.mkdtemp(prefix="ci-example-")
    os.makedirs(work, exist_ok=True)
    version = tool_version()
    clone = os.path.join(work, "storekit-matrix")
    shutil.rmtree(clone, ignore_errors=True)
    subprocess.run(["git", "clone", "--quiet", ROOT, clone], check=True)
    subprocess.run(["git", "-C", clone, "tag", version], check=True)
    url = "file://" + clone

    workflow = yaml.safe_load(open(WORKFLOW, encoding="utf-8"))
    env = {key: str(value) for key, value in workflow.get("env", {}).items()}
    if env.get("STOREKIT_MATRIX_URL") != PLACEHOLDER_URL or env.get("STOREKIT_MATRIX_VERSION") != version:
        print(f"error: the workflow should pin {PLACEHOLDER_URL} at {version}, the tool's version", file=sys.stderr)
        return 1
    env["STOREKIT_MATRIX_URL"] = url

    workspace = os.path.join(work, "app-repo")
    shutil.rmtree(workspace, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "examples", "app-repo"), workspace, symlinks=True)
    manifest = os.path.join(workspace, "StoreTests", "Package.swift")
    text = open(manifest, encoding="utf-8").read()
    if PLACEHOLDER_URL not in text or f'from: "{version}"' not in text:
        print(f"error: {manifest} should depend on {PLACEHOLDER_URL} from {version}", file=sys.stderr)
        return 1
    open(manifest, "w", encoding="utf-8").write(text.replace(PLACEHOLDER_URL, url))

    outputs = {}
    if prebuilt:
        os.symlink(prebuilt, os.path.join(workspace, ".storekit-matrix"))
        outputs["tool"] = {"cache-hit": "true"}
    for name in LINUX_JOBS:
        if not run_job(name, workflow["jobs"][name], env, workspace, dict(outputs)):
            return 1
    print(f"the Linux jobs of {os.path.relpath(WORKFLOW, ROOT)} passed in {workspace}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
