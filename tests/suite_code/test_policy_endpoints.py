"""The user's credentials go only to endpoints the user named: a suite's or a run directory's
endpoint (a spec's ``?base_url=``, a matrix entry's ``options.base_url``, run.json's
``options.base_url`` on resume, an ``http://`` agent, a judge's ``base_url``) gets none of them
without ``--allow-suite-endpoints``. A loopback server records the ``Authorization`` header it
receives: it must get no key without the opt-in.

The tests marked as regressions failed on the code before the endpoint rule: the server received
``Bearer $OPENAI_API_KEY``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from policy_helpers import USER_KEY, invoke, key_recorder, suite_file

from agentgauge._suite_code import SuiteCodePolicy


@pytest.fixture
def user_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", USER_KEY)
    return USER_KEY


def _run(path: Path, out: Path, *flags: str) -> tuple[int, str]:
    return invoke("run", str(path), "-o", str(out), "--no-progress", "--no-cache", *flags)


# ------------------------------------------------------------------ regressions: the key leaked


def test_a_suite_agent_base_url_gets_no_key_without_the_opt_in(
    tmp_path: Path, user_key: str
) -> None:
    with key_recorder() as srv:
        path = suite_file(tmp_path / "s", f"defaults:\n  agent: 'openai:m?base_url={srv.base_url}'")
        code, out = _run(path, tmp_path / "r")
        assert code == 2, out
        assert out.startswith(
            f"{path}:3: defaults.agent: agent 'openai:m?base_url={srv.base_url}': it would send "
            f"your OPENAI_API_KEY to {srv.base_url}, an endpoint a suite or run directory names"
        ), out
        assert "--allow-suite-endpoints" in out
        assert srv.keys == []  # not even a request
        assert not (tmp_path / "r").exists()
        code, out = _run(path, tmp_path / "r2", "--allow-suite-endpoints")
        assert code == 0, out
        assert srv.keys == [f"Bearer {user_key}"]


def test_a_matrix_member_base_url_gets_no_key(tmp_path: Path, user_key: str) -> None:
    with key_recorder() as srv:
        header = (
            "matrix:\n  agents:\n    - 'mock:'\n    - agent: openai:m\n      label: far\n"
            f"      options: {{base_url: '{srv.base_url}'}}"
        )
        path = suite_file(tmp_path / "s", header)
        code, out = _run(path, tmp_path / "r")
        assert code == 2, out
        assert out.startswith(f"{path}:5: matrix.agents[1].agent: agent 'openai:m': it would send "
                              f"your OPENAI_API_KEY to {srv.base_url}"), out  # fmt: skip
        assert srv.keys == []
        code, out = _run(path, tmp_path / "r2", "--allow-suite-endpoints")
        assert code == 0, out
        assert srv.keys == [f"Bearer {user_key}"]


def _interrupted_run(tmp_path: Path, base_url: str) -> Path:
    """A run of two cases against ``base_url`` (named with --base-url), killed after one."""
    path = suite_file(tmp_path / "s", "", cases=2)
    run_dir = tmp_path / "run"
    code, out = _run(path, run_dir, "--agent", "openai:m", "--base-url", base_url)
    assert code == 0, out
    journal = run_dir / "results.jsonl"
    journal.write_text(journal.read_text().splitlines(keepends=True)[0])
    return run_dir


def test_an_edited_run_json_base_url_gets_no_key_on_resume(tmp_path: Path, user_key: str) -> None:
    with key_recorder() as mine, key_recorder() as theirs:
        run_dir = _interrupted_run(tmp_path, mine.base_url)
        assert mine.keys == [f"Bearer {user_key}"] * 2
        record = json.loads((run_dir / "run.json").read_text())
        record["options"]["base_url"] = theirs.base_url  # a colleague's folder, edited
        (run_dir / "run.json").write_text(json.dumps(record, indent=2))
        code, out = invoke("run", "--resume", str(run_dir), "--no-progress")
        assert code == 2, out
        line = out.splitlines()[0]
        assert line.startswith(f"{run_dir}/run.json:"), line
        assert ": options.base_url: agent 'openai:m': it would send your OPENAI_API_KEY" in line
        assert theirs.keys == []
        # naming the endpoint yourself is the opt-in for it
        code, out = invoke("run", "--resume", str(run_dir), "--no-progress",
                           "--base-url", theirs.base_url)  # fmt: skip
        assert code == 0, out
        assert theirs.keys == [f"Bearer {user_key}"]


def test_an_edited_run_json_agent_url_gets_no_key_on_resume(tmp_path: Path, user_key: str) -> None:
    with key_recorder() as mine, key_recorder() as theirs:
        run_dir = _interrupted_run(tmp_path, mine.base_url)
        record = json.loads((run_dir / "run.json").read_text())
        record["agent"] = f"openai:m?base_url={theirs.base_url}"
        record["options"]["base_url"] = None
        (run_dir / "run.json").write_text(json.dumps(record, indent=2))
        code, out = invoke("run", "--resume", str(run_dir), "--no-progress")
        assert code == 2, out
        assert out.startswith(f"{run_dir}/run.json:")
        assert ": agent: agent 'openai:m?" in out
        assert theirs.keys == []


def test_a_crafted_matrix_json_base_url_gets_no_key(tmp_path: Path, user_key: str) -> None:
    with key_recorder() as mine, key_recorder() as theirs:
        path = suite_file(tmp_path / "s", "")
        out_dir = tmp_path / "m"
        code, out = _run(path, out_dir, "--agent", "a=openai:m", "--agent", "b=mock:",
                         "--base-url", mine.base_url)  # fmt: skip
        assert code == 0, out
        manifest = json.loads((out_dir / "matrix.json").read_text())
        manifest["options"]["base_url"] = theirs.base_url
        manifest["members"][0]["state"] = "running"
        (out_dir / "matrix.json").write_text(json.dumps(manifest, indent=2))
        (out_dir / "a" / "run.json").unlink()  # as if it had not started
        code, out = invoke("run", "--resume", str(out_dir), "--no-progress")
        assert code == 2, out
        assert out.startswith(f"{out_dir}/matrix.json:"), out
        assert "options.base_url" in out
        assert theirs.keys == []


def test_a_suite_http_agent_gets_no_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTGAUGE_HTTP_TOKEN", "tok-user-0123456789")
    with key_recorder() as srv:
        path = suite_file(tmp_path / "s", f"defaults:\n  agent: '{srv.url}/agent'")
        code, out = _run(path, tmp_path / "r")
        assert code == 2, out
        assert "it would send your AGENTGAUGE_HTTP_TOKEN" in out
        assert srv.keys == []
        monkeypatch.delenv("AGENTGAUGE_HTTP_TOKEN")  # no token of yours: nothing to leak
        code, out = _run(path, tmp_path / "r2")
        assert code == 0, out
        assert srv.keys == [None]


@pytest.mark.parametrize("field", ["defaults.judge", "scorers[0].judge"])
def test_a_suite_judge_base_url_gets_no_key(tmp_path: Path, user_key: str, field: str) -> None:
    with key_recorder() as srv:
        spec = f"openai:j?base_url={srv.base_url}"
        if field == "defaults.judge":
            header, line = f"defaults:\n  judge: '{spec}'", 3
        else:
            header, line = f"scorers:\n  - scorer: equivalence\n    judge: '{spec}'", 4
        path = suite_file(tmp_path / "s", header)
        code, out = _run(path, tmp_path / "r", "--agent", "mock:")
        assert code == 2, out
        assert out.startswith(f"{path}:{line}: {field}: judge '{spec}': it would send your "), out
        resp = tmp_path / "responses.jsonl"
        resp.write_text(json.dumps({"case_id": "c0", "text": "no"}) + "\n")
        code, out = invoke("score", str(path), "-r", str(resp), "-o", str(tmp_path / "sc"))
        assert code == 2, out
        assert out.startswith(f"{path}:{line}: {field}: judge"), out
        code, out = invoke("validate", str(path))
        assert code == 2, out
        assert f"{path}:{line}: {field}: error: judge '{spec}': it would send" in out
        assert srv.keys == []


# ------------------------------------------------------------------ what stays allowed


def test_no_key_of_yours_nothing_to_leak(tmp_path: Path) -> None:
    with key_recorder() as srv:
        path = suite_file(tmp_path / "s", f"defaults:\n  agent: 'openai:m?base_url={srv.base_url}'")
        code, out = _run(path, tmp_path / "r")
        assert code == 0, out
        assert srv.keys == [None]


def test_the_suites_own_key_goes_and_yours_does_not(tmp_path: Path, user_key: str) -> None:
    with key_recorder() as srv:
        spec = f"openai:m?base_url={srv.base_url}&api_key=sk-the-suites-own-key-42"
        path = suite_file(tmp_path / "s", f"defaults:\n  agent: '{spec}'")
        code, out = _run(path, tmp_path / "r")
        assert code == 0, out
        assert srv.keys == ["Bearer sk-the-suites-own-key-42"]


def test_your_base_url_wins_over_the_suites(tmp_path: Path, user_key: str) -> None:
    with key_recorder() as mine, key_recorder() as theirs:
        path = suite_file(
            tmp_path / "s", f"defaults:\n  agent: 'openai:m?base_url={theirs.base_url}'"
        )
        code, out = _run(path, tmp_path / "r", "--base-url", mine.base_url)
        assert code == 0, out
        assert mine.keys == [f"Bearer {user_key}"]
        assert theirs.keys == []


def test_the_endpoint_of_your_environment_is_yours(
    tmp_path: Path, user_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with key_recorder() as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        path = suite_file(
            tmp_path / "s", f"defaults:\n  agent: 'openai:m?base_url={srv.base_url}/'"
        )
        code, out = _run(path, tmp_path / "r")
        assert code == 0, out
        assert srv.keys == [f"Bearer {user_key}"]


def test_the_config_file_lists_the_endpoints_you_trust(
    tmp_path: Path, user_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with key_recorder() as trusted, key_recorder() as other:
        config = tmp_path / "config.toml"
        config.write_text(f'allow_suite_endpoints = ["{trusted.base_url}"]\n')
        monkeypatch.setenv("AGENTGAUGE_CONFIG", str(config))
        path = suite_file(
            tmp_path / "s", f"defaults:\n  agent: 'openai:m?base_url={trusted.base_url}'"
        )
        code, out = _run(path, tmp_path / "r")
        assert code == 0, out
        assert trusted.keys == [f"Bearer {user_key}"]
        path = suite_file(
            tmp_path / "t", f"defaults:\n  agent: 'openai:m?base_url={other.base_url}'"
        )
        code, out = _run(path, tmp_path / "r2")
        assert code == 2, out
        assert other.keys == []


def test_the_environment_variable_opts_in(
    tmp_path: Path, user_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with key_recorder() as srv:
        monkeypatch.setenv("AGENTGAUGE_ALLOW_SUITE_ENDPOINTS", "1")
        path = suite_file(tmp_path / "s", f"defaults:\n  agent: 'openai:m?base_url={srv.base_url}'")
        code, out = _run(path, tmp_path / "r")
        assert code == 0, out
        assert srv.keys == [f"Bearer {user_key}"]


# ------------------------------------------------------------------ URL tricks


def _verdict(spec: str, opt_in: bool | tuple[str, ...] = False) -> str:
    policy = SuiteCodePolicy(root=Path.cwd(), allowed=False, endpoints=opt_in)
    use = policy.endpoint_use(spec, "agent", spec_by="the suite")
    assert use is not None
    return use.verdict


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000@evil.example/v1",  # userinfo: the host is evil.example
        "http://user:pw@127.0.0.1:8000/v1",
        "http://evil.example\\@127.0.0.1:8000/v1",  # backslash: parsers disagree on the host
        "http://127.0.0.1:8000%40evil/v1",  # %40 is '@' once the query is decoded
        "http://127.0.0.1:8000 /v1",
        "file:///etc/passwd",
        "ftp://127.0.0.1/v1",
        "http://[::1:8000/v1",
    ],
)
def test_urls_two_parsers_may_read_differently_are_refused_whatever_the_opt_in(
    user_key: str, url: str
) -> None:
    assert _verdict(f"openai:m?base_url={url}", opt_in=True) == "refused"
    assert _verdict(f"openai:m?base_url={url}") == "refused"
    # as a matrix entry's option (not decoded)
    policy = SuiteCodePolicy(root=Path.cwd(), allowed=False, endpoints=True)
    use = policy.endpoint_use(
        "openai:m", "agent", spec_by="the suite", options={"base_url": url},
        options_by={"base_url": "the suite"},
    )  # fmt: skip
    assert use is not None
    assert use.verdict == "refused", use


def test_a_percent_encoded_host_is_refused(user_key: str) -> None:
    policy = SuiteCodePolicy(root=Path.cwd(), allowed=False, endpoints=True)
    for url in ("http://127.0.0.1:8000%2f@evil/v1", "http://%6c%6fcalhost:8000/v1"):
        use = policy.endpoint_use(
            "openai:m", "agent", spec_by="the suite", options={"base_url": url},
            options_by={"base_url": "the suite"},
        )  # fmt: skip
        assert use is not None
        assert use.verdict == "refused", url


@pytest.mark.parametrize(
    ("url", "listed", "verdict"),
    [
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1", "allowed"),
        ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1", "allowed"),
        ("HTTP://LOCALHOST:8000/v1", "http://localhost:8000/v1", "allowed"),
        ("http://[::1]:8000/v1", "http://[0:0::1]:8000", "allowed"),
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000", "allowed"),
        ("http://127.0.0.1:8001/v1", "http://127.0.0.1:8000/v1", "needs opt-in"),
        ("https://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1", "needs opt-in"),
        ("http://127.0.0.1:8000/v10", "http://127.0.0.1:8000/v1", "needs opt-in"),
        ("http://2130706433:8000/v1", "http://127.0.0.1:8000/v1", "needs opt-in"),  # decimal IP
        ("http://0x7f.1:8000/v1", "http://127.0.0.1:8000/v1", "needs opt-in"),
        ("http://127.0.0.1.:8000/v1", "http://127.0.0.1:8000/v1", "needs opt-in"),
        ("http://localhost.evil.example:8000/v1", "http://localhost:8000", "needs opt-in"),
    ],
)
def test_a_listed_endpoint_matches_only_itself(
    user_key: str, url: str, listed: str, verdict: str
) -> None:
    assert _verdict(f"openai:m?base_url={url}", opt_in=(listed,)) == verdict


@pytest.mark.parametrize(
    ("spec", "env", "credential"),
    [
        ("azure:d?endpoint=http://127.0.0.1:9/x", {"AZURE_OPENAI_API_KEY": "az-key-000000"},
         "AZURE_OPENAI_API_KEY"),
        ("anthropic:c?base_url=http://127.0.0.1:9", {"ANTHROPIC_API_KEY": "sk-ant-0000000"},
         "ANTHROPIC_API_KEY"),
        # the SDK reads ANTHROPIC_AUTH_TOKEN whatever key the spec brings
        ("anthropic:c?base_url=http://127.0.0.1:9&api_key=own-key-0000",
         {"ANTHROPIC_AUTH_TOKEN": "tok-0000000"}, "ANTHROPIC_AUTH_TOKEN"),
        ("gemini:g?base_url=http://127.0.0.1:9", {"GOOGLE_API_KEY": "AIza-00000000"},
         "GOOGLE_API_KEY"),
        ("https://127.0.0.1:9/agent", {"AGENTGAUGE_HTTP_TOKEN": "tok-0000000"},
         "AGENTGAUGE_HTTP_TOKEN"),
        # a duplicated or dashed option is read as the factory reads it (the last one wins)
        ("openai:m?base_url=https://api.openai.com/v1&base-url=http://127.0.0.1:9",
         {"OPENAI_API_KEY": "sk-0000000000"}, "OPENAI_API_KEY"),
    ],
)  # fmt: skip
def test_every_vendor_and_its_credentials(
    monkeypatch: pytest.MonkeyPatch, spec: str, env: dict[str, str], credential: str
) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    policy = SuiteCodePolicy(root=Path.cwd(), allowed=False, endpoints=False)
    use = policy.endpoint_use(spec, "agent", spec_by="the suite")
    assert use is not None
    assert (use.verdict, use.credential) == ("needs opt-in", credential)
    for k in env:
        monkeypatch.delenv(k)
    use = policy.endpoint_use(spec, "agent", spec_by="the suite")
    assert use is not None
    assert use.verdict == "allowed"
    assert use.credential is None


@pytest.mark.parametrize("spec", ["mock:", "mock:echo", "local:smollm2", "python:agent.py:fn"])
def test_providers_that_send_no_credential_are_not_endpoints(user_key: str, spec: str) -> None:
    policy = SuiteCodePolicy(root=Path.cwd(), allowed=False, endpoints=False)
    assert policy.endpoint_use(spec, "agent", spec_by="the suite") is None


def test_an_edited_run_json_judge_with_a_base_url_gets_no_key(
    tmp_path: Path, user_key: str
) -> None:
    with key_recorder() as theirs:
        path = suite_file(tmp_path / "s", "", cases=2)
        run_dir = tmp_path / "run"
        code, out = _run(path, run_dir, "--agent", "mock:", "--judge", "mock:judge")
        assert code == 0, out
        journal = run_dir / "results.jsonl"
        journal.write_text(journal.read_text().splitlines(keepends=True)[0])
        record = json.loads((run_dir / "run.json").read_text())
        record["judge"] = f"openai:j?base_url={theirs.base_url}"
        (run_dir / "run.json").write_text(json.dumps(record, indent=2))
        code, out = invoke("run", "--resume", str(run_dir), "--no-progress")
        assert code == 2, out
        assert out.startswith(f"{run_dir}/run.json:"), out
        assert ": judge: judge 'openai:j?base_url=" in out
        assert theirs.keys == []


@pytest.mark.parametrize(
    "value", ["${OPENAI_BASE_URL}", "$OPENAI_BASE_URL/v1", "~/v1", "//evil.example/v1"]
)
def test_nothing_is_expanded_in_an_endpoint(
    tmp_path: Path, user_key: str, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """An environment variable or ``~`` in a suite's endpoint is text, never your endpoint."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    policy = SuiteCodePolicy(root=Path.cwd(), allowed=False, endpoints=True)
    use = policy.endpoint_use(
        "openai:m", "agent", spec_by="the suite", options={"base_url": value},
        options_by={"base_url": "the suite"},
    )  # fmt: skip
    assert use is not None
    assert use.verdict == "refused", use


