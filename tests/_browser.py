"""A real headless browser for the tests of ``lazify report``'s page, and a tiny PNG
decoder to look at its screenshots.

:func:`chromium` finds Chromium (Debian's ``chromium``), installs it with apt where it is
missing when running as root in CI (``CI=true``), and otherwise tells the test to skip,
saying why.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import tempfile
import zlib

import pytest

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

#: flags that work in a container, as root, with no network, no GPU and no D-Bus
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars")


def _find() -> str | None:
    for name in NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium() -> str:
    """The browser's path, or ``pytest.skip`` with the reason there is none."""
    path = _find()
    if path:
        return path
    in_ci = os.environ.get("CI", "").lower() == "true"
    is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if not (in_ci and is_root and shutil.which("apt-get")):
        pytest.skip("no chromium to open the report in (install Debian's `chromium`; in CI "
                    "as root the tests install it themselves)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for args in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900)
        if proc.returncode != 0:
            pytest.skip(f"chromium could not be installed ({' '.join(args)} exited "
                        f"{proc.returncode}: {proc.stderr.strip()[-300:]})")
    path = _find()
    if not path:
        pytest.skip("chromium was installed but is not on PATH")
    return path


def run_browser(browser: str, url: str, *extra: str, timeout: float = 120) \
        -> subprocess.CompletedProcess:
    """Run the browser once on *url* with a profile of its own; console messages go to
    stderr (``--enable-logging=stderr --v=0``)."""
    profile = tempfile.mkdtemp(prefix="lazify-chromium-")
    try:
        return subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
             *extra, url],
            capture_output=True, text=True, timeout=timeout)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(stderr: str) -> list[str]:
    """The page's console messages at error level, and uncaught exceptions."""
    lines = []
    for line in stderr.splitlines():
        if "CONSOLE" in line and ("Uncaught" in line or ":ERROR:" in line or "Error" in line):
            lines.append(line)
    return lines


# ---------------------------------------------------------------------------- PNG


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """``(width, height, rows)`` of an 8-bit RGB or RGBA PNG, each row its pixels' bytes
    (RGBA: 4 per pixel, RGB: 3), unfiltered."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _compression, _filter, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    bpp = 4 if colour == 6 else 3
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, previous = [], bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = previous[i]
                c = previous[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        elif kind != 0:
            raise ValueError(f"bad PNG filter {kind}")
        rows.append(bytes(line))
        previous = line
    return width, height, rows


def colour_counts(data: bytes) -> dict[tuple[int, int, int], int]:
    """How many pixels of each RGB colour the PNG has."""
    width, _height, rows = decode_png(data)
    bpp = len(rows[0]) // width if rows else 3
    counts: dict[tuple[int, int, int], int] = {}
    for row in rows:
        for i in range(0, len(row), bpp):
            key = (row[i], row[i + 1], row[i + 2])
            counts[key] = counts.get(key, 0) + 1
    return counts


def near(counts: dict, colour: str, tolerance: int = 6) -> int:
    """Pixels within *tolerance* (per channel) of ``#rrggbb``."""
    want = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return sum(n for rgb, n in counts.items()
               if all(abs(a - b) <= tolerance for a, b in zip(rgb, want)))
