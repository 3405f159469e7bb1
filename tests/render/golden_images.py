"""Comparing rendered PNGs with the stored golden images (see README.md in this folder)."""

from __future__ import annotations

import os
from io import BytesIO
from pathlib import Path

from PIL import Image, ImageChops

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
FAILED_DIR = Path(__file__).resolve().parent.parent.parent / "var" / "golden-failures"
REGENERATE = os.environ.get("SANCTUM_REGEN_GOLDEN") == "1"

# A pixel counts as different when one channel is off by more than CHANNEL_TOLERANCE; an image
# matches when at most MAX_DIFFERENT_SHARE of its pixels differ. This absorbs rounding changes
# in resampling or palette mapping, and fails on anything a player would notice.
CHANNEL_TOLERANCE = 24
MAX_DIFFERENT_SHARE = 0.0002


def different_share(actual: Image.Image, expected: Image.Image) -> float:
    diff = ImageChops.difference(actual.convert("RGB"), expected.convert("RGB"))
    red, green, blue = diff.split()
    worst = ImageChops.lighter(ImageChops.lighter(red, green), blue)
    histogram = worst.histogram()
    different = sum(histogram[CHANNEL_TOLERANCE + 1 :])
    return different / (actual.width * actual.height)


def assert_matches_golden(name: str, png: bytes) -> None:
    path = GOLDEN_DIR / f"{name}.png"
    if REGENERATE:
        GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png)
        return
    assert path.is_file(), f"no golden image {path}; create it with SANCTUM_REGEN_GOLDEN=1"
    actual = Image.open(BytesIO(png))
    expected = Image.open(path)
    assert actual.size == expected.size, f"{name}: size {actual.size} != golden {expected.size}"
    share = different_share(actual, expected)
    if share > MAX_DIFFERENT_SHARE:
        FAILED_DIR.mkdir(parents=True, exist_ok=True)
        (FAILED_DIR / f"{name}.png").write_bytes(png)
        raise AssertionError(
            f"{name}: {share:.2%} of pixels differ from {path} "
            f"(allowed {MAX_DIFFERENT_SHARE:.2%}); the new image is in {FAILED_DIR}"
        )