def test_a_yaml_tag_cannot_name_an_agent(tmp_path: Path, user_key: str) -> None:
    path = suite_file(tmp_path / "s", "defaults:\n  agent: !!python/name:os.system")
    code, out = _run(path, tmp_path / "r")
    assert code == 2, out
    assert out.startswith(f"{path}:3"), out


def test_a_run_json_base_url_for_the_suites_own_agent_gets_no_key(
    tmp_path: Path, user_key: str
) -> None:
    """The agent comes from the suite's defaults.agent (taken from the suite again on resume);
    the endpoint from an edited run.json."""
    with key_recorder() as mine, key_recorder() as theirs:
        path = suite_file(tmp_path / "s", "defaults:\n  agent: 'openai:m'", cases=2)
        run_dir = tmp_path / "run"
        code, out = _run(path, run_dir, "--base-url", mine.base_url)
        assert code == 0, out
        journal = run_dir / "results.jsonl"
        journal.write_text(journal.read_text().splitlines(keepends=True)[0])
        record = json.loads((run_dir / "run.json").read_text())
        assert record["options"]["agent_source"] == "suite"
        record["options"]["base_url"] = theirs.base_url
        (run_dir / "run.json").write_text(json.dumps(record, indent=2))
        code, out = invoke("run", "--resume", str(run_dir), "--no-progress")
        assert code == 2, out
        assert out.startswith(f"{run_dir}/run.json:"), out
        assert ": options.base_url: agent 'openai:m': it would send your OPENAI_API_KEY" in out
        assert theirs.keys == []


def test_the_pytest_plugin_sends_no_key_to_a_suite_endpoint(tmp_path: Path, user_key: str) -> None:
    import subprocess
    import sys

    with key_recorder() as srv:
        folder = tmp_path / "s"
        path = suite_file(folder, f"defaults:\n  agent: 'openai:m?base_url={srv.base_url}'")
        path.rename(folder / "agentgauge_ep.yaml")
        args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                "--agentgauge-run-dir", str(tmp_path / "runs")]  # fmt: skip
        out = subprocess.run(args, cwd=folder, capture_output=True, text=True, check=False)
        assert out.returncode != 0, out.stdout
        assert "it would send your OPENAI_API_KEY" in out.stdout + out.stderr
        assert srv.keys == []
        args.append("--agentgauge-allow-suite-endpoints")
        out = subprocess.run(args, cwd=folder, capture_output=True, text=True, check=False)
        assert out.returncode == 0, out.stdout + out.stderr
        assert srv.keys == [f"Bearer {user_key}"]
