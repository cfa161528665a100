"""summarize_tool_result: per-tool formatting, truncation, errors, registered summarisers."""

from __future__ import annotations

import json

import pytest

from dispatchguard.agent.summarize import (
    register_summarizer,
    summarize_tool_result,
    truncate_middle,
    unregister_summarizer,
)


def test_list_shows_top_three_items_and_counts_the_rest():
    text = summarize_tool_result("t", json.dumps(["a", "b", "c", "d", "e"]))
    assert text == "a | b | c (+2 more)"


def test_items_are_cut_to_200_characters_each():
    long = "x" * 500
    text = summarize_tool_result("t", json.dumps([long, "short"]))
    first, second = text.split(" | ")
    assert len(first) == 200 and "original_len=500" in first
    assert second == "short"


def test_dict_with_a_results_list_is_summarised_by_its_items():
    result = {"query": "q", "results": [{"title": "one"}, {"title": "two"}, {"title": "3"}, {"t": 4}]}
    text = summarize_tool_result("web_search", json.dumps(result))
    assert text == '{"title":"one"} | {"title":"two"} | {"title":"3"} (+1 more)'


def test_other_values_are_compact_json_or_text():
    assert summarize_tool_result("t", json.dumps({"cpu": 3.5, "mem": 40})) == '{"cpu":3.5,"mem":40}'
    assert summarize_tool_result("t", "5") == "5"
    assert summarize_tool_result("t", '"plain"') == "plain"
    assert summarize_tool_result("t", "not json at all") == "not json at all"
    assert summarize_tool_result("t", "[]") == "(no results)"


def test_non_string_results_go_through_ensure_json_str():
    assert summarize_tool_result("t", {"a": 1}) == '{"a":1}'  # type: ignore[arg-type]


def test_error_objects_become_tool_failed_reason():
    error = {"error": "HTTP 404 for https://x", "kind": "http_error", "tool": "web_search"}
    assert summarize_tool_result("web_search", json.dumps(error)) == (
        "web_search failed: HTTP 404 for https://x"
    )
    nested = {"error": {"message": "rate limited"}}
    assert summarize_tool_result("t", json.dumps(nested)) == "t failed: rate limited"


def test_a_dict_with_an_error_field_among_data_is_not_a_failure():
    value = {"error": 0.1, "estimate": 3}
    assert summarize_tool_result("t", json.dumps(value)) == '{"error":0.1,"estimate":3}'


def test_long_summaries_keep_head_and_tail_and_note_the_original_length():
    text = summarize_tool_result("t", json.dumps("h" * 600 + "t" * 600))
    assert len(text) <= 900
    assert text.startswith("hhh") and text.endswith("ttt")
    assert "truncated" in text and "original_len=1200" in text


def test_limit_is_respected_for_errors_too():
    error = json.dumps({"error": "e" * 2000, "kind": "tool_error", "tool": "t"})
    text = summarize_tool_result("t", error, limit=100)
    assert len(text) <= 100 and text.startswith("t failed: ")


def test_items_and_item_chars_are_configurable():
    text = summarize_tool_result("t", json.dumps(["abcdef"] * 4), items=1, item_chars=3)
    assert text == "abc (+3 more)"


def test_truncate_middle_with_a_tiny_limit_cuts_the_head():
    assert truncate_middle("abcdef", 3) == "abc"
    assert truncate_middle("abc", 3) == "abc"


def test_registered_summariser_gets_the_parsed_value():
    seen = []

    @register_summarizer("stats")
    def stats(value):
        seen.append(value)
        return ", ".join(f"{k}={v}" for k, v in value.items())

    try:
        assert summarize_tool_result("stats", '{"cpu": 3, "mem": 4}') == "cpu=3, mem=4"
        assert seen == [{"cpu": 3, "mem": 4}]
        # errors never reach it
        failed = summarize_tool_result("stats", '{"error": "down", "kind": "tool_error"}')
        assert failed == "stats failed: down"
        # its output is still bounded
        register_summarizer("stats", lambda value: "z" * 5000)
        assert len(summarize_tool_result("stats", "{}")) == 900
    finally:
        unregister_summarizer("stats")
    assert summarize_tool_result("stats", '{"cpu": 3}') == '{"cpu":3}'


def test_a_raising_summariser_falls_back_to_the_default(caplog):
    register_summarizer("broken", lambda value: 1 / 0)
    try:
        assert summarize_tool_result("broken", "[1, 2]") == "1 | 2"
    finally:
        unregister_summarizer("broken")
    assert "summariser for tool 'broken' raised" in caplog.text


@pytest.mark.parametrize("limit", [20, 50, 900])
def test_never_longer_than_limit(limit):
    payload = json.dumps([{"k": "v" * 300}] * 10)
    assert len(summarize_tool_result("t", payload, limit=limit)) <= limit
