"""generate_image: strict arguments, the instruction it answers, and its summary."""

from __future__ import annotations

import pytest

from dispatchguard.agent import summarize_tool_result
from dispatchguard.tools import REFERENCE_TOOLS, configure_tools, generate_image


def test_defaults_and_the_instruction(call):
    out = call("generate_image", prompt="  a red   fox\nin snow ")
    assert out == {
        "action": "generate_image",
        "endpoint": None,
        "method": "POST",
        "request": {
            "prompt": "a red fox in snow",
            "width": 1024,
            "height": 1024,
            "num_inference_steps": 30,
            "guidance_scale": 7.5,
        },
    }


def test_every_argument_and_the_configured_endpoint(call):
    configure_tools(image_url="http://images.internal/v1/generate")
    out = call("generate_image", prompt="map", width=64, height=2048, steps=150, guidance_scale=0)
    assert out["endpoint"] == "http://images.internal/v1/generate"
    assert out["request"] == {
        "prompt": "map", "width": 64, "height": 2048, "num_inference_steps": 150, "guidance_scale": 0.0,
    }


@pytest.mark.parametrize(
    "args",
    [
        {"prompt": ""},
        {"prompt": "x" * 2001},
        {"prompt": "x", "width": 60},
        {"prompt": "x", "width": 1001},  # not a multiple of 8
        {"prompt": "x", "height": 4096},
        {"prompt": "x", "steps": 0},
        {"prompt": "x", "steps": 151},
        {"prompt": "x", "steps": 2.5},
        {"prompt": "x", "guidance_scale": -0.1},
        {"prompt": "x", "guidance_scale": 30.5},
        {"prompt": "x", "width": "512"},
        {"prompt": "x", "guidance_scale": True},
        {"width": 512},
    ],
)
def test_out_of_range_arguments_are_invalid_args(call, args):
    out = call("generate_image", **args)
    assert out["kind"] == "invalid_args", out


def test_a_blank_prompt_is_refused_by_the_tool(call):
    out = call("generate_image", prompt=" \t\n ")
    assert out["kind"] == "invalid_args" and out["argument"] == "prompt"


def test_strict_schema_is_exported():
    schema = REFERENCE_TOOLS.spec("generate_image").strict_schema
    assert schema["required"] == ["prompt", "width", "height", "steps", "guidance_scale"]
    assert schema["properties"]["width"]["multipleOf"] == 8 and schema["additionalProperties"] is False


def test_summary_for_the_agent_loop():
    summary = summarize_tool_result("generate_image", generate_image("a lighthouse at dusk", 768, 512, 25, 6))
    where = "the application's image endpoint"
    assert summary == f"image request for {where}: 768x512, 25 steps, guidance 6: a lighthouse at dusk"
    configure_tools(image_url="http://img/x")
    summary = summarize_tool_result("generate_image", generate_image("p"))
    assert summary.startswith("image request for http://img/x: 1024x1024")
