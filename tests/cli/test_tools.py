def test_list_shows_signatures(tmp_path: Path) -> None:
    src = tmp_path / "tools.json"
    tools = [
        *OPENAI_TOOLS,
        {"name": "ping", "description": "", "input_schema": {"type": "object"}},
    ]
    src.write_text(json.dumps(tools), encoding="utf-8")
    result = CliRunner().invoke(cli, ["tools", "list", str(src)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "get_weather(city: string)",
        "    Weather for a city.",
        "ping()",
    ]
    assert result.stderr.strip() == "2 tool(s)"
