"""``generate_image``: the instruction for an image endpoint, not the image.

The tool validates the request strictly (sizes in multiples of 8 from 64 to 2048 pixels, 1 to 150
denoising steps, a guidance scale from 0 to 30) and answers the JSON an application sends to its
image service: ``{"action": "generate_image", "endpoint", "method": "POST", "request": {"prompt",
"width", "height", "num_inference_steps", "guidance_scale"}}``. The endpoint is
``DISPATCHGUARD_TOOLS_IMAGE_URL`` (``null`` when unset: the application decides where it goes).
The request body uses the parameter names of the common diffusion servers (diffusers pipelines,
text-generation-inference style image endpoints).
"""

from __future__ import annotations

from typing import Annotated

from annotated_types import Ge, Le, MaxLen, MinLen, MultipleOf

from dispatchguard.runtime.json_text import ensure_json_str

from .errors import ToolArgumentError
from .settings import get_tool_settings

Pixels = Annotated[int, Ge(64), Le(2048), MultipleOf(8)]


def generate_image(
    prompt: Annotated[str, MinLen(1), MaxLen(2000)],
    width: Pixels = 1024,
    height: Pixels = 1024,
    steps: Annotated[int, Ge(1), Le(150)] = 30,
    guidance_scale: Annotated[float, Ge(0), Le(30)] = 7.5,
) -> str:
    """Ask for an image; returns JSON {"action", "endpoint", "method", "request"} for the image service.

    Args:
        prompt: what the image shows, in words.
        width: width in pixels, a multiple of 8 from 64 to 2048.
        height: height in pixels, a multiple of 8 from 64 to 2048.
        steps: denoising steps, 1 to 150 (more is slower and finer).
        guidance_scale: how closely to follow the prompt, 0 to 30.
    """
    prompt = " ".join(prompt.split())
    if not prompt:
        raise ToolArgumentError("prompt is blank", argument="prompt")
    request = {
        "prompt": prompt,
        "width": width,
        "height": height,
        "num_inference_steps": steps,
        "guidance_scale": float(guidance_scale),
    }
    endpoint = get_tool_settings().image_url
    return ensure_json_str({"action": "generate_image", "endpoint": endpoint, "method": "POST", "request": request})
